/**
 * bench/admission: durable invoke → <accepted/> through Prosody against the reference gateway,
 * next to the echo component on the same path in the same run (issue 5, "Done when"; goal:
 * gateway throughput ≥ 0.8× echo, gateway p50 ≤ 1.5× echo).
 *
 * One native federation; bob@server.example sends the same number of IQs at the same
 * concurrency (a window of requests kept in flight, pipelined on one c2s stream) to
 * - the echo component (harness/federation/test-support/echo-component.ts, a process), which
 *   answers each <invoke/> sent as an IQ get with a copy of it: the cost of the path alone;
 * - the reference gateway (bench/admission-gateway.ts, a process on a database in a temporary
 *   directory, synchronous = FULL), which answers each <invoke/> to conformance@agents.example
 *   with <accepted/> once the task and its replay record are committed (group commit).
 * - the echo component with `notify` (a second baseline, not the goal's): it also sends the
 *   requester one <message/> per request, the traffic shape of an admission — the <accepted/>
 *   reply plus the task's first lifecycle event (`running`), which the gateway must send too.
 *   The gap between the two baselines is what the protocol's traffic costs the path (Prosody
 *   and the client), whatever the gateway does.
 * All take the component domain in turn, so each phase has Prosody to itself. Every gateway
 * reply is checked to be <accepted/>: a refusal would be a cheaper, dishonest answer.
 *
 * The tasks run the `script` tool with a single unbounded wait, so each one costs its admission
 * and its dispatch (the running commit) and then idles: the bench measures admission, not tool
 * work. The concurrency stays below the schema validator's queue (64), a documented limit.
 *
 * Run alone: node bin/run-ts.js bench/admission.ts [REQUESTS] [CONCURRENCY] [ROUNDS]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createDriver, type Caller } from '../harness/driver/index.ts';
import type { ManagedProcess } from '../harness/faults/managed-process.ts';
import { nativeProvider } from '../harness/federation/native-provider.ts';
import type { Federation } from '../harness/federation/server-provider.ts';
import { startEchoComponentProcess } from '../harness/federation/test-support/echo-component-process.ts';
import { startTsProcess } from '../harness/federation/test-support/run-ts-process.ts';
import { canonicalDocument } from '../protocol/json/canonical.ts';
import { generateIdentifier } from '../protocol/identifiers.ts';
import { parseStrictJson } from '../protocol/json/strict-json.ts';
import { buildInvoke } from '../protocol/stanza/index.ts';
import { NS_AGENT_TASK } from '../protocol/namespaces.ts';

const CONFORMANCE = 'conformance@agents.example';
const ECHO = 'echo@agents.example';
const MANIFEST = fileURLToPath(new URL('../fixtures/manifests/conformance.json', import.meta.url));
const HASH = canonicalDocument(parseStrictJson(readFileSync(MANIFEST))).hash;
const ARGUMENTS = '{"steps":[{"wait":{}}]}';
const IQ_TIMEOUT_MS = 60_000;

export interface PathReport {
  readonly requests: number;
  readonly elapsedMs: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface AdmissionRound {
  readonly echo: PathReport;
  readonly echoNotify: PathReport;
  readonly gateway: PathReport;
  /** Transactions the gateway's admission path committed (warm-up included). */
  readonly gatewayCommits: number | undefined;
  /** Gateway CPU time (all threads) per admission, warm-up included, in microseconds. */
  readonly gatewayCpuPerAdmissionUs: number | undefined;
  /** Messages the gateway sent its schema validation worker (warm-up included). */
  readonly validationBatches: number | undefined;
  /** fdatasync calls for the gateway's deferred commits (warm-up included). */
  readonly walSyncs: number | undefined;
}

export interface AdmissionReport {
  readonly requests: number;
  readonly warmup: number;
  readonly concurrency: number;
  readonly rounds: readonly AdmissionRound[];
  /** Medians over the rounds. */
  readonly echo: PathReport;
  readonly echoNotify: PathReport;
  readonly gateway: PathReport;
  readonly throughputRatio: number;
  readonly p50Ratio: number;
  readonly goalMet: boolean;
}

export interface AdmissionBenchOptions {
  readonly requests?: number;
  readonly concurrency?: number;
  readonly rounds?: number;
  /** Requests sent before each measured window (validator, JIT and stream warm-up). */
  readonly warmup?: number;
}

