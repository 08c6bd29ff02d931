/**
 * Administrative Provisioning over the wire (#registration-flow) against the test federation's
 * gateway: each caller's ProvisioningClient, and the two steps most tests need done rather than
 * judged (register and activate; read the registration status), which fail the test on any
 * reply but a result.
 */
import type { Caller } from '../../harness/driver/index.ts';
import { ProvisioningClient } from '../../harness/provisioning/provisioning-client.ts';
import type { JsonObject } from '../../protocol/json/json-value.ts';
import {
  parseRegistered,
  parseRegistration,
  type Registered,
  type Registration,
} from '../../protocol/stanza/index.ts';
import { GATEWAY } from './gateway-federation.ts';
import { resultPayload } from './wire.ts';

/** `caller`'s provisioning IQs to the gateway, whether or not it is an administrator. */
export function provisioningOf(caller: Caller): ProvisioningClient {
  return new ProvisioningClient(caller, GATEWAY);
}

/** Registers and activates a manifest; returns what <registered/> said. */
export async function provision(caller: Caller, manifest: JsonObject): Promise<Registered> {
  const client = provisioningOf(caller);
  const registered = parseRegistered(resultPayload(await client.register(JSON.stringify(manifest))));
  resultPayload(await client.activate(registered.jid, registered.version, registered.hash));
  return registered;
}

export async function statusOf(caller: Caller, jid: string): Promise<Registration> {
  return parseRegistration(resultPayload(await provisioningOf(caller).status(jid)));
}
