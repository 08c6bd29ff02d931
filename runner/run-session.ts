/**
 * Everything a conformance run stands on, started in order and stopped in reverse: the
 * federation (with the hostile third server, for deny-by-default), the gateway under test with
 * its fixtures, the callers for each role of the fixture world, and the facts the gateway
 * advertises about itself.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { xml } from '@xmpp/xml';
import type { JsonValue } from '../protocol/json/json-value.ts';
import { NS } from '../protocol/namespaces.ts';
import { parseDiscoInfo, StanzaParseError } from '../protocol/stanza/index.ts';
import type { OutOfBandLedger, SutControl, SutFacts } from '../suites/framework/context.ts';
import { referenceWorldOf, type ReferenceWorld } from '../suites/fixtures/reference-world.ts';
import { createDriver, StanzaErrorReply, type Caller, type Driver } from '../harness/driver/index.ts';
import type { Federation, ServerProvider } from '../harness/federation/server-provider.ts';
import { ProcessExitedError } from '../harness/faults/managed-process.ts';
import { componentFor, launchSut, type SutInstance } from '../harness/sut/launch.ts';
import { withImpliedProfiles } from '../protocol/profiles.ts';
import { ensureToolsFor } from '../harness/system-tools-ensure.ts';
import type { SystemToolId } from '../harness/system-tools.ts';
import type { ConformanceCase } from '../suites/framework/case.ts';
import { ALL_SUITES } from '../suites/index.ts';
import { discoInfoProbe, SutNotReadyError, waitForSutReady } from '../harness/sut/readiness.ts';
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
import {
  serveConformanceTools,
  type ServedConformanceTools,
} from '../harness/sut/served-conformance-tools.ts';
import { outputTail, stripTerminalEscapes } from '../harness/sut/process-output.ts';
import { GENERATED_SECRET, type SutConfig } from '../harness/sut/sut-config.ts';
import { gatewayPacer, TokenBucket, type Pace } from './request-pacing.ts';
import {
  operatorChecklist,
  provisionWorld,
  unconfirmedItems,
  type ChecklistItem,
  type ProvisionedWorld,
} from './admin-fixtures.ts';
import { RunCallers, type CallerRoles } from './caller-pool.ts';
import { externalSutControl } from './external-sut-control.ts';
import { launchedSutControl } from './sut-control.ts';

/** The accounts the reference fixture world gives a role (fixtures/worlds/reference.json). */
export const WORLD_ACCOUNTS = {
  local: { username: 'bob', domain: 'server.example' },
  remote: { username: 'alice', domain: 'example.com' },
  remotePeer: { username: 'carol', domain: 'example.com' },
  denied: { username: 'mallory', domain: 'hostile.example' },
  // Not in the world file: a local account that self-registers its own bare JID (#registration-flow).
  registrant: { username: 'registrant', domain: 'server.example' },
  // Another local account with only its domain's grants: task access is by bare JID (#task-recovery).
  localPeer: { username: 'dave', domain: 'server.example' },
  // A local account only the cases that exhaust a per-sender bound use (task capacity, rate limits).
  prober: { username: 'prober', domain: 'server.example' },
} as const;

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
  readonly fixtureChecklist?: {
    readonly items: readonly ChecklistItem[];
    readonly unconfirmed: readonly ChecklistItem[];
  };
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
  /**
   * The cases the run will start: the system tools they declare are installed (when allowed)
   * before the gateway launches. Default: every case of the claimed profiles.
   */
  readonly cases?: readonly ConformanceCase[];
  /**
   * When the start fails once the federation is up: the directory that gets the gateway's output
   * and the servers' logs (as keepLogs writes them) before the teardown removes them; the files
   * written are the SessionStartFailure's `logs`.
   */
  readonly logsDirOnFailure?: string;
}

