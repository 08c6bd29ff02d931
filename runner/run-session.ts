/**
 * Everything a conformance run stands on, started in order and stopped in reverse: the
 * federation (with the hostile third server, for deny-by-default), the gateway under test with
 * its fixtures, the callers for each role of the fixture world, and the facts the gateway
 * advertises about itself.
 */
import { xml } from '@xmpp/xml';
import type { JsonValue } from '../protocol/json/json-value.ts';
import { NS } from '../protocol/namespaces.ts';
import { parseDiscoInfo, StanzaParseError } from '../protocol/stanza/index.ts';
import type { OutOfBandLedger, SutControl, SutFacts } from '../suites/framework/context.ts';
import { referenceWorldOf, type ReferenceWorld } from '../suites/fixtures/reference-world.ts';
import { REFERENCE_WORLD_ACCOUNTS, referenceWorldJids } from '../suites/fixtures/world-accounts.ts';
import {
  IqTimeout,
  MalformedReply,
  StanzaErrorReply,
  type Caller,
  type Driver,
} from '../harness/driver/index.ts';
import type { Federation, ServerProvider, ServerStack } from '../harness/federation/server-provider.ts';
import { ProcessExitedError } from '../harness/faults/managed-process.ts';
import { componentFor, launchSut, type SutInstance } from '../harness/sut/launch.ts';
import { withImpliedProfiles } from '../protocol/profiles.ts';
import { ensureToolsFor } from '../harness/system-tools-ensure.ts';
import type { SystemToolId } from '../harness/system-tools.ts';
import type { ConformanceCase } from '../suites/framework/case.ts';
import {
  discoInfoProbe,
  SutNotReadyError,
  waitForSutReady,
  type SutProbe,
} from '../harness/sut/readiness.ts';
import {
  refuseForeignComponent,
  refuseStaleGateway,
  showsConflict,
  startupConflict,
  type ComponentLink,
} from '../harness/sut/stale-gateway.ts';
import { startFailureMessage } from '../harness/sut/start-failure.ts';
import { launchLocale } from '../harness/sut/sut-locale.ts';
import { conformanceLedgerFile, outOfBandLedger } from '../harness/sut/conformance-ledger.ts';
import type { ServedConformanceTools } from '../harness/sut/served-conformance-tools.ts';
import { outputTail } from '../harness/sut/process-output.ts';
import type { SutConfig } from '../harness/sut/sut-config.ts';
import { gatewayPacer, TokenBucket, type Pace } from './request-pacing.ts';
import { operatorChecklist, provisionWorld, unconfirmedItems, type ChecklistItem } from './admin-fixtures.ts';
import { RunCallers, type CallerRoles } from './caller-pool.ts';
import { caseDriver } from './case-driver.ts';
import { externalSutControl } from './external-sut-control.ts';
import { componentLinkRequest } from './federation-request.ts';
import { EarlyLaunch, launchesWhileBooting } from './early-launch.ts';
import { checkProvisioned, checkWorldLoaded, FixturesNotInPlace } from './fixture-check.ts';
import { keepLogs, keepLogsOfFailedStart } from './session-logs.ts';
import { StartedParts } from './started-parts.ts';
import { launchedSutControl } from './sut-control.ts';
import { runServersOf, serversText } from './server-stack.ts';

export interface RunSession {
  readonly federation: Federation;
  readonly sut: SutInstance;
  readonly driver: Driver;
  readonly callers: RunCallers;
  readonly facts: SutFacts;
  /**
   * The fixture world the SUT loaded ("fixtures": "world-file"), or the one the run provisioned
   * over Administrative Provisioning ("admin-iq"): what the gateway actually has.
   */
  readonly world?: ReferenceWorld;
  /**
   * With "admin-iq": what the protocol cannot express, for the operator to do by hand, and
   * which items the SUT file confirms (`fixturesConfirmed`).
   */
  readonly fixtureChecklist?: FixtureChecklist;
  /** Milliseconds spent starting the federation and the gateway. */
  readonly setupMs: number;
  /** SIGKILL and restart of the gateway; absent when the harness did not launch it. */
  readonly sutControl?: SutControl;
  /** The conformance tools' ledger read outside the gateway, when the SUT file's tools keep one. */
  readonly ledger?: OutOfBandLedger;
  /** Why the launched gateway is gone, when it exited on its own during the run. */
  gatewayExit(): string | undefined;
  /**
   * Writes the launched gateway's own output (gateway.log) and each server's log
   * (server-a.log, …) into `dir`, terminal escapes stripped; returns the files written.
   */
  keepLogs(dir: string): Promise<string[]>;
  stop(): Promise<void>;
}

