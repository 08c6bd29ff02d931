/**
 * Administrative Provisioning over the wire (#registration-flow), as an administrator's client
 * sends it: each helper is one IQ to the gateway JID and returns the exchange, so a test can
 * judge results and errors alike.
 */
import type { Caller, IqExchange } from '../../harness/driver/index.ts';
import type { JsonObject } from '../../protocol/json/json-value.ts';
import {
  buildActivate,
  buildDeactivate,
  buildRegister,
  buildRegistrationStatus,
  buildRemoveEndpoint,
  buildRemoveVersion,
  parseRegistered,
  parseRegistration,
  type Hash,
  type Registered,
  type Registration,
} from '../../protocol/stanza/index.ts';
import { GATEWAY } from './gateway-federation.ts';
import { resultPayload } from './wire.ts';

export function register(caller: Caller, manifestJson: string): Promise<IqExchange> {
  return caller.exchangeIq(GATEWAY, 'set', buildRegister({ manifestJson }));
}

export function activate(caller: Caller, jid: string, version: string, hash: Hash): Promise<IqExchange> {
  return caller.exchangeIq(GATEWAY, 'set', buildActivate({ jid, version, hash }));
}

export function deactivate(caller: Caller, jid: string): Promise<IqExchange> {
  return caller.exchangeIq(GATEWAY, 'set', buildDeactivate({ jid }));
}

export function registrationStatus(caller: Caller, jid: string): Promise<IqExchange> {
  return caller.exchangeIq(GATEWAY, 'get', buildRegistrationStatus({ jid }));
}

export function removeVersion(caller: Caller, jid: string, version: string): Promise<IqExchange> {
  return caller.exchangeIq(GATEWAY, 'set', buildRemoveVersion({ jid, version }));
}

export function removeEndpoint(caller: Caller, jid: string): Promise<IqExchange> {
  return caller.exchangeIq(GATEWAY, 'set', buildRemoveEndpoint({ jid }));
}

/** Registers and activates a manifest; returns what <registered/> said. */
export async function provision(caller: Caller, manifest: JsonObject): Promise<Registered> {
  const registered = parseRegistered(resultPayload(await register(caller, JSON.stringify(manifest))));
  resultPayload(await activate(caller, registered.jid, registered.version, registered.hash));
  return registered;
}

export async function statusOf(caller: Caller, jid: string): Promise<Registration> {
  return parseRegistration(resultPayload(await registrationStatus(caller, jid)));
}
