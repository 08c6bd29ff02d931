/**
 * What the discovery responders need to know about the deployment, beyond the catalog. The
 * config module maps the gateway's JSON config onto this; nothing here is read from disk.
 * Feature switches exist so that disco#info advertises only what the running gateway
 * implements (#conformance: "MUST NOT advertise a feature it does not implement").
 */
import { JidError, normalizeBareJid } from '../../protocol/jid/index.ts';

/** Gateway-level features implemented outside discovery (registration, ping). */
export interface GatewayFeatureSwitches {
  /** Administrative Provisioning (#registration-flow): urn:xmpp:agent-api:0#admin. */
  readonly admin: boolean;
  /** Self Registration (#registration-flow): urn:xmpp:agent-api:0#self-register. */
  readonly selfRegister: boolean;
  /** XEP-0199 pings answered at the gateway JID: urn:xmpp:ping. */
  readonly ping: boolean;
}

/** Endpoint-wide task features (#endpoint-info, #conformance); tools narrow them further. */
export interface TaskFeatureSwitches {
  /** urn:xmpp:agent-task:0: invocation, state and result recovery. */
  readonly core: boolean;
  readonly progress: boolean;
  readonly cancel: boolean;
  readonly input: boolean;
}

export interface DiscoverySettings {
  /** The gateway's domain JID, normalized, e.g. `agents.example` (#addressing). */
  readonly gatewayJid: string;
  /** The name of the gateway's automation/agent-gateway identity (#gateway-info). */
  readonly gatewayName: string;
  /**
   * The largest page an RSM response carries, and the size of the first page when a request
   * without RSM meets a larger set (#list-agents "MAY enforce a page maximum"; #rules
   * "MUST bound … directory result count"; interp-14).
   */
  readonly pageMaximum: number;
  /** The Jabber Search Compatibility profile (#search). */
  readonly searchEnabled: boolean;
  readonly gatewayFeatures: GatewayFeatureSwitches;
  readonly taskFeatures: TaskFeatureSwitches;
  /** cold_start_supported in every endpoint-info form (#endpoint-info, #identity-presence). */
  readonly coldStartSupported: boolean;
  /** request_replay_seconds in every endpoint-info form: the admission replay window (#invocation). */
  readonly requestReplaySeconds: number;
  /**
   * The Human Messaging extensions an endpoint's chat implements (messaging/chat-turn.ts), for
   * its disco#info (#messaging: only those); none when absent.
   */
  readonly messagingFeatures?: (endpoint: string) => readonly string[];
}

export class DiscoverySettingsError extends Error {
  override readonly name = 'DiscoverySettingsError';
}

function positiveInteger(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new DiscoverySettingsError(`${what} must be a positive integer`);
  }
}

/**
 * Checks settings once at start-up and returns them with the gateway JID normalized. Task
 * sub-features need the task core: advertising #progress without invocation would be a
 * feature the endpoint does not implement.
 */
export function checkDiscoverySettings(settings: DiscoverySettings): DiscoverySettings {
  let gatewayJid: string;
  try {
    gatewayJid = normalizeBareJid(settings.gatewayJid);
  } catch (error) {
    if (error instanceof JidError) {
      throw new DiscoverySettingsError(`gatewayJid is not a bare JID (${error.rule})`);
    }
    throw error;
  }
  if (gatewayJid.includes('@')) throw new DiscoverySettingsError('gatewayJid must be a domain JID');
  if (settings.gatewayName.trim() === '') throw new DiscoverySettingsError('gatewayName must not be empty');
  positiveInteger(settings.pageMaximum, 'pageMaximum');
  positiveInteger(settings.requestReplaySeconds, 'requestReplaySeconds');
  const { core, progress, cancel, input } = settings.taskFeatures;
  if (!core && (progress || cancel || input)) {
    throw new DiscoverySettingsError('task progress, cancel and input features need the task core feature');
  }
  return { ...settings, gatewayJid };
}