export interface FixtureChecklist {
  readonly items: readonly ChecklistItem[];
  readonly unconfirmed: readonly ChecklistItem[];
}

/** The gateway could not be brought up or reached; the message is for the person running the suite. */
export class SessionStartFailure extends Error {
  override readonly name = 'SessionStartFailure';
  /**
   * The logs kept in `logsDirOnFailure` before the teardown removed them (gateway.log,
   * server-a.log, …); empty when none was asked for, none existed yet, or they could not be written.
   */
  readonly logs: readonly string[];

  constructor(
    message: string,
    options: { readonly cause?: unknown; readonly logs?: readonly string[] } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.logs = options.logs ?? [];
  }
}

export interface StartSessionOptions {
  readonly provider: ServerProvider;
  /** The server implementations asked for (default: each provider's own, Prosody). */
  readonly servers?: ServerStack;
  readonly config: SutConfig;
  /** The fixture world (self-contained: manifests inlined) for a 'world-file' SUT. */
  readonly world?: JsonValue;
  readonly log: (line: string) => void;
  /**
   * Called once the servers are up and the gateway launched — for a gateway the harness does not
   * start, before the run waits for it to connect (the place to hand it the connection details).
   */
  readonly onServersUp?: (federation: Federation, sut: SutInstance) => Promise<void>;
  /** Paces every stanza the run sends to the gateway (request-pacing.ts). */
  readonly pace?: Pace;
  /** The cases the run will start: the system tools they declare are installed (when allowed) before the gateway launches. */
  readonly cases: readonly ConformanceCase[];
  /**
   * When the start fails once the federation is up: the directory that gets the gateway's output
   * and the servers' logs (as keepLogs writes them) before the teardown removes them; the files
   * written are the SessionStartFailure's `logs`.
   */
  readonly logsDirOnFailure?: string;
}

/**
 * The features the gateway advertises, for capability gating, asked by `caller` (the run's local
 * caller, kept for the cases). A gateway whose disco#info is an error, malformed or unanswered
 * advertises nothing: the #gateway-info cases then say what is wrong.
 */
export async function advertisedFeatures(
  caller: Caller,
  gatewayJid: string,
  log: (line: string) => void,
): Promise<Set<string>> {
  try {
    const payload = await caller.iq(gatewayJid, 'get', xml('query', { xmlns: NS.discoInfo }));
    if (payload === undefined) return new Set();
    return new Set(parseDiscoInfo(payload).features);
  } catch (error) {
    // Whatever the gateway answered (or left unanswered) is the #gateway-info cases' to judge;
    // only a failure of the harness itself stops the run here.
    const gatewaysAnswer =
      error instanceof StanzaErrorReply ||
      error instanceof StanzaParseError ||
      error instanceof MalformedReply ||
      error instanceof IqTimeout;
    if (!gatewaysAnswer) throw error;
    log(
      `gateway disco#info unusable (${error.message.split('\n')[0] ?? ''}): treating it as advertising no feature`,
    );
    return new Set();
  }
}

/**
 * The federation a run needs (the hostile server, every role's account), its component link as
 * the SUT file fixes it. A federation that cannot start is a SessionStartFailure.
 */
async function startFederation(
  provider: ServerProvider,
  config: SutConfig,
  stack: ServerStack,
  whileBooting?: (federation: Federation) => void,
): Promise<Federation> {
  const component = componentLinkRequest(config);
  try {
    return await provider.start({
      ...(stack.a === undefined ? {} : { serverA: stack.a }),
      hostile: true,
      accounts: Object.values(REFERENCE_WORLD_ACCOUNTS),
      component,
      ...(whileBooting === undefined ? {} : { whileBooting }),
    });
  } catch (error) {
    const known = startFailureMessage(error, component.secret === undefined ? [] : [component.secret]);
    const reason = known ?? (error instanceof Error ? error.message : String(error));
    throw new SessionStartFailure(`the ${provider.name} federation could not be started: ${reason}`, {
      cause: error,
    });
  }
}

/**
 * The system tools the run's cases declare (harness/system-tools.ts), ensured for a gateway the
 * harness launches; none for one someone else starts (the tools act inside the launched process).
 */
function ensureCaseTools(options: StartSessionOptions): Promise<ReadonlySet<SystemToolId>> {
  if (options.config.launch === 'external') return Promise.resolve(new Set());
  return ensureToolsFor(options.cases, options.log);
}

