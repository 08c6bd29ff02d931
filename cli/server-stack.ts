/**
 * Which XMPP server serves which domain of a run: `--server-a` (example.com, the federated
 * callers' and humans' server) and `--server-b` (server.example and the gateway's component
 * domain). Per server role rather than one `--server` for all, because a role is what the
 * harness varies (FederationOptions.serverA) and what a pair of gateways will vary too: in
 * `agentconf interop` each gateway has a home server, and a mixed stack (ejabberd↔Prosody) is
 * the point. Every combination a provider cannot run is refused here, before anything starts,
 * with what to use instead.
 */
import type { ProviderChoice } from '../harness/federation/auto-provider.ts';
import {
  SERVER_IMPLEMENTATIONS,
  type ServerImplementation,
  type ServerStack,
} from '../harness/federation/server-provider.ts';
import { UsageError } from './io.ts';
import type { ChoiceOption } from './options.ts';

/** The options of every command that starts servers (run, federation up). */
export const SERVER_STACK_OPTIONS = {
  'server-a': {
    type: 'choice',
    valueName: 'S',
    choices: SERVER_IMPLEMENTATIONS,
    description: "server A's implementation: example.com, the remote callers' domain (docs/federation.md)",
    defaultText: 'prosody',
  },
  'server-b': {
    type: 'choice',
    valueName: 'S',
    choices: SERVER_IMPLEMENTATIONS,
    description:
      "server B's implementation: server.example, home of the gateway's component (prosody only: ejabberd is refused with the reason)",
    defaultText: 'prosody',
  },
} as const satisfies Record<string, ChoiceOption>;

export interface ServerStackOptions {
  readonly provider: ProviderChoice;
  readonly 'server-a'?: ServerImplementation | undefined;
  readonly 'server-b'?: ServerImplementation | undefined;
}

/** The stack the options ask for; a UsageError naming the option for one no provider here runs. */
export function requestedServerStack(values: ServerStackOptions): ServerStack {
  const a = values['server-a'];
  const b = values['server-b'];
  if (values.provider === 'external' && (a !== undefined || b !== undefined)) {
    throw new UsageError(
      `--server-${a === undefined ? 'b' : 'a'} does not apply to --provider external: its servers are whatever runs there, and the connection file's servers.a/.b.implementation says what that is`,
    );
  }
  if (b === 'ejabberd') {
    throw new UsageError(
      "--server-b ejabberd is not supported: server B carries the gateway's component link and the harness's Prosody block-state module, which the ejabberd setup does not have; ejabberd can be server A (--server-a ejabberd), the federated callers' server",
    );
  }
  if (a === 'ejabberd' && values.provider === 'container') {
    throw new UsageError(
      '--server-a ejabberd needs the native provider: the container provider runs Prosody images only; use --provider native (or auto, which then runs natively)',
    );
  }
  return { ...(a === undefined ? {} : { a }), ...(b === undefined ? {} : { b }) };
}
