/**
 * The server stack a run stood on, as the federation reports it (not as it was asked for): a
 * verdict is a claim about a gateway on given servers, so every report names them.
 */
import type { Federation, ServerImplementation } from '../harness/federation/server-provider.ts';
import type { RemoteServerFacts } from '../suites/framework/context.ts';

/** Which implementation served each role: a (example.com), b (the gateway's home), the hostile peer. */
export interface RunServers {
  readonly a: ServerImplementation;
  readonly b: ServerImplementation;
  readonly hostile?: ServerImplementation;
}

export function runServersOf(federation: Federation): RunServers {
  const { a, b, hostile } = federation.servers;
  return {
    a: a.implementation,
    b: b.implementation,
    ...(hostile === undefined ? {} : { hostile: hostile.implementation }),
  };
}

/**
 * What the cases may know of server A: of a server the harness runs, what its implementation
 * implies; of an external one, only what its connection file declares (nothing is assumed).
 */
export function remoteServerFacts(federation: Federation): RemoteServerFacts {
  const { implementation, leavesBlockingToSender } = federation.servers.a;
  return { implementation, leavesBlockingToSender, external: federation.provider === 'external' };
}

/** "server A ejabberd, server B prosody, hostile prosody". */
export function serversText(servers: RunServers): string {
  const hostile = servers.hostile === undefined ? '' : `, hostile ${servers.hostile}`;
  return `server A ${servers.a}, server B ${servers.b}${hostile}`;
}
