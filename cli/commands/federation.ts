/**
 * agentconf federation up: starts the two-domain federation (and the gateway under test, when a
 * SUT config with a launch command is given), prints everything a person needs to log in with any
 * XMPP client or to connect a gateway by hand, then runs until SIGINT/SIGTERM and tears down.
 */
import { resolve } from 'node:path';

import type { JsonValue } from '../../protocol/json/json-value.ts';
import { ProcessExitedError } from '../../harness/faults/managed-process.ts';
import {
  PROVIDER_CHOICES,
  selectProvider,
  type ProviderChoice,
  type ProviderSelection,
  type SelectProviderOptions,
} from '../../harness/federation/auto-provider.ts';
import type { ExternalFederationConfig } from '../../harness/federation/external-provider.ts';
import {
  FederationStartError,
  type Account,
  type AccountRequest,
  type Federation,
  type FederationServer,
  type ServerStack,
} from '../../harness/federation/server-provider.ts';
import { connectionFileOf, writeConnectionFile } from '../../harness/federation/connection-file.ts';
import { FEDERATION_DOMAINS } from '../../harness/federation/domains.ts';
import { componentLinkRequest } from '../../runner/federation-request.ts';
import { componentLink, gatewayAnswersAgain } from '../../runner/sut-control.ts';
import { REFERENCE_WORLD_ACCOUNTS } from '../../suites/fixtures/world-accounts.ts';
import { launchSut, SutMismatchError, type SutInstance } from '../../harness/sut/launch.ts';
import { SutNotReadyError } from '../../harness/sut/readiness.ts';
import { SutConfigError, type SutConfig } from '../../harness/sut/sut-config.ts';
import { checkWritableFile, EXIT, UsageError, type CliIo, type ExitCode } from '../io.ts';
import type { Command } from '../main.ts';
import { textTable } from '../../suites/framework/text-table.ts';
import { parseCommandArgs, type CommandSpec } from '../options.ts';
import { requestedServerStack, SERVER_STACK_OPTIONS } from '../server-stack.ts';
import {
  DEFAULT_WORLD,
  checkExternalProvider,
  readExternalFederationFile,
  readSutConfigFile,
  readWorldFile,
} from '../run-inputs.ts';

/** A request to stop (SIGINT, SIGTERM) while the federation runs. */
export interface StopRequest {
  /** Resolves with the name of the signal that asked to stop. */
  readonly requested: Promise<string>;
  /** Stops listening (and lets the process end). */
  dispose(): void;
}

export interface FederationUpDeps {
  readonly selectProvider: (
    choice: ProviderChoice,
    options: SelectProviderOptions,
  ) => Promise<ProviderSelection>;
  readonly listenForStop: () => StopRequest;
  readonly launchSut: typeof launchSut;
  /** Resolves once the launched gateway answers (rejects with the reason it never did). */
  readonly waitUntilAnswering: (sut: SutInstance, federation: Federation) => Promise<void>;
}

/** The admin account created when no --sut names one: the adminJid of the SUT examples. */
const DEFAULT_ADMIN = { username: 'admin', domain: FEDERATION_DOMAINS.local };

const SPEC = {
  name: 'federation',
  summary: 'run the federation (and a gateway under test) until Ctrl-C, to log in or connect by hand',
  usage: ['federation up'],
  options: {
    provider: {
      type: 'choice',
      valueName: 'P',
      choices: PROVIDER_CHOICES,
      default: 'auto',
      description: 'how the servers run (docs/federation.md)',
    },
    ...SERVER_STACK_OPTIONS,
    sut: {
      type: 'string',
      valueName: 'FILE',
      description: 'also start this gateway under test (docs/sut.md), as agentconf run would',
      defaultText: 'no gateway',
    },
    world: {
      type: 'string',
      valueName: 'FILE',
      description: "with --sut: the fixture world of a world-file gateway, as agentconf run's",
      defaultText: 'fixtures/worlds/reference.json',
    },
    external: {
      type: 'string',
      valueName: 'FILE',
      description: 'with --provider external: the servers you run, as a connection file',
    },
    accounts: {
      type: 'integer',
      valueName: 'N',
      min: 0,
      max: 1_000,
      default: 0,
      description: 'also create user1 … userN on each domain, for people and their clients',
    },
    'connection-file': {
      type: 'string',
      valueName: 'PATH',
      description: 'write the servers, accounts and component link there as JSON once up',
    },
    json: {
      type: 'boolean',
      description: 'print the connection details as one JSON line on stdout; the rest goes to stderr',
    },
    pair: {
      type: 'boolean',
      description:
        'also a second gateway component, agents.example.com on server A, for an interop pair (docs/interop.md)',
    },
    // Accepted for older scripts: the hostile third server always runs now (a run needs it).
    hostile: { type: 'boolean', description: 'accepted for older scripts: the hostile server always runs' },
  },
  example: 'federation up --sut fixtures/sut/reference-gateway.json --accounts 2',
  notes: 'Ctrl-C or SIGTERM stops the gateway and the servers (exit 0). Exit 1 when they cannot start.',
} as const satisfies CommandSpec;