/** The operator checklist as the run prints it at start. */
export function checklistLines(
  items: readonly ChecklistItem[],
  unconfirmed: readonly ChecklistItem[],
): string[] {
  if (items.length === 0) return ['fixtures: nothing for the operator to do by hand'];
  const open = new Set(unconfirmed.map((item) => item.id));
  return [
    `fixtures: operator checklist (what Administrative Provisioning cannot express; confirm an item by listing its ID in the SUT file's "fixturesConfirmed"; the cases that need an unconfirmed one cannot tell):`,
    ...items.map((item) => `  [${open.has(item.id) ? ' ' : 'x'}] ${item.id}: ${item.text}`),
  ];
}

/** Where the suites read "the tool ran at most once": the harness's own tools, or the ledger file. */
function ledgerOf(
  tools: ServedConformanceTools | undefined,
  reader: ReturnType<typeof outOfBandLedger>,
  facts: SutInstance['facts'],
): OutOfBandLedger | undefined {
  if (tools !== undefined) return { source: tools.source, read: (key) => Promise.resolve(tools.read(key)) };
  if (reader === undefined) return undefined;
  return {
    source: `the conformance tools' ledger file ${conformanceLedgerFile(facts)}, read by the harness (out of band)`,
    read: (key) => Promise.resolve(reader(key)),
  };
}

function componentLinkOf(federation: Federation): ComponentLink {
  const { domain, host, port } = federation.component;
  return { domain, host, port };
}

/**
 * Serves the conformance tools when the SUT file asks the harness to, then launches the gateway
 * (or waits for one the user starts, or takes the one `launched` while the servers booted) until
 * it answers on the component domain — and is the gateway this run launched, not a leftover.
 */
async function bringUpGateway(
  options: StartSessionOptions,
  parts: StartedParts,
  launched?: SutInstance,
): Promise<SutInstance> {
  const { config, log } = options;
  const { federation } = parts;
  if (launched !== undefined) {
    await options.onServersUp?.(federation, launched);
    // Launched while the servers booted (early-launch.ts): no stale-gateway probe before it, its
    // link is this run's own.
    return withDomainProbe(federation, (probe, link) => awaitOwnGateway(launched, link, probe));
  }
  if (config.conformanceTools === 'mcp-http') {
    // Imported here: the MCP SDK and what it brings (zod, ajv, …, some 270 modules) load only
    // for a SUT file that asks the harness to serve the tools, not at every run's start.
    const { serveConformanceTools } = await import('../harness/sut/served-conformance-tools.ts');
    parts.servedTools = await serveConformanceTools();
    log(
      `conformance tools: served by the harness at ${parts.servedTools.url} (MCP Streamable HTTP; ledger read here)`,
    );
  }
  // A SUT file that does not fit the federation is refused before anything probes the domain
  // (launchSut checks the same again when it starts the gateway).
  componentFor(config, federation);
  return withDomainProbe(federation, async (probe, link) => {
    // Only a gateway the harness launches must find the domain unanswered: one the user starts
    // may rightly be connected already (docs/sut.md: fix the port and secret, configure it
    // before the run), and then it is the gateway under test.
    if (config.launch !== 'external') await refuseStaleGateway(link, () => probe.probe());
    // Printed once, before the gateway starts: what the protocol cannot provision must be set
    // up by then; cases that need an unconfirmed item point back here by its ID.
    if (config.fixtures === 'admin-iq' && options.world !== undefined) {
      const items = operatorChecklist(options.world);
      for (const line of checklistLines(items, unconfirmedItems(items, config.fixturesConfirmed))) log(line);
    }
    const sut = await launchSut({
      config,
      federation,
      ...(options.world === undefined ? {} : { world: options.world }),
      ...(parts.servedTools === undefined ? {} : { conformanceToolsUrl: parts.servedTools.url }),
    });
    parts.sut = sut;
    await options.onServersUp?.(federation, sut);
    return awaitOwnGateway(sut, link, probe);
  });
}

/** Runs `body` with a disco#info probe of the gateway's component domain, closed after. */
async function withDomainProbe<T>(
  federation: Federation,
  body: (probe: SutProbe, link: ComponentLink) => Promise<T>,
): Promise<T> {
  const link = componentLinkOf(federation);
  const probe = await discoInfoProbe(federation, link.domain);
  try {
    return await body(probe, link);
  } finally {
    await probe.close().catch(() => undefined);
  }
}

