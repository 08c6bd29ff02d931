/**
 * bench/task-admission: durable admission throughput of the task engine (#invocation: the task
 * and its replay record are on disk before <accepted/>), with synchronous = FULL on a real
 * database file. Compares committing every admission on its own with group commit, where the
 * admissions that become ready in one event-loop turn share one transaction (one fsync).
 * Each round sends `count` concurrent invocations and waits for every <accepted/>.
 * Run alone: node bin/run-ts.js bench/task-admission.ts
 */
import { pathToFileURL } from 'node:url';
import { BudgetedValidator } from '../protocol/tool-schema/index.ts';
import type { ToolRuntime } from '../reference-gateway/runtime/tool-runtime.ts';
import { tempStoreDir } from '../reference-gateway/store/test-support/temp-store.ts';
import { TaskEngine } from '../reference-gateway/tasks/task-engine.ts';
import {
  BOB,
  POLICY,
  WEATHER,
  invokeRequest,
  seedWorld,
} from '../reference-gateway/tasks/test-support/engine-kit.ts';

export interface AdmissionRound {
  readonly mode: 'group' | 'per-request';
  readonly admissions: number;
  readonly commits: number;
  readonly totalMs: number;
}

export interface TaskAdmissionReport {
  readonly count: number;
  readonly perRequest: AdmissionRound;
  readonly group: AdmissionRound;
  readonly speedup: number;
  /** The admission writes alone (task row, replay record, version reference), no validation. */
  readonly commitOnly: { readonly perRequestMs: number; readonly groupMs: number };
}

/** A runtime that never settles: the bench measures admission, not execution. */
const IDLE_RUNTIME: ToolRuntime = { name: 'bench', execute: () => new Promise<void>(() => undefined) };

async function round(
  mode: AdmissionRound['mode'],
  count: number,
  validator: BudgetedValidator,
): Promise<AdmissionRound> {
  const dir = tempStoreDir();
  try {
    const store = dir.open(() => Date.now());
    seedWorld(store);
    const engine = TaskEngine.start({
      store,
      policy: () => POLICY,
      runtimes: new Map([[WEATHER, IDLE_RUNTIME]]),
      deliver: () => undefined,
      replayWindowSeconds: 600,
      validator,
      commitMode: mode,
      // Commit cost is measured here, not the validation budget: a loaded machine must not refuse.
      limits: { maxActiveTasks: count * 2, maxActiveTasksPerCaller: count * 2, validationTimeoutMs: 10_000 },
    });
    const requests = Array.from({ length: count }, () => invokeRequest(store));
    const start = process.hrtime.bigint();
    const outcomes = await Promise.all(requests.map((request) => engine.invoke(BOB, WEATHER, request)));
    const totalMs = Number(process.hrtime.bigint() - start) / 1e6;
    for (const outcome of outcomes) {
      if (!outcome.ok) throw new Error(`${mode}: an admission was refused (${outcome.fault.condition})`);
    }
    const commits = engine.admissionCommits;
    engine.close();
    return { mode, admissions: count, commits, totalMs };
  } finally {
    dir.remove();
  }
}

/** The same rows admission writes, committed one transaction each or all in one (savepoints). */
function commitOnly(mode: AdmissionRound['mode'], count: number): number {
  const dir = tempStoreDir();
  try {
    const store = dir.open(() => Date.now());
    seedWorld(store);
    const hash = store.registrations.version(WEATHER, '1.0.0')?.hash;
    if (hash === undefined) throw new Error('weather 1.0.0 is not registered');
    const write = (i: number): void => {
      const taskId = `task-bench-${String(i).padStart(16, '0')}`;
      const at = new Date().toISOString();
      store.tasks.insertTask({
        taskId,
        handle: `handle-${taskId}`,
        callerJid: BOB.bareJid,
        notifyJid: BOB.fullJid,
        endpointJid: WEATHER,
        tool: 'forecast.get',
        apiVersion: '1.0.0',
        manifestHash: hash,
        argumentsJson: '{"city":"Riga"}',
        deadline: at,
        state: 'accepted',
        revision: 0,
        created: at,
        updated: at,
        retainUntil: at,
        retainUntilMs: 0,
      });
      store.tasks.insertReplay({
        callerJid: BOB.bareJid,
        endpointJid: WEATHER,
        requestId: `req-${taskId}`,
        fingerprint: 'x',
        taskId,
        created: at,
        retainUntil: at,
        keepUntilMs: 0,
      });
      store.registrations.retain(WEATHER, '1.0.0', `task:${taskId}`);
    };
    const start = process.hrtime.bigint();
    if (mode === 'per-request') {
      for (let i = 0; i < count; i++)
        store.transaction(() => {
          write(i);
        });
    } else {
      store.transaction(() => {
        for (let i = 0; i < count; i++)
          store.transaction(() => {
            write(i);
          });
      });
    }
    return Number(process.hrtime.bigint() - start) / 1e6;
  } finally {
    dir.remove();
  }
}

function median(rounds: AdmissionRound[]): AdmissionRound {
  const sorted = [...rounds].sort((a, b) => a.totalMs - b.totalMs);
  const middle = sorted[Math.floor(sorted.length / 2)];
  if (middle === undefined) throw new Error('no rounds');
  return middle;
}

export async function benchTaskAdmission(count = 200, rounds = 5): Promise<TaskAdmissionReport> {
  const validator = new BudgetedValidator({ standby: false, maxPending: count * 2 });
  try {
    await validator.warmUp();
    await round('group', 20, validator); // warm-up: schema compilation, statement preparation
    const perRequest: AdmissionRound[] = [];
    const group: AdmissionRound[] = [];
    for (let i = 0; i < rounds; i++) {
      perRequest.push(await round('per-request', count, validator));
      group.push(await round('group', count, validator));
    }
    const a = median(perRequest);
    const b = median(group);
    const middle = (values: number[]): number =>
      [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? NaN;
    const commitOnlyMs = {
      perRequestMs: middle(Array.from({ length: rounds }, () => commitOnly('per-request', count))),
      groupMs: middle(Array.from({ length: rounds }, () => commitOnly('group', count))),
    };
    return { count, perRequest: a, group: b, speedup: a.totalMs / b.totalMs, commitOnly: commitOnlyMs };
  } finally {
    await validator.close();
  }
}

export function printTaskAdmission(report: TaskAdmissionReport): void {
  const line = (r: AdmissionRound): string =>
    `  ${r.mode.padEnd(12)} ${r.totalMs.toFixed(1).padStart(8)} ms total, ` +
    `${(r.totalMs / r.admissions).toFixed(3)} ms/admission, ${r.commits} commits`;
  process.stdout.write(
    [
      `task-admission: ${report.count} concurrent invocations, synchronous=FULL, median of rounds`,
      line(report.perRequest),
      line(report.group),
      `  group commit speed-up: ${report.speedup.toFixed(2)}× (no goal of its own: the engine's share of bench/admission)`,
      `  commit only (same rows, no validation): per-request ${report.commitOnly.perRequestMs.toFixed(1)} ms, ` +
        `one group ${report.commitOnly.groupMs.toFixed(1)} ms ` +
        `(${(report.commitOnly.perRequestMs / report.commitOnly.groupMs).toFixed(1)}×)`,
      '',
    ].join('\n'),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  printTaskAdmission(await benchTaskAdmission());
}
