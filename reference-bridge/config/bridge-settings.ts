/**
 * What the bridge runs on: the caller config (protocol/json/caller-config.ts, the one shape the
 * suite hands any caller under test, docs/caller.md) plus the command's timing options, with JIDs
 * split and normalized and times in milliseconds. The config is checked where it is read
 * (readCallerConfig); nothing here refuses anything.
 */
import { bareJidOf, normalizeBareJid, parseJid } from '../../protocol/jid/index.ts';
import type { CallerConfig } from '../../protocol/json/caller-config.ts';

/** How long an IQ waits before its answer counts as lost (`--iq-timeout`). */
export const DEFAULT_IQ_TIMEOUT_SECONDS = 10;
/** How often a waiting call recovers its task's state (`--poll`). */
export const DEFAULT_POLL_SECONDS = 5;

export interface XmppAccountSettings {
  /** The bare JID the bridge authenticates as. */
  readonly bareJid: string;
  readonly localpart: string;
  readonly domain: string;
  /** The resource to bind; absent: the server picks one. */
  readonly resource?: string;
  readonly password: string;
  /** The c2s server; the stream is upgraded with STARTTLS before anything is authenticated. */
  readonly host: string;
  readonly port: number;
}

export interface EndpointSettings {
  /** Normalized bare JID. */
  readonly jid: string;
  /** The version to pin; absent: the active one when first listed. */
  readonly version?: string;
}

export interface BridgeTimings {
  readonly iqTimeoutSeconds: number;
  readonly pollSeconds: number;
}

export interface BridgeSettings {
  readonly xmpp: XmppAccountSettings;
  readonly endpoints: readonly EndpointSettings[];
  /** Local limit of one tools/call in milliseconds; undefined: none. */
  readonly callTimeoutMs?: number;
  readonly iqTimeoutMs: number;
  readonly pollMs: number;
}

export function bridgeSettingsOf(config: CallerConfig, timings: BridgeTimings): BridgeSettings {
  const jid = parseJid(config.xmpp.jid);
  return {
    xmpp: {
      bareJid: bareJidOf(config.xmpp.jid),
      localpart: jid.localpart ?? '',
      domain: jid.domainpart,
      ...(jid.resourcepart === undefined ? {} : { resource: jid.resourcepart }),
      password: config.xmpp.password,
      host: config.xmpp.host,
      port: config.xmpp.port,
    },
    endpoints: config.endpoints.map((endpoint) => ({
      jid: normalizeBareJid(endpoint.jid),
      ...(endpoint.version === undefined ? {} : { version: endpoint.version }),
    })),
    ...(config.timeoutSeconds === undefined ? {} : { callTimeoutMs: config.timeoutSeconds * 1000 }),
    iqTimeoutMs: timings.iqTimeoutSeconds * 1000,
    pollMs: timings.pollSeconds * 1000,
  };
}
