/**
 * bench/federation: the native federation's costs as the suite pays them.
 * - boot to ready: start() until both servers answer and an echo component is online on
 *   agents.example (in this process, so that process start-up is not counted; goal ≤ 1 s);
 * - sequential IQ round trip through the driver's Caller to an echo component running as a
 *   process of its own: local (bob@server.example → component, one server) against across s2s
 *   (alice@example.com → server A → s2s → server B → component);
 * - pipelined throughput: many IQs in flight at once, the same two paths.
 * Run alone: node bin/run-ts.js bench/federation.ts
 */
import { pathToFileURL } from 'node:url';

import { xml } from '@xmpp/xml';

import { createDriver, type Caller } from '../harness/driver/index.ts';
import { nativeProvider } from '../harness/federation/native-provider.ts';
import { startEchoComponent } from '../harness/federation/test-support/echo-component.ts';
import { startEchoComponentProcess } from '../harness/federation/test-support/echo-component-process.ts';

const ECHO_NS = 'urn:agentconf:bench:echo';
/** Boot to ready, median (the goal above). */
const BOOT_GOAL_MS = 1000;
const TARGET = 'echo@agents.example';

export interface Spread {
  readonly runs: number;
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  /** 90th percentile. */
  readonly p90Ms: number;
}

export interface Throughput {
  readonly requests: number;
  readonly elapsedMs: number;
  readonly perSecond: number;
}

export interface FederationReport {
  /** start() until both servers answer and the echo component is online. */
  readonly bootToReady: Spread;
  /** The provider's own boot figure (servers only), over the same runs. */
  readonly serversReady: Spread;
  readonly roundTripLocal: Spread;
  readonly roundTripS2s: Spread;
  readonly pipelinedLocal: Throughput;
  readonly pipelinedS2s: Throughput;
}

export interface FederationBenchOptions {
  readonly bootRuns?: number;
  readonly sequentialIqs?: number;
  readonly pipelinedIqs?: number;
}

function spread(samples: readonly number[]): Spread {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (fraction: number): number =>
    sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
  return {
    runs: sorted.length,
    medianMs: at(0.5),
    minMs: sorted[0] ?? Number.NaN,
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
    p90Ms: at(0.9),
  };
}

async function bootToReady(runs: number): Promise<{ bootToReady: Spread; serversReady: Spread }> {
  const total: number[] = [];
  const servers: number[] = [];
  // The first start on a machine may install or page in Prosody: not counted.
  for (let run = -1; run < runs; run++) {
    const started = performance.now();
    const federation = await nativeProvider.start();
    try {
      const { host, port, domain, secret } = federation.component;
      const component = await startEchoComponent({ host, port, domain, secret });
      const elapsed = performance.now() - started;
      await component.stop();
      if (run >= 0) {
        total.push(elapsed);
        servers.push(federation.timings.bootMs);
      }
    } finally {
      await federation.stop();
    }
  }
  return { bootToReady: spread(total), serversReady: spread(servers) };
}

function echo(caller: Caller, text: string): Promise<unknown> {
  return caller.iq(TARGET, 'get', xml('echo', { xmlns: ECHO_NS }, text), { timeoutMs: 60_000 });
}

async function sequential(caller: Caller, count: number): Promise<Spread> {
  for (let i = 0; i < 20; i++) await echo(caller, `warm-up ${i}`);
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await echo(caller, `sequential ${i}`);
    samples.push(performance.now() - started);
  }
  return spread(samples);
}

async function pipelined(caller: Caller, count: number): Promise<Throughput> {
  const started = performance.now();
  await Promise.all(Array.from({ length: count }, (_, i) => echo(caller, `pipelined ${i}`)));
  const elapsedMs = performance.now() - started;
  return { requests: count, elapsedMs, perSecond: (count / elapsedMs) * 1_000 };
}

export async function benchFederation(options: FederationBenchOptions = {}): Promise<FederationReport> {
  const { bootRuns = 10, sequentialIqs = 200, pipelinedIqs = 2000 } = options;
  const boot = await bootToReady(bootRuns);

  const federation = await nativeProvider.start();
  const component = await startEchoComponentProcess(federation);
  const driver = createDriver(federation, { timeoutMs: 60_000 });
  try {
    const [bob, alice] = await Promise.all([
      driver.connect('bob@server.example', 'bench'),
      driver.connect('alice@example.com', 'bench'),
    ]);
    // Sets up both s2s connections before anything is timed.
    await echo(alice, 'first');
    return {
      ...boot,
      roundTripLocal: await sequential(bob, sequentialIqs),
      roundTripS2s: await sequential(alice, sequentialIqs),
      pipelinedLocal: await pipelined(bob, pipelinedIqs),
      pipelinedS2s: await pipelined(alice, pipelinedIqs),
    };
  } finally {
    await driver.closeAll();
    await component.kill9();
    await federation.stop();
  }
}

export function printFederation(report: FederationReport): void {
  const ms = (value: number): string => (value < 10 ? value.toFixed(2) : value.toFixed(0));
  const line = (label: string, s: Spread): string =>
    `  ${label.padEnd(44)} median ${ms(s.medianMs)} ms  (min ${ms(s.minMs)}, p90 ${ms(s.p90Ms)}, max ${ms(s.maxMs)}; ${s.runs} runs)`;
  const rate = (label: string, t: Throughput): string =>
    `  ${label.padEnd(44)} ${t.perSecond.toFixed(0)} IQ/s  (${t.requests} in flight, ${t.elapsedMs.toFixed(0)} ms)`;
  process.stdout.write(
    [
      'federation (native Prosody):',
      line('boot to ready, servers A + B + component', report.bootToReady),
      `  boot to ready: goal ≤ ${String(BOOT_GOAL_MS)} ms: ${report.bootToReady.medianMs <= BOOT_GOAL_MS ? 'met' : 'NOT met'}`,
      line('… of which servers A + B ready', report.serversReady),
      line('sequential IQ round trip, local', report.roundTripLocal),
      line('sequential IQ round trip, across s2s', report.roundTripS2s),
      rate('pipelined, local', report.pipelinedLocal),
      rate('pipelined, across s2s', report.pipelinedS2s),
      '',
    ].join('\n'),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  printFederation(await benchFederation());
}
