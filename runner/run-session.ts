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
import { launchSut, type SutInstance } from '../harness/sut/launch.ts';
import { withImpliedProfiles } from '../protocol/profiles.ts';
import { discoInfoProbe, waitForSutReady } from '../harness/sut/readiness.ts';
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

/** The gateway's output and the servers' logs, as text files in `dir`. */
async function keepLogs(dir: string, federation: Federation, sut: SutInstance): Promise<string[]> {
  const files: [string, string][] = [];
  if (sut.process !== undefined) files.push(['gateway.log', sut.process.output]);
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
  const federation = await startFederation(options.provider, config);
  log(
    `federation: ${federation.provider}, servers ready in ${String(Math.round(federation.timings.bootMs))} ms`,
  );
  const driver = createDriver(federation, {
    timeoutMs: config.timeouts.replySeconds * 1_000,
    ...(options.pace === undefined
      ? {}
      : { beforeSend: gatewayPacer(new TokenBucket(options.pace), config.component.domain) }),
  });
  let sut: SutInstance | undefined;
  let servedTools: ServedConformanceTools | undefined;
  let provisioned: ProvisionedWorld | undefined;
  /** Removes what admin-iq provisioning created, saying what it could not. */
  const unprovision = async (): Promise<void> => {
    const created = provisioned;
    provisioned = undefined;
    if (created === undefined) return;
    const failures = await created.cleanup().catch((error: unknown) => [String(error)]);
    for (const failure of failures) log(`fixtures: cleanup: ${failure}`);
  };
  try {
    if (config.conformanceTools === 'mcp-http') {
      servedTools = await serveConformanceTools();
      log(
        `conformance tools: served by the harness at ${servedTools.url} (MCP Streamable HTTP; ledger read here)`,
      );
    }
    sut = await launchSut({
      config,
      federation,
      ...(options.world === undefined ? {} : { world: options.world }),
      ...(servedTools === undefined ? {} : { conformanceToolsUrl: servedTools.url }),
    });
    await options.onServersUp?.(federation, sut);
    const probe = await discoInfoProbe(federation, sut.facts.componentDomain);
    try {
      await waitForSutReady(sut, () => probe.probe());
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
      for (const line of checklistLines(items, unconfirmed)) log(line);
      world = referenceWorldOf(
        provisioned.world,
        roles,
        'the fixture world provisioned over admin-iq',
        new Map(unconfirmed.map((item) => [item.id, item.text])),
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
    };
    const launched = sut;
    const managed = launched.process;
    // A launched gateway that exits on its own mid-run: every later case would fail for that one
    // reason, so the run names it once and stops judging (exit 3).
    let expectingExit = false;
    let unexpectedExit: string | undefined;
    managed?.on('exit', (status) => {
      if (expectingExit || unexpectedExit !== undefined) return;
      const how =
        status.signal === null ? `with exit code ${String(status.code)}` : `on signal ${status.signal}`;
      unexpectedExit = `the gateway exited ${how} during the run; its last output:\n${outputTail(managed.runOutput)}`;
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
    const tools = servedTools;
    const ledger = ledgerOf(tools, outOfBandLedger(config, launched.facts), launched.facts);
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
      async stop() {
        await unprovision();
        expectingExit = true;
        await driver.closeAll();
        await launched.stop().catch(() => undefined);
        await tools?.close().catch(() => undefined);
        await federation.stop();
      },
    };
  } catch (error) {
    await unprovision().catch(() => undefined);
    // The local caller may be connected already (the features query failed after its login).
    await driver.closeAll();
    await sut?.stop().catch(() => undefined);
    await servedTools?.close().catch(() => undefined);
    await federation.stop();
    const message = startFailureMessage(error, [federation.component.secret]);
    throw message === undefined ? error : new SessionStartFailure(message);
  }
}