/** SIGINT and SIGTERM ask to stop; a second one while stopping ends the process at once. */
function listenForProcessSignals(): StopRequest {
  let resolveRequest: (signal: string) => void = () => undefined;
  const requested = new Promise<string>((resolve) => {
    resolveRequest = resolve;
  });
  let count = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    count += 1;
    if (count === 1) resolveRequest(signal);
    else process.exit(130);
  };
  // Signal listeners do not keep the event loop alive, and the federation need not either.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    requested,
    dispose() {
      clearInterval(keepAlive);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** Until the launched gateway answers a disco#info on its domain, as a restarted one is waited for. */
function waitUntilAnswering(sut: SutInstance, federation: Federation): Promise<void> {
  return gatewayAnswersAgain(federation, sut, sut.facts.componentDomain);
}

const defaultDeps: FederationUpDeps = {
  selectProvider,
  listenForStop: listenForProcessSignals,
  launchSut,
  waitUntilAnswering,
};

function endpoint(host: string, port: number): string {
  return `${host}:${port}`;
}

function namedServers(federation: Federation): [string, FederationServer][] {
  const { a, b, hostile } = federation.servers;
  const servers: [string, FederationServer][] = [
    ['A', a],
    ['B', b],
  ];
  if (hostile !== undefined) servers.push(['hostile', hostile]);
  return servers;
}

function serverRows(federation: Federation): string[][] {
  return namedServers(federation).map(([role, server]) => [
    role,
    server.domains.join(', '),
    server.implementation,
    server.address,
    `c2s ${server.c2s.port} (STARTTLS), ${server.c2sDirectTls.port} (direct TLS); s2s ${server.s2s.port}`,
    server.pid === undefined ? '' : `pid ${server.pid}`,
  ]);
}

/** Server A's accounts first, then B's, then the hostile server's; by JID within a server. */
function sortedAccounts(federation: Federation): Account[] {
  const order: readonly string[] = ['a', 'b', 'hostile'];
  return [...federation.accounts].sort(
    (x, y) =>
      order.indexOf(x.server) - order.indexOf(y.server) || (x.jid < y.jid ? -1 : x.jid > y.jid ? 1 : 0),
  );
}

/** What a person needs to use the federation, printed once it is up. */
export function federationSummary(federation: Federation, sut?: SutInstance): string {
  const { component } = federation;
  const lines = [
    `federation up: provider ${federation.provider}, servers ready in ${Math.round(federation.timings.bootMs)} ms`,
    '',
    'servers',
    ...textTable(serverRows(federation)),
    '',
    'accounts (the domains are not in DNS: set the server address as the connect host in your client)',
    ...textTable(
      sortedAccounts(federation).map((account) => [
        account.jid,
        `password ${account.password}`,
        `connect ${endpoint(account.c2s.host, account.c2s.port)} (STARTTLS) or ` +
          `${endpoint(account.c2sDirectTls.host, account.c2sDirectTls.port)} (direct TLS)`,
        account.jid === sut?.adminAccount?.jid ? '(the gateway admin)' : '',
      ]),
    ),
    '',
    'component (XEP-0114)',
    ...textTable([
      ['domain', component.domain],
      [
        'connect',
        `${endpoint(component.host, component.port)} (the component link's fault proxy; ` +
          `server B itself: ${endpoint(component.direct.host, component.direct.port)})`,
      ],
      ['secret', component.secret],
    ]),
    ...pairComponentSummary(federation),
    '',
    ...textTable(
      [
        ['CA certificate', `${federation.caCertPath} (every server certificate chains to it)`],
        ...(federation.runDir === ''
          ? []
          : [['run directory', `${federation.runDir} (configs and logs; removed at the end)`]]),
        ...namedServers(federation)
          .filter(([, server]) => server.logPath !== '')
          .map(([role, server]) => [`log of ${role}`, server.logPath]),
      ],
      '',
    ),
  ];
  if (sut !== undefined) lines.push('', ...sutSummary(sut));
  return `${lines.join('\n')}\n`;
}

/** The pair topology's second gateway component, on server A (--pair). */
function pairComponentSummary(federation: Federation): string[] {
  const pair = federation.pairComponent;
  if (pair === undefined) return [];
  return [
    '',
    'second gateway component (XEP-0114, --pair)',
    ...textTable([
      ['domain', pair.domain],
      [
        'connect',
        `${endpoint(pair.host, pair.port)} (its link's fault proxy; ` +
          `server A itself: ${endpoint(pair.direct.host, pair.direct.port)})`,
      ],
      ['secret', pair.secret],
    ]),
  ];
}

function sutSummary(sut: SutInstance): string[] {
  const { config } = sut;
  const title = `${config.name}${config.version === undefined ? '' : ` ${config.version}`}`;
  const rows: string[][] = [
    ['profiles', config.profiles.join(', ')],
    ['fixtures', config.fixtures],
  ];
  if (sut.process === undefined) {
    return [
      `gateway under test: ${title}, not started by the harness: connect it as the component above`,
      ...textTable(rows),
    ];
  }
  rows.push(['data directory', sut.facts.dataDir]);
  if (config.fixtures === 'world-file') rows.push(['world file', sut.facts.worldFile]);
  return [
    `gateway under test: ${title}, pid ${String(sut.process.pid)}, answering on ${sut.facts.componentDomain}`,
    ...textTable(rows),
  ];
}

/** Forwards the gateway's output to stderr, line by line, prefixed with "[gateway] ". */
function forwardOutput(sut: SutInstance, io: CliIo, stopping: () => boolean): void {
  const managed = sut.process;
  if (managed === undefined) return;
  const partial = { stdout: '', stderr: '' };
  managed.on('output', (chunk, stream) => {
    const lines = (partial[stream] + chunk).split('\n');
    partial[stream] = lines.pop() ?? '';
    for (const line of lines) io.err(`[gateway] ${line}\n`);
  });
  managed.on('exit', (status) => {
    if (stopping()) return;
    io.err(`[gateway] exited (code ${String(status.code)}, signal ${String(status.signal)})\n`);
  });
}

/** For a gateway the harness does not start: say when it connects and disconnects (when the link has a proxy). */
function reportComponentConnections(federation: Federation, say: (text: string) => void): void {
  const link = componentLink(federation);
  if (link === undefined) return; // An external federation's links are not ours to watch.
  link.on('connection', () => {
    say(`component link: a connection arrived (${link.openConnections} open)\n`);
  });
  link.on('closed', () => {
    say(`component link: a connection closed (${link.openConnections} open)\n`);
  });
}

interface UpOptions {
  readonly provider: ProviderChoice;
  readonly servers: ServerStack;
  readonly external: ExternalFederationConfig | undefined;
  readonly sut: SutConfig | undefined;
  /** The fixture world with its manifests inlined: it is copied into the gateway's run directory. */
  readonly world: JsonValue | undefined;
  /** The --world file as given (absolute), for a gateway the harness does not start. */
  readonly worldPath: string | undefined;
  /** Extra accounts per domain (user1 … userN). */
  readonly extraAccounts: number;
  readonly connectionFile: string | undefined;
  /** The connection details as one JSON line on stdout; everything else on stderr. */
  readonly json: boolean;
  /** A second gateway component on server A (the pair topology of interop runs). */
  readonly pair: boolean;
}

/**
 * Every account a run needs (the reference world's, suites/fixtures/world-accounts.ts), the admin (the SUT's adminJid,
 * else admin@server.example), then `extra` numbered accounts on each domain, for people and their
 * own clients.
 */
export function accountsToCreate(sut: SutConfig | undefined, extra: number): AccountRequest[] {
  const accounts: AccountRequest[] = Object.values(REFERENCE_WORLD_ACCOUNTS).map(({ username, domain }) => ({
    username,
    domain,
  }));
  if (sut?.adminJid === undefined) accounts.push(DEFAULT_ADMIN);
  const { remote, local, hostile } = FEDERATION_DOMAINS;
  for (const domain of [remote, local, hostile]) {
    for (let index = 1; index <= extra; index += 1)
      accounts.push({ username: `user${String(index)}`, domain });
  }
  return accounts;
}

function parseUpArgs(args: readonly string[], io: CliIo): UpOptions | ExitCode {
  const { values, positionals } = parseCommandArgs(SPEC, args);
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const provider = values.provider;
  checkExternalProvider(provider, values.external);
  const servers = requestedServerStack(values);
  if (values.pair && (provider === 'container' || provider === 'external')) {
    throw new UsageError(
      `--pair needs the native provider: the ${provider} provider has no second gateway component; use --provider native (or auto, which then runs natively)`,
    );
  }
  if (values.world !== undefined && values.sut === undefined) throw new UsageError('--world needs --sut');
  let sut: SutConfig | undefined;
  if (values.sut !== undefined) {
    const read = readSutConfigFile(io, values.sut);
    if (read === EXIT.usage) return read;
    sut = read;
  }
  // As agentconf run: a gateway that loads a world file gets the reference world unless told.
  const worldPath = values.world ?? (sut?.fixtures === 'world-file' ? DEFAULT_WORLD : undefined);
  let world: JsonValue | undefined;
  if (worldPath !== undefined) {
    const read = readWorldFile(io, worldPath);
    if (read === EXIT.usage) return read;
    world = read.world;
  }
  let external: ExternalFederationConfig | undefined;
  if (values.external !== undefined) {
    const read = readExternalFederationFile(io, values.external);
    if (read === EXIT.usage) return read;
    external = read;
  }
  const connectionFile =
    values['connection-file'] === undefined ? undefined : resolve(values['connection-file']);
  if (connectionFile !== undefined) checkWritableFile(connectionFile, '--connection-file');
  return {
    provider,
    servers,
    external,
    sut,
    world,
    worldPath: worldPath === undefined ? undefined : resolve(worldPath),
    extraAccounts: values.accounts,
    connectionFile,
    json: values.json,
    pair: values.pair,
  };
}

function problem(io: CliIo, message: string): ExitCode {
  io.err(`agentconf federation up: ${message}\n`);
  return EXIT.invalid;
}

/** What one `up` holds; torn down in reverse. */
interface UpState {
  federation?: Federation;
  sut?: SutInstance;
  /** Set by the first SIGINT/SIGTERM. */
  stopSignal?: string;
  /** Set once the teardown has begun (the gateway's exit is then expected). */
  stopping: boolean;
  /** --json: human output goes to stderr. */
  readonly json: boolean;
}

/** Why the start failed, in one line; exit 1. */
function startProblem(io: CliIo, error: unknown): ExitCode {
  if (
    error instanceof SutMismatchError ||
    error instanceof SutConfigError ||
    error instanceof FederationStartError
  )
    return problem(io, error.message);
  if (error instanceof SutNotReadyError || error instanceof ProcessExitedError) {
    // Its output has been forwarded already: the first line says what happened.
    return problem(io, `the gateway under test did not come up: ${error.message.split('\n')[0] ?? ''}`);
  }
  return problem(io, `cannot start: ${error instanceof Error ? error.message : String(error)}`);
}

/** Starts the servers and, with --sut, the gateway, recording each in `state` for the teardown. */
async function startServers(
  options: UpOptions,
  provider: ProviderSelection['provider'],
  state: UpState,
  io: CliIo,
  deps: FederationUpDeps,
): Promise<Federation> {
  const federation = await provider.start({
    ...(options.servers.a === undefined ? {} : { serverA: options.servers.a }),
    hostile: true,
    ...(options.pair ? { pair: true } : {}),
    accounts: accountsToCreate(options.sut, options.extraAccounts),
    component: options.sut === undefined ? {} : componentLinkRequest(options.sut),
  });
  state.federation = federation;
  if (options.sut === undefined) return federation;
  const sut = await deps.launchSut({
    config: options.sut,
    federation,
    ...(options.world === undefined ? {} : { world: options.world }),
  });
  state.sut = sut;
  if (sut.process !== undefined) {
    forwardOutput(sut, io, () => state.stopping);
    await deps.waitUntilAnswering(sut, federation);
  }
  return federation;
}

/** The connection details, as the summary, the --connection-file and the --json line give them. */
async function announce(
  options: UpOptions,
  federation: Federation,
  sut: SutInstance | undefined,
  io: CliIo,
  say: (text: string) => void,
): Promise<void> {
  const details = connectionFileOf(federation, {
    ...(sut === undefined ? {} : { name: sut.config.name }),
    adminJid: sut?.adminAccount?.jid ?? `${DEFAULT_ADMIN.username}@${DEFAULT_ADMIN.domain}`,
    ...(sut?.config.fixtures === 'world-file' && sut.process === undefined && options.worldPath !== undefined
      ? { worldFile: options.worldPath }
      : {}),
  });
  if (options.connectionFile !== undefined) await writeConnectionFile(options.connectionFile, details);
  say(federationSummary(federation, sut));
  if (options.connectionFile !== undefined) {
    say(
      `\nconnection file  ${options.connectionFile} (JSON: fixtures/schemas/federation-connection.schema.json;\n` +
        `                 agentconf run --provider external --external ${options.connectionFile} uses this federation)\n`,
    );
  }
  if (options.json) io.out(`${JSON.stringify(details)}\n`);
}

async function startAndRun(
  options: UpOptions,
  selection: ProviderSelection,
  state: UpState,
  stop: StopRequest,
  io: CliIo,
  deps: FederationUpDeps,
): Promise<ExitCode> {
  const { provider } = selection;
  // With --json, stdout carries the connection details only.
  const say = options.json ? io.err : io.out;
  const sutName = options.sut === undefined ? '' : ` and ${options.sut.name}`;
  say(`${selection.reason}\nstarting the ${provider.name} federation${sutName}…\n`);
  let federation: Federation;
  try {
    federation = await startServers(options, provider, state, io, deps);
  } catch (error) {
    if (state.stopSignal === undefined) return startProblem(io, error);
    say(`stopping (${state.stopSignal}) before the start completed\n`);
    return EXIT.ok;
  }
  await announce(options, federation, state.sut, io, say);
  if (options.sut !== undefined && state.sut?.process === undefined)
    reportComponentConnections(federation, say);
  say('\nready: Ctrl-C (SIGINT) or SIGTERM stops everything\n');
  const signal = await stop.requested;
  say(`stopping (${signal})…\n`);
  return EXIT.ok;
}

/** Stops the gateway, then the federation; false when something could not be stopped. */
async function teardown(state: UpState, io: CliIo): Promise<boolean> {
  state.stopping = true;
  const failures: string[] = [];
  const report =
    (what: string) =>
    (error: unknown): void => {
      failures.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    };
  await state.sut?.stop().catch(report('stopping the gateway'));
  await state.federation?.stop().catch(report('stopping the federation'));
  for (const failure of failures) io.err(`agentconf federation up: ${failure}\n`);
  if (state.federation !== undefined && failures.length === 0) (state.json ? io.err : io.out)('stopped\n');
  return failures.length === 0;
}

async function up(args: readonly string[], io: CliIo, deps: FederationUpDeps): Promise<ExitCode> {
  const options = parseUpArgs(args, io);
  if (typeof options === 'number') return options;

  let selection: ProviderSelection;
  try {
    const { servers } = options;
    selection = await deps.selectProvider(options.provider, {
      ...(Object.keys(servers).length === 0 ? {} : { servers }),
      ...(options.external === undefined ? {} : { external: options.external }),
      ...(options.pair ? { pair: true } : {}),
    });
  } catch (error) {
    return problem(io, `no federation provider: ${error instanceof Error ? error.message : String(error)}`);
  }

  const stop = deps.listenForStop();
  const state: UpState = { stopping: false, json: options.json };
  void stop.requested.then((signal) => (state.stopSignal = signal));
  try {
    const code = await startAndRun(options, selection, state, stop, io, deps);
    return (await teardown(state, io)) ? code : EXIT.invalid;
  } catch (error) {
    await teardown(state, io);
    throw error;
  } finally {
    stop.dispose();
  }
}

export function createFederationCommand(deps: FederationUpDeps = defaultDeps): Command {
  return {
    spec: SPEC,
    async run(args, io) {
      const [subcommand, ...rest] = args;
      if (subcommand !== 'up') {
        const given = subcommand === undefined ? 'no subcommand' : `not ${JSON.stringify(subcommand)}`;
        throw new UsageError(`the subcommand is up (agentconf federation up), ${given}`);
      }
      return up(rest, io, deps);
    },
  };
}

export const federationCommand = createFederationCommand();