/** Waits until `sut` answers on its domain, then makes sure the answer came from it. */
async function awaitOwnGateway(sut: SutInstance, link: ComponentLink, probe: SutProbe): Promise<SutInstance> {
  await waitForSutReady(sut, () => probe.probe());
  // What answered may be a leftover holding the domain (one that connected after the stale-gateway
  // probe, or any, for an early launch): the launched gateway, refused with conflict, may not have
  // exited yet.
  if (sut.process?.pid !== undefined) await refuseForeignComponent(link, sut.process.pid);
  return sut;
}

/** The run's callers of `sut` and their roles: the reference world's accounts, the SUT file's admin. */
function runCallersOf(driver: Driver, sut: SutInstance): { callers: RunCallers; roles: CallerRoles } {
  const roles = { ...referenceWorldJids(), admin: sut.adminAccount?.jid };
  return { callers: new RunCallers(driver, roles), roles };
}

interface SessionWorld {
  readonly world?: ReferenceWorld;
  readonly fixtureChecklist?: FixtureChecklist;
}

/**
 * Built from the very value the SUT was given, so cases expect what it actually loaded; with
 * admin-iq from what provisioning actually registered and activated (undone by the teardown).
 */
async function sessionWorldOf(
  options: StartSessionOptions,
  parts: StartedParts,
  callers: RunCallers,
  roles: CallerRoles,
  gatewayJid: string,
): Promise<SessionWorld> {
  const { config, world: given, log } = options;
  if (given === undefined) return {};
  if (config.fixtures === 'world-file') {
    const world = referenceWorldOf(given, roles);
    await checkWorldLoaded(await callers.callerOf('local'), world);
    return { world };
  }
  if (config.fixtures !== 'admin-iq') return {};
  const provisioned = await provisionWorld(await callers.callerOf('admin'), gatewayJid, given);
  parts.provisioned = provisioned;
  log(
    `fixtures: admin-iq as ${roles.admin ?? '(no admin)'}: ${String(provisioned.registered)} version(s) registered, ${String(provisioned.activated)} activated`,
  );
  checkProvisioned(provisioned, roles.admin);
  const items = operatorChecklist(provisioned.world);
  const unconfirmed = unconfirmedItems(items, config.fixturesConfirmed);
  const world = referenceWorldOf(
    provisioned.world,
    roles,
    'the fixture world provisioned over admin-iq',
    new Set(unconfirmed.map((item) => item.id)),
  );
  return { world, fixtureChecklist: { items, unconfirmed } };
}

export function sutFactsOf(
  config: SutConfig,
  gatewayJid: string,
  features: ReadonlySet<string>,
  missingTools: ReadonlySet<SystemToolId>,
): SutFacts {
  const locale = launchLocale(config.launch, process.env, config.external);
  return {
    name: config.name,
    gatewayJid,
    profiles: new Set(withImpliedProfiles(config.profiles)),
    features,
    replyTimeoutMs: config.timeouts.replySeconds * 1_000,
    taskTimeoutMs: config.timeouts.taskSeconds * 1_000,
    limits: config.limits,
    ...(config.adminJid === undefined ? {} : { adminJid: config.adminJid }),
    ...(locale === undefined ? {} : { locale }),
    ...(missingTools.size === 0 ? {} : { missingTools }),
  };
}

/**
 * A launched gateway that exits on its own mid-run: every later case would fail for that one
 * reason, so the run names it once and stops judging (exit 3). Returns what gatewayExit reads.
 */
function watchForUnexpectedExit(sut: SutInstance, parts: StartedParts): () => string | undefined {
  let unexpectedExit: string | undefined;
  const managed = sut.process;
  managed?.on('exit', (status) => {
    if (parts.expectingExit || unexpectedExit !== undefined) return;
    const how =
      status.signal === null ? `with exit code ${String(status.code)}` : `on signal ${status.signal}`;
    // A restart by a case leaves the domain free for a moment: a leftover gateway can take it.
    const cause = showsConflict(managed.runOutput)
      ? ' (its output shows a conflict stream error: while it was disconnected, another component took the domain, most likely a gateway left over from an earlier run with the same fixed port and secret)'
      : '';
    unexpectedExit = `the gateway exited ${how} during the run${cause}; its last output:\n${outputTail(managed.runOutput)}`;
  });
  return () => unexpectedExit;
}

/** Kill and restart for the cases: by signal when the harness launched it, else by the SUT file's commands. */
function sutControlOf(
  config: SutConfig,
  sut: SutInstance,
  parts: StartedParts,
  callers: RunCallers,
): SutControl | undefined {
  const { federation } = parts;
  const gatewayJid = sut.facts.componentDomain;
  if (sut.process === undefined) {
    return externalSutControl({
      control: config.external,
      federation,
      sut,
      gatewayJid,
      pinger: () => callers.callerOf('local'),
    });
  }
  return launchedSutControl({
    federation,
    sut,
    process: sut.process,
    gatewayJid,
    expectExit: (expecting) => {
      parts.expectingExit = expecting;
    },
  });
}