/**
 * The features the gateway advertises, for capability gating, asked by `caller` (the run's local
 * caller, kept for the cases). A gateway whose disco#info is an error or malformed advertises
 * nothing: the #gateway-info cases then say what is wrong.
 */
async function advertisedFeatures(
  caller: Caller,
  gatewayJid: string,
  log: (line: string) => void,
): Promise<Set<string>> {
  try {
    const payload = await caller.iq(gatewayJid, 'get', xml('query', { xmlns: NS.discoInfo }));
    if (payload === undefined) return new Set();
    return new Set(parseDiscoInfo(payload).features);
  } catch (error) {
    if (!(error instanceof StanzaErrorReply || error instanceof StanzaParseError)) throw error;
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
async function startFederation(provider: ServerProvider, config: SutConfig): Promise<Federation> {
  const { port, secret } = config.component;
  try {
    return await provider.start({
      hostile: true,
      accounts: Object.values(WORLD_ACCOUNTS),
      component: {
        ...(port === undefined ? {} : { port }),
        ...(secret === GENERATED_SECRET ? {} : { secret }),
      },
    });
  } catch (error) {
    const known = startFailureMessage(error, secret === GENERATED_SECRET ? [] : [secret]);
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
  const claimed = new Set(withImpliedProfiles(options.config.profiles));
  const cases =
    options.cases ??
    ALL_SUITES.flatMap((suite) => suite.cases).filter((testCase) =>
      testCase.profiles.some((profile) => claimed.has(profile)),
    );
  return ensureToolsFor(cases, options.log);
}

/** The gateway's output (once launched) and the servers' logs, as text files in `dir`. */
async function keepLogs(
  dir: string,
  federation: Federation,
  sut: SutInstance | undefined,
): Promise<string[]> {
  const files: [string, string][] = [];
  if (sut?.process !== undefined) files.push(['gateway.log', sut.process.output]);
  for (const server of Object.values(federation.servers)) {
    const text = await server.readLog().catch(() => '');
    if (text !== '') files.push([`server-${server.role}.log`, text]);
  }
  if (files.length > 0) await mkdir(dir, { recursive: true });
  const secret = federation.component.secret;
  const written: string[] = [];
  for (const [name, text] of files) {
    const path = join(dir, name);
    const clean = stripTerminalEscapes(text);
    await writeFile(path, secret === '' ? clean : clean.replaceAll(secret, '[component secret]'));
    written.push(path);
  }
  return written;
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

export async function startSession(options: StartSessionOptions): Promise<RunSession> {
  const { config, log } = options;
  const started = performance.now();
  // Alongside the federation's start; it never rejects (a missing tool only makes cases undecided).
  const toolsEnsured = ensureCaseTools(options);
  const federation = await startFederation(options.provider, config);
  const missingTools = await toolsEnsured;
  log(
    `federation: ${federation.provider}, servers ready in ${String(Math.round(federation.timings.bootMs))} ms`,
  );
  const driver = createDriver(federation, {
    timeoutMs: config.timeouts.replySeconds * 1_000,
    ...(options.pace === undefined
      ? {}
      : { beforeSend: gatewayPacer(new TokenBucket(options.pace), config.component.domain) }),
  });
  const link: ComponentLink = {
    domain: federation.component.domain,
    host: federation.component.host,
    port: federation.component.port,
  };
  let sut: SutInstance | undefined;
  let servedTools: ServedConformanceTools | undefined;
  let provisioned: ProvisionedWorld | undefined;
  // Set by the teardown, so that the gateway's exit it causes is not reported as a crash.
  let expectingExit = false;
  let stopping: Promise<void> | undefined;
  /** Stops what has started, in reverse order: the end of a run and of a failed start alike. */
  const teardown = (): Promise<void> => {
    stopping ??= (async () => {
      const created = provisioned;
      provisioned = undefined;
      if (created !== undefined) {
        const failures = await created.cleanup().catch((error: unknown) => [String(error)]);
        for (const failure of failures) log(`fixtures: cleanup: ${failure}`);
      }
      expectingExit = true;
      // The local caller may be connected already (the features query failed after its login).
      await driver.closeAll();
      await sut?.stop().catch(() => undefined);
      await servedTools?.close().catch(() => undefined);
      await federation.stop();
    })();
    return stopping;
  };
  try {
    if (config.conformanceTools === 'mcp-http') {
      servedTools = await serveConformanceTools();
      log(
        `conformance tools: served by the harness at ${servedTools.url} (MCP Streamable HTTP; ledger read here)`,
      );
    }
    // A SUT file that does not fit the federation is refused before anything probes the domain
    // (launchSut checks the same again when it starts the gateway).
    componentFor(config, federation);
    const probe = await discoInfoProbe(federation, link.domain);
    try {
      // Only a gateway the harness launches must find the domain unanswered: one the user starts
      // may rightly be connected already (docs/sut.md: fix the port and secret, configure it
      // before the run), and then it is the gateway under test.
      if (config.launch !== 'external') await refuseStaleGateway(link, () => probe.probe());
      // Printed once, before the gateway starts: what the protocol cannot provision must be set
      // up by then; cases that need an unconfirmed item point back here by its ID.
      if (config.fixtures === 'admin-iq' && options.world !== undefined) {
        const items = operatorChecklist(options.world);
        for (const line of checklistLines(items, unconfirmedItems(items, config.fixturesConfirmed)))
          log(line);
      }
      sut = await launchSut({
        config,
        federation,
        ...(options.world === undefined ? {} : { world: options.world }),
        ...(servedTools === undefined ? {} : { conformanceToolsUrl: servedTools.url }),
      });
      await options.onServersUp?.(federation, sut);
      await waitForSutReady(sut, () => probe.probe());
      // What answered may be a leftover that connected after the probe above: the launched
      // gateway, refused with conflict, may not have exited yet.
      if (sut.process?.pid !== undefined) await refuseForeignComponent(link, sut.process.pid);
    } finally {
      await probe.close().catch(() => undefined);
    }
    const gatewayJid = sut.facts.componentDomain;
    const jidOf = ({ username, domain }: { username: string; domain: string }): string =>
      `${username}@${domain}`;
    const roles: CallerRoles = {
      local: jidOf(WORLD_ACCOUNTS.local),
      remote: jidOf(WORLD_ACCOUNTS.remote),
      remotePeer: jidOf(WORLD_ACCOUNTS.remotePeer),
      denied: jidOf(WORLD_ACCOUNTS.denied),
      admin: sut.adminAccount?.jid,
      registrant: jidOf(WORLD_ACCOUNTS.registrant),
      localPeer: jidOf(WORLD_ACCOUNTS.localPeer),
      prober: jidOf(WORLD_ACCOUNTS.prober),
    };
    const callers = new RunCallers(driver, roles);
    // Built from the very value the SUT was given, so cases expect what it actually loaded; with
    // admin-iq from what provisioning actually registered and activated.
    let world: ReferenceWorld | undefined;
    let fixtureChecklist: RunSession['fixtureChecklist'];
    if (config.fixtures === 'world-file' && options.world !== undefined) {
      world = referenceWorldOf(options.world, roles);
    } else if (config.fixtures === 'admin-iq' && options.world !== undefined) {
      provisioned = await provisionWorld(await callers.callerOf('admin'), gatewayJid, options.world);
      log(
        `fixtures: admin-iq as ${roles.admin ?? '(no admin)'}: ${String(provisioned.registered)} version(s) registered, ${String(provisioned.activated)} activated`,
      );
      for (const problem of provisioned.problems) log(`fixtures: not provisioned: ${problem}`);
      const items = operatorChecklist(provisioned.world);
      const unconfirmed = unconfirmedItems(items, config.fixturesConfirmed);
      fixtureChecklist = { items, unconfirmed };
      world = referenceWorldOf(
        provisioned.world,
        roles,
        'the fixture world provisioned over admin-iq',
        new Set(unconfirmed.map((item) => item.id)),
      );
    }
    const features = await advertisedFeatures(await callers.callerOf('local'), gatewayJid, log);
    const locale = launchLocale(config.launch, process.env, config.external);
    const facts: SutFacts = {
      name: config.name,
      gatewayJid,
      profiles: new Set(withImpliedProfiles(config.profiles)),
      features,
      replyTimeoutMs: config.timeouts.replySeconds * 1_000,
      taskTimeoutMs: config.timeouts.taskSeconds * 1_000,
      limits: config.limits,
      ...(locale === undefined ? {} : { locale }),
      ...(missingTools.size === 0 ? {} : { missingTools }),
    };
    const launched = sut;
    const managed = launched.process;
    // A launched gateway that exits on its own mid-run: every later case would fail for that one
    // reason, so the run names it once and stops judging (exit 3).
    let unexpectedExit: string | undefined;
    managed?.on('exit', (status) => {
      if (expectingExit || unexpectedExit !== undefined) return;
      const how =
        status.signal === null ? `with exit code ${String(status.code)}` : `on signal ${status.signal}`;
      // A restart by a case leaves the domain free for a moment: a leftover gateway can take it.
      const cause = showsConflict(managed.runOutput)
        ? ' (its output shows a conflict stream error: while it was disconnected, another component took the domain, most likely a gateway left over from an earlier run with the same fixed port and secret)'
        : '';
      unexpectedExit = `the gateway exited ${how} during the run${cause}; its last output:\n${outputTail(managed.runOutput)}`;
    });
    const sutControl: SutControl | undefined =
      managed === undefined
        ? externalSutControl({
            control: config.external,
            federation,
            sut: launched,
            gatewayJid,
            pinger: () => callers.callerOf('local'),
          })
        : launchedSutControl({
            federation,
            sut: launched,
            process: managed,
            gatewayJid,
            expectExit: (expecting) => {
              expectingExit = expecting;
            },
          });
    const ledger = ledgerOf(servedTools, outOfBandLedger(config, launched.facts), launched.facts);
    const setupMs = performance.now() - started;
    log(`gateway under test: ${config.name} at ${gatewayJid}, ready after ${String(Math.round(setupMs))} ms`);
    return {
      federation,
      sut: launched,
      driver,
      callers,
      facts,
      ...(world === undefined ? {} : { world }),
      ...(fixtureChecklist === undefined ? {} : { fixtureChecklist }),
      ...(sutControl === undefined ? {} : { sutControl }),
      ...(ledger === undefined ? {} : { ledger }),
      setupMs,
      gatewayExit: () => unexpectedExit,
      keepLogs: (dir) => keepLogs(dir, federation, launched),
      stop: teardown,
    };
  } catch (error) {
    // Read while the other component is still connected: the teardown ends its connection.
    const conflict =
      sut?.process !== undefined && (error instanceof ProcessExitedError || error instanceof SutNotReadyError)
        ? await startupConflict(link, sut.process.runOutput)
        : undefined;
    const failure: unknown = conflict ?? error;
    const logs = await logsOnFailure(options, federation, sut);
    await teardown();
    const message = startFailureMessage(failure, [federation.component.secret]);
    if (message === undefined) throw failure;
    throw new SessionStartFailure(message, { cause: failure, logs });
  }
}

/** The logs of a start that failed, kept where the caller asked, before the teardown removes them. */
async function logsOnFailure(
  options: StartSessionOptions,
  federation: Federation,
  sut: SutInstance | undefined,
): Promise<string[]> {
  if (options.logsDirOnFailure === undefined) return [];
  try {
    return await keepLogs(options.logsDirOnFailure, federation, sut);
  } catch (error) {
    options.log(`the logs could not be kept: ${error instanceof Error ? error.message : String(error)}`);
    return [];
  }
}
