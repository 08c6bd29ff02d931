/**
 * Task-state races (issue 14, item 1): state and result queries from every caller while the task
 * moves. The race machinery and the task model's verdict: ../support/races.ts.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import fc from 'fast-check';
import type { JsonValue } from '../../../protocol/json/json-value.ts';
import { HistoryRecorder, checkRaces } from '../support/task-history.ts';
import { freshLedgerKey } from '../support/ledger.ts';
import {
  requirements,
  type Owner,
  cast,
  type Step,
  owner,
  readStep,
  describeSteps,
  race,
  fireAll,
  finish,
  admit,
  COMPLETED,
} from '../support/races.ts';

interface QuerySchedule {
  readonly invoker: Owner;
  readonly segments: readonly { readonly percent: number; readonly waitMs: number }[];
  readonly fails: boolean;
  readonly reads: readonly Step[];
}

const querySchedule: fc.Arbitrary<QuerySchedule> = fc
  .record({
    invoker: owner,
    segments: fc.array(
      fc.record({ percent: fc.integer({ min: 0, max: 100 }), waitMs: fc.integer({ min: 0, max: 20 }) }),
      {
        minLength: 1,
        maxLength: 4,
      },
    ),
    fails: fc.boolean(),
  })
  .chain((base) => {
    const span = base.segments.reduce((sum, segment) => sum + segment.waitMs, 0) + 15;
    return fc.record({
      invoker: fc.constant(base.invoker),
      segments: fc.constant(base.segments),
      fails: fc.constant(base.fails),
      reads: fc
        .tuple(
          fc.array(readStep(span), { minLength: 3, maxLength: 10 }),
          fc.array(straddle(base.segments), { minLength: 1, maxLength: 2 }),
        )
        .map(([reads, pairs]) => [...reads, ...pairs.flat()]),
    });
  });

/**
 * Two state reads close around the moment a wait ends and the next event goes out: a gateway
 * that answers the second from what it read for the first (a cache, a stale replica) reports a
 * revision older than an event the callers already hold. Uniform offsets rarely put two reads
 * that close on either side of an event (docs/timing.md "Race schedules").
 */
function straddle(segments: readonly { readonly waitMs: number }[]): fc.Arbitrary<Step[]> {
  const ends = segments.map((_, index) =>
    segments.slice(0, index + 1).reduce((sum, segment) => sum + segment.waitMs, 0),
  );
  return fc
    .record({
      end: fc.constantFrom(...ends),
      before: fc.integer({ min: 0, max: 10 }),
      after: fc.integer({ min: 2, max: 25 }),
      first: owner,
      second: owner,
    })
    .map(({ end, before, after, first, second }) => [
      { op: 'state' as const, by: first, at: Math.max(0, end - before) },
      { op: 'state' as const, by: second, at: end + after },
    ]);
}

const FAILURE = { code: 'org.agentconf.suite:race', message: 'Scripted failure.', retryable: false };

const stateQueries: CaseDeclaration<'task-states'> = {
  id: 'task-states.race-state-queries',
  requirements: [
    'task-recovery.state-contents',
    'task-recovery.result-only-terminal',
    'events.revision-increments',
    'task-states.permitted-transitions',
    'task-states.terminal-immutable',
    'task-recovery.caller-authorization',
  ],
  profiles: ['task-execution'],
  level: 'MUST',
  scenario: 'race',
  interpretations: ['interp-39'],
  timeoutMs: 240_000,
  statement:
    'Three resources of the caller read task state and result at drawn moments while the task reports progress and settles, and two other accounts try the same: each read matches the state the events put the task in at the revision it reports, never goes back behind an answer or event seen before it was sent, the result is refused before settlement and equals the terminal event after; the other accounts get item-not-found.',
  run: async (context) => {
    const raceCast = await cast(context, []);
    await checkRaces(context, {
      arbitrary: querySchedule,
      // 8: twice what the catalog's task-state-read-cache needs in 24 of 24 seeds since every
      // schedule straddles an event with two reads (mutants/race-schedules.ts, docs/timing.md
      // "Race schedules").
      iterations: [8, 60],
      describe: (s) =>
        `invoker ${s.invoker}, ${s.segments.map((segment) => `progress ${String(segment.percent)}% + wait ${String(segment.waitMs)} ms`).join(', ')}, then ${s.fails ? 'fail' : 'complete'}: ${describeSteps(s.reads)}`,
      requirementOf: requirements({ 'terminal-outcome': 'task-states.permitted-transitions' }),
      note: (line) => raceCast.owners.a.caller.transcript.note(line),
      run: async (schedule) => {
        const recorder = new HistoryRecorder(raceCast.target);
        const key = freshLedgerKey(context, 'race-query');
        const percents = schedule.segments.map((segment) => segment.percent).sort((x, y) => x - y);
        const steps: JsonValue[] = schedule.segments.flatMap((segment, index) => [
          { progress: { percent: percents[index] ?? 0, message: `step ${String(index)}` } },
          { wait: { ms: segment.waitMs } },
        ]);
        steps.push(schedule.fails ? { fail: FAILURE } : { complete: { structuredContent: { value: 'ok' } } });
        const taskId = await admit(context, raceCast, recorder, schedule.invoker, { ledgerKey: key, steps });
        const current = race(context, raceCast, recorder, taskId);
        await fireAll(current, schedule.reads);
        const history = await finish(current, raceCast.owners.a.caller.bareJid, [key]);
        return {
          history,
          expectations: {
            settled: true,
            terminals: [schedule.fails ? { state: 'failed', code: FAILURE.code } : COMPLETED],
          },
        };
      },
    });
  },
};

export const raceCases: readonly CaseDeclaration<'task-states'>[] = [stateQueries];