function invokeElement() {
  return buildInvoke({
    requestId: generateIdentifier('req-'),
    tool: 'script',
    apiVersion: '1.0.0',
    manifestHash: HASH,
    argumentsJson: ARGUMENTS,
  });
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

/** `count` requests, `concurrency` of them in flight at any time; latency of each. */
async function pipelined(count: number, concurrency: number, send: () => Promise<void>): Promise<PathReport> {
  const latencies: number[] = [];
  let started = 0;
  const worker = async (): Promise<void> => {
    while (started < count) {
      started += 1;
      const sentAt = performance.now();
      await send();
      latencies.push(performance.now() - sentAt);
    }
  };
  const begin = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsedMs = performance.now() - begin;
  const sorted = latencies.sort((a, b) => a - b);
  return {
    requests: count,
    elapsedMs,
    perSecond: (count / elapsedMs) * 1000,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
  };
}

/** One echo path: the component started, warmed up, measured, stopped. */
async function echoPath(
  federation: Federation,
  options: { readonly notify: boolean },
  run: { readonly warmup: number; readonly requests: number; readonly concurrency: number },
  bob: Caller,
): Promise<PathReport> {
  const echoProcess = await startEchoComponentProcess(federation, options);
  try {
    await pipelined(run.warmup, run.concurrency, () => echoOnce(bob));
    return await pipelined(run.requests, run.concurrency, () => echoOnce(bob));
  } finally {
    await echoProcess.stop();
  }
}

async function echoOnce(caller: Caller): Promise<void> {
  const reply = await caller.iq(ECHO, 'get', invokeElement(), { timeoutMs: IQ_TIMEOUT_MS });
  if (reply?.name !== 'invoke') throw new Error('the echo component did not echo');
}

async function invokeOnce(caller: Caller): Promise<void> {
  const reply = await caller.iq(CONFORMANCE, 'set', invokeElement(), { timeoutMs: IQ_TIMEOUT_MS });
  if (reply?.name !== 'accepted' || reply.attrs['xmlns'] !== NS_AGENT_TASK) {
    throw new Error('the gateway did not answer <accepted/>');
  }
}

interface GatewaySetup {
  readonly dir: string;
  readonly config: string;
}

function gatewaySetup(federation: Federation): GatewaySetup {
  const dir = mkdtempSync(join(tmpdir(), 'agentconf-bench-admission-'));
  const { host, port, domain, secret } = federation.component;
  writeFileSync(
    join(dir, 'world.json'),
    JSON.stringify({
      endpoints: [
        { jid: CONFORMANCE, runtime: 'conformance', versions: [{ file: MANIFEST }], active: '1.0.0' },
      ],
      grants: [{ domain: 'server.example', see: ['*'], invoke: ['*'] }],
    }),
  );
  const config = join(dir, 'gateway.json');
  writeFileSync(
    config,
    JSON.stringify({
      component: { domain, host, port, secret },
      database: 'gateway.sqlite',
      world: 'world.json',
      localDomains: ['server.example'],
      // The bench is one principal sending thousands of invocations on purpose.
      limits: { rateLimits: { invocation: { burst: 1_000_000_000, perSecond: 1_000_000 } } },
    }),
  );
  return { dir, config };
}

async function startGateway(setup: GatewaySetup): Promise<ManagedProcess> {
  const child = await startTsProcess(
    'reference gateway (bench)',
    new URL('./admission-gateway.ts', import.meta.url),
    [setup.config],
  );
  await child.waitForOutput('online', 60_000);
  return child;
}

function median(reports: readonly PathReport[]): PathReport {
  const pick = (key: keyof PathReport): number =>
    percentile(
      reports.map((report) => report[key]).sort((a, b) => a - b),
      0.5,
    );
  return {
    requests: pick('requests'),
    elapsedMs: pick('elapsedMs'),
    perSecond: pick('perSecond'),
    p50Ms: pick('p50Ms'),
    p99Ms: pick('p99Ms'),
  };
}

export async function benchAdmission(options: AdmissionBenchOptions = {}): Promise<AdmissionReport> {
  const { requests = 2000, concurrency = 32, rounds = 3, warmup = 200 } = options;
  const federation = await nativeProvider.start();
  const setup = gatewaySetup(federation);
  const driver = createDriver(federation, { timeoutMs: IQ_TIMEOUT_MS });
  const measured: AdmissionRound[] = [];
  try {
    const bob = await driver.connect('bob@server.example', 'bench');
    for (let round = 0; round < rounds; round++) {
      const run = { warmup, requests, concurrency };
      const echo = await echoPath(federation, { notify: false }, run, bob);
      const echoNotify = await echoPath(federation, { notify: true }, run, bob);
      const gatewayProcess = await startGateway(setup);
      let gateway: PathReport;
      try {
        await pipelined(warmup, concurrency, () => invokeOnce(bob));
        gateway = await pipelined(requests, concurrency, () => invokeOnce(bob));
      } finally {
        await gatewayProcess.stop();
      }
      const counter = (name: string): number | undefined => {
        const value = new RegExp(`${name} (\\d+)`, 'u').exec(gatewayProcess.runOutput)?.[1];
        return value === undefined ? undefined : Number(value);
      };
      const cpu = counter('cpu microseconds');
      measured.push({
        echo,
        echoNotify,
        gateway,
        gatewayCommits: counter('admission commits'),
        gatewayCpuPerAdmissionUs: cpu === undefined ? undefined : cpu / (requests + warmup),
        validationBatches: counter('validation batches'),
        walSyncs: counter('wal syncs'),
      });
    }
  } finally {
    await driver.closeAll();
    await federation.stop();
    rmSync(setup.dir, { recursive: true, force: true });
  }
  const echo = median(measured.map((round) => round.echo));
  const echoNotify = median(measured.map((round) => round.echoNotify));
  const gateway = median(measured.map((round) => round.gateway));
  const throughputRatio = gateway.perSecond / echo.perSecond;
  const p50Ratio = gateway.p50Ms / echo.p50Ms;
  return {
    requests,
    warmup,
    concurrency,
    rounds: measured,
    echo,
    echoNotify,
    gateway,
    throughputRatio,
    p50Ratio,
    goalMet: throughputRatio >= 0.8 && p50Ratio <= 1.5,
  };
}

export function printAdmission(report: AdmissionReport): void {
  const ms = (value: number): string => (value < 10 ? value.toFixed(2) : value.toFixed(1));
  const line = (label: string, path: PathReport): string =>
    `  ${label.padEnd(30)} ${path.perSecond.toFixed(0).padStart(6)} IQ/s   p50 ${ms(path.p50Ms)} ms   p99 ${ms(path.p99Ms)} ms`;
  process.stdout.write(
    [
      `admission through Prosody (${String(report.requests)} requests, ${String(report.concurrency)} in flight, median of ${String(report.rounds.length)} rounds):`,
      line('echo component', report.echo),
      line('echo + one message back', report.echoNotify),
      line('gateway invoke → accepted', report.gateway),
      `  gateway/echo: throughput ${report.throughputRatio.toFixed(2)}× (goal ≥ 0.8), p50 ${report.p50Ratio.toFixed(2)}× (goal ≤ 1.5): ${report.goalMet ? 'met' : 'NOT met'}`,
      `  gateway/(echo + message), for context: throughput ${(report.gateway.perSecond / report.echoNotify.perSecond).toFixed(2)}×, p50 ${(report.gateway.p50Ms / report.echoNotify.p50Ms).toFixed(2)}×`,
      // #events: each committed transition sends one event, and every task has a first one (here
      // accepted → running), so no gateway beats the echo + message path: the goal's ceiling.
      `  ceiling of any gateway (the traffic alone, echo + message / echo): throughput ${(report.echoNotify.perSecond / report.echo.perSecond).toFixed(2)}×, p50 ${(report.echoNotify.p50Ms / report.echo.p50Ms).toFixed(2)}×`,
      ...report.rounds.map(
        (round, index) =>
          `  round ${String(index + 1)}: echo ${round.echo.perSecond.toFixed(0)}/s p50 ${ms(round.echo.p50Ms)}, echo+message ${round.echoNotify.perSecond.toFixed(0)}/s p50 ${ms(round.echoNotify.p50Ms)}, gateway ${round.gateway.perSecond.toFixed(0)}/s p50 ${ms(round.gateway.p50Ms)}, ${String(round.gatewayCommits ?? '?')} admission commits for ${String(report.requests + report.warmup)} admissions, ${String(round.validationBatches ?? '?')} validation batches, ${String(round.walSyncs ?? '?')} WAL syncs, gateway CPU ${round.gatewayCpuPerAdmissionUs?.toFixed(0) ?? '?'} µs per admission`,
      ),
      '',
    ].join('\n'),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [requests, concurrency, rounds] = process.argv.slice(2).map(Number);
  printAdmission(
    await benchAdmission({
      ...(requests === undefined || Number.isNaN(requests) ? {} : { requests }),
      ...(concurrency === undefined || Number.isNaN(concurrency) ? {} : { concurrency }),
      ...(rounds === undefined || Number.isNaN(rounds) ? {} : { rounds }),
    }),
  );
}