/**
 * A start that failed once the federation was up, as the SessionStartFailure the CLI reports:
 * its logs kept first, then everything started stopped. An error no message explains is rethrown.
 */
async function failedStart(
  error: unknown,
  options: StartSessionOptions,
  parts: StartedParts,
): Promise<unknown> {
  const { federation, sut } = parts;
  // Read while the other component is still connected: the teardown ends its connection.
  const conflict =
    sut?.process !== undefined && (error instanceof ProcessExitedError || error instanceof SutNotReadyError)
      ? await startupConflict(componentLinkOf(federation), sut.process.runOutput)
      : undefined;
  const failure: unknown = conflict ?? error;
  const logs = await keepLogsOfFailedStart(options.logsDirOnFailure, federation, sut, options.log);
  await parts.stop();
  const message =
    failure instanceof FixturesNotInPlace
      ? failure.message
      : startFailureMessage(failure, [federation.component.secret]);
  return message === undefined ? failure : new SessionStartFailure(message, { cause: failure, logs });
}

export async function startSession(options: StartSessionOptions): Promise<RunSession> {
  const { config, log } = options;
  const started = performance.now();
  // Alongside the federation's start; it never rejects (a missing tool only makes cases undecided).
  const toolsEnsured = ensureCaseTools(options);
  const early = launchesWhileBooting(config)
    ? new EarlyLaunch(async (booting) => {
        // The cases' tools are in place before the gateway starts (fiu-utils wraps it).
        await toolsEnsured;
        return launchSut({
          config,
          federation: booting,
          ...(options.world === undefined ? {} : { world: options.world }),
        });
      })
    : undefined;
  let federation: Federation;
  try {
    federation = await startFederation(options.provider, config, options.servers ?? {}, early?.start);
  } catch (error) {
    await early?.abandon();
    throw error;
  }
  const missingTools = await toolsEnsured;
  log(
    `federation: ${federation.provider} (${serversText(runServersOf(federation))}), servers ready in ${String(Math.round(federation.timings.bootMs))} ms`,
  );
  const driver = caseDriver(
    federation,
    config,
    options.pace === undefined
      ? {}
      : { beforeSend: gatewayPacer(new TokenBucket(options.pace), config.component.domain) },
  );
  const parts = new StartedParts(federation, driver, log);
  try {
    const launched = await early?.launched;
    // Taken first, so that a failure below still stops it.
    if (launched !== undefined) parts.sut = launched;
    const earlyCallers = launched === undefined ? undefined : runCallersOf(driver, launched);
    // The world check's caller logs in while the gateway starts; a failed login fails that check.
    earlyCallers?.callers.callerOf('local').catch(() => undefined);
    const sut = await bringUpGateway(options, parts, launched);
    const gatewayJid = sut.facts.componentDomain;
    const { callers, roles } = earlyCallers ?? runCallersOf(driver, sut);
    // Side by side: neither answer depends on the other, and a failed world check still stops
    // the start (the features asked meanwhile are dropped).
    const [{ world, fixtureChecklist }, features] = await Promise.all([
      sessionWorldOf(options, parts, callers, roles, gatewayJid),
      callers.callerOf('local').then((local) => advertisedFeatures(local, gatewayJid, log)),
    ]);
    const gatewayExit = watchForUnexpectedExit(sut, parts);
    const sutControl = sutControlOf(config, sut, parts, callers);
    const ledger = ledgerOf(parts.servedTools, outOfBandLedger(config, sut.facts), sut.facts);
    const setupMs = performance.now() - started;
    log(`gateway under test: ${config.name} at ${gatewayJid}, ready after ${String(Math.round(setupMs))} ms`);
    return {
      federation,
      sut,
      driver,
      callers,
      facts: sutFactsOf(config, gatewayJid, features, missingTools),
      ...(world === undefined ? {} : { world }),
      ...(fixtureChecklist === undefined ? {} : { fixtureChecklist }),
      ...(sutControl === undefined ? {} : { sutControl }),
      ...(ledger === undefined ? {} : { ledger }),
      setupMs,
      gatewayExit,
      keepLogs: (dir) => keepLogs(dir, federation, sut),
      stop: () => parts.stop(),
    };
  } catch (error) {
    throw await failedStart(error, options, parts);
  }
}
