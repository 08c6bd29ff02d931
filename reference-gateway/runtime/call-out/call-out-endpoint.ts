/**
 * The call-out endpoint joins the fixture world like any other: one version (the built-in
 * manifest, call-out-manifest.ts), active, run by the call-out runtime. A world that already
 * lists the JID is a configuration error: the endpoint would mean two things.
 */
import { ConfigError } from '../../../protocol/json/config-file.ts';
import { canonicalJson } from '../../../protocol/json/canonical.ts';
import type { CallOutConfig } from '../../config/gateway-config.ts';
import type { FixtureWorld } from '../../config/fixture-world.ts';
import { CALL_OUT_RUNTIME_NAME } from './call-out-runtime.ts';
import { CALL_OUT_VERSION, callOutManifest } from './call-out-manifest.ts';

export function withCallOutEndpoint(
  world: FixtureWorld | undefined,
  callOut: CallOutConfig,
  source: string,
): FixtureWorld {
  const { endpoint } = callOut;
  const clash = world?.endpoints.find((entry) => entry.jid === endpoint);
  if (clash !== undefined) {
    throw new ConfigError(world?.source ?? source, [
      { path: `${clash.path}/jid`, message: `${endpoint} is the gateway config's callOut endpoint` },
    ]);
  }
  const endpointRuntimes = new Map(world?.endpointRuntimes ?? []);
  endpointRuntimes.set(endpoint, CALL_OUT_RUNTIME_NAME);
  return {
    source: world?.source ?? source,
    grants: world?.grants ?? [],
    endpoints: [
      ...(world?.endpoints ?? []),
      {
        path: '/callOut',
        jid: endpoint,
        versions: [{ path: '/callOut', origin: 'built-in', text: canonicalJson(callOutManifest(endpoint)) }],
        active: CALL_OUT_VERSION,
        hidden: false,
        restrictedInvocation: false,
        runtime: CALL_OUT_RUNTIME_NAME,
      },
    ],
    endpointRuntimes,
  };
}
