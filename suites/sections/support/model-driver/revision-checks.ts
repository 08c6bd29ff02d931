/**
 * Random sequences of cancellations and input answers against real tasks, each reply judged by
 * the task-lifecycle model (suites/model/tasks.ts): expected revisions below (by a transition or
 * only by progress), at and above the current one, identical replays and other tuples, before
 * and after the task settles. fast-check draws the sequence from a seed taken from the case's
 * random source and shrinks a failing one; every task a run starts is settled before the next.
 */
import fc from 'fast-check';
import type { JsonValue } from '../../../../protocol/json/json-value.ts';
import { isTerminal } from '../../../../protocol/task-states.ts';
import type { CaseContext } from '../../../framework/context.ts';
import { expectThat } from '../../../framework/expect.ts';
import { RequirementViolation } from '../../../framework/verdicts.ts';
import { terminalPayload } from '../task-events.ts';
import { TaskSession } from '../task-session.ts';
import { conformanceTarget } from '../task-target.ts';
import { requireToolFeatures } from '../tool-features.ts';
import { ModelExperiment } from './experiment.ts';
import { ModelledTask } from './task-driver.ts';

/** Which expected revision an attempt names, relative to the task as the model sees it. */
const REVISION_CHOICES = ['current', 'stale-transition', 'stale-progress', 'ahead', 'far-ahead'] as const;
type RevisionChoice = (typeof REVISION_CHOICES)[number];

function revisionOf(task: ModelledTask, choice: RevisionChoice): number {
  const { revision, transitionRevision } = task.model;
  switch (choice) {
    case 'current':
      return revision;
    case 'stale-transition':
      return Math.max(0, transitionRevision - 1);
    case 'stale-progress':
      // Only after progress; otherwise the nearest stale value.
      return revision > transitionRevision ? transitionRevision : Math.max(0, revision - 1);
    case 'ahead':
      return revision + 1;
    case 'far-ahead':
      return revision + 1_000;
  }
}

/** Runs `property` over plans drawn by fast-check; a failing plan is shrunk, then rethrown with its seed. */
async function checkPlans<T>(
  context: CaseContext,
  runs: readonly [number, number],
  plan: fc.Arbitrary<T>,
  run: (plan: T) => Promise<void>,
): Promise<void> {
  const experiment = new ModelExperiment(context);
  const seed = experiment.nextSeed();
  const numRuns = context.budget.iterations(...runs);
  let violation: RequirementViolation | undefined;
  const details = await fc.check(
    fc.asyncProperty(plan, async (drawn) => {
      try {
        await run(drawn);
      } catch (problem) {
        if (problem instanceof RequirementViolation) violation = problem;
        throw problem;
      }
    }),
    { seed, numRuns },
  );
  context.budget.ran(Math.min(numRuns, details.numRuns));
  if (!details.failed) return;
  if (violation === undefined)
    throw details.errorInstance instanceof Error
      ? details.errorInstance
      : new Error(String(details.errorInstance));
  const where = `${experiment.describe()}, fast-check seed ${String(seed)}, path ${details.counterexamplePath ?? '?'}, plan ${JSON.stringify(details.counterexample?.[0])}`;
  throw new RequirementViolation(
    violation.requirement,
    violation.expected,
    `${violation.received}\n(${where})`,
    violation.message,
  );
}

// ---------------------------------------------------------------------------------------------
// Cancellation

type CancelAttempt =
  | { readonly kind: 'fresh'; readonly revision: RevisionChoice; readonly reason?: string }
  | { readonly kind: 'replay'; readonly of: number };

const cancelAttempt: fc.Arbitrary<CancelAttempt> = fc.oneof(
  fc.record(
    {
      kind: fc.constant('fresh' as const),
      revision: fc.constantFrom(...REVISION_CHOICES),
      reason: fc.constantFrom('stop', 'halt\r\nnow'),
    },
    { requiredKeys: ['kind', 'revision'] },
  ),
  fc.record({ kind: fc.constant('replay' as const), of: fc.nat(7) }),
);

interface CancelPlan {
  readonly before: readonly CancelAttempt[];
  readonly after: readonly CancelAttempt[];
}

const cancelPlan: fc.Arbitrary<CancelPlan> = fc.record({
  before: fc.array(cancelAttempt, { maxLength: 5 }),
  after: fc.array(cancelAttempt, { minLength: 1, maxLength: 3 }),
});

async function cancelAttempts(
  task: ModelledTask,
  attempts: readonly CancelAttempt[],
  sent: { expectedRevision: number; reason?: string }[],
): Promise<void> {
  for (const attempt of attempts) {
    const tuple =
      attempt.kind === 'replay' && sent.length > 0
        ? sent[attempt.of % sent.length]
        : {
            expectedRevision: revisionOf(task, attempt.kind === 'fresh' ? attempt.revision : 'current'),
            ...(attempt.kind === 'fresh' && attempt.reason !== undefined ? { reason: attempt.reason } : {}),
          };
    if (tuple === undefined) continue;
    sent.push(tuple);
    await task.cancel(tuple);
  }
}

/**
 * cancellation.model-revisions: a task that reports progress and then waits until cancelled gets
 * a random sequence of cancellations; the model decides each answer. Once one is accepted the task
 * settles, and a second sequence (replays and other tuples) meets the settled task.
 */
export async function checkCancellationRevisions(
  context: CaseContext,
  runs: readonly [number, number],
): Promise<void> {
  const target = conformanceTarget(context);
  const session = new TaskSession(context, await context.callers.local(), target);
  await requireToolFeatures(session, 'script', ['cancel', 'progress']);
  await checkPlans(context, runs, cancelPlan, async (plan) => {
    const { accepted, exchange } = await session.start('script', {
      steps: [{ progress: { percent: 10 } }, { wait: {} }],
    });
    const task = new ModelledTask(session, accepted.taskId, exchange);
    try {
      // The progress event is the last the task sends before it waits: from then on it is still.
      await session.awaitEvent(accepted.taskId, 'progress');
      task.sync();
      const sent: { expectedRevision: number; reason?: string }[] = [];
      await cancelAttempts(task, plan.before, sent);
      if (task.model.cancellation === undefined)
        await cancelAttempts(task, [{ kind: 'fresh', revision: 'current' }], sent);
      await task.awaitTerminal();
      await cancelAttempts(task, plan.after, sent);
      await task.checkRecovery();
    } finally {
      await task.settle();
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Interactive input

const ANSWER_SCHEMA: JsonValue = {
  type: 'object',
  properties: { n: { type: 'integer' } },
  required: ['n'],
  additionalProperties: false,
};

type InputAttempt =
  | {
      readonly kind: 'fresh';
      readonly request: 'pending' | 'previous' | 'unknown';
      readonly revision: RevisionChoice;
      readonly valid: boolean;
      readonly n: number;
    }
  | { readonly kind: 'replay'; readonly of: number };

const inputAttempt: fc.Arbitrary<InputAttempt> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('fresh' as const),
      request: fc.constantFrom('pending' as const, 'previous' as const, 'unknown' as const),
      revision: fc.constantFrom(...REVISION_CHOICES),
      valid: fc.boolean(),
      n: fc.integer({ min: 0, max: 3 }),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant('replay' as const), of: fc.nat(7) }), weight: 1 },
);

interface SentInput {
  readonly requestId: string;
  readonly expectedRevision: number;
  readonly input: JsonValue;
  readonly valid: boolean;
}

function requestIdFor(
  task: ModelledTask,
  choice: 'pending' | 'previous' | 'unknown',
  unknown: string,
): string {
  const requests = task.model.inputRequests;
  const pending = requests.find((request) => request.disposition.kind === 'pending');
  if (choice === 'pending' && pending !== undefined) return pending.requestId;
  const previous = requests.filter((request) => request !== pending).at(-1);
  if (choice !== 'unknown' && previous !== undefined) return previous.requestId;
  return unknown;
}

/**
 * interactive-input.model-revisions: a task asking twice for input (after progress) gets a random
 * sequence of answers to the pending, an earlier or an unknown request, valid or not, at revisions
 * below, at and above the current one, and replays; the model decides each answer. The task then
 * completes with exactly the inputs that were accepted (none applied twice), and replays and
 * other tuples meet the completed task.
 */
export async function checkInputRevisions(
  context: CaseContext,
  runs: readonly [number, number],
): Promise<void> {
  const target = conformanceTarget(context);
  const session = new TaskSession(context, await context.callers.local(), target);
  await requireToolFeatures(session, 'script', ['input', 'progress']);
  const ask = (question: string): JsonValue => ({ input: { question, inputSchema: ANSWER_SCHEMA } });
  await checkPlans(
    context,
    runs,
    fc.record({
      before: fc.array(inputAttempt, { maxLength: 6 }),
      after: fc.array(inputAttempt, { minLength: 1, maxLength: 3 }),
    }),
    async (plan) => {
      const { accepted, exchange } = await session.start('script', {
        steps: [
          { progress: { percent: 5 } },
          ask('First?'),
          ask('Second?'),
          { complete: { echoInputs: true } },
        ],
      });
      const task = new ModelledTask(session, accepted.taskId, exchange);
      const sent: SentInput[] = [];
      const acceptedInputs: JsonValue[] = [];
      const attempt = async (attempts: readonly InputAttempt[]): Promise<void> => {
        for (const drawn of attempts) {
          // After an acceptance the task runs on to its next request or its end: wait for it.
          if (task.model.state === 'running') await task.awaitBeyond();
          // Zero-padded: an ID the task never issued must still keep the identifier grammar
          // (22-128 characters), or the request cannot even be built.
          const unknown = `model-unknown-${String(context.random.int(0, 1e9)).padStart(10, '0')}`;
          const next: SentInput | undefined =
            drawn.kind === 'replay'
              ? sent[drawn.of % Math.max(1, sent.length)]
              : {
                  requestId: requestIdFor(task, drawn.request, unknown),
                  expectedRevision: revisionOf(task, drawn.revision),
                  input: drawn.valid ? { n: drawn.n } : { n: String(drawn.n) },
                  valid: drawn.valid,
                };
          if (next === undefined) continue;
          sent.push(next);
          const before = task.model.revision;
          const { matched } = await task.provideInput(
            next.requestId,
            next.expectedRevision,
            next.input,
            next.valid,
          );
          if (matched.answer.kind === 'input-accepted' && matched.answer.revision > before)
            acceptedInputs.push(next.input);
        }
      };
      try {
        await session.awaitInputOrTerminal(accepted.taskId);
        task.sync();
        await attempt(plan.before);
        // Answer whatever is still asked, at the current revision, until the task completes.
        while (!isTerminal(task.model.state)) {
          if (task.model.state === 'running') {
            await task.awaitBeyond();
            continue;
          }
          await attempt([{ kind: 'fresh', request: 'pending', revision: 'current', valid: true, n: 9 }]);
        }
        const history = await session.awaitSettled(accepted.taskId);
        const expected = JSON.stringify({ inputs: acceptedInputs });
        const result = terminalPayload(history).payload;
        const structured =
          typeof result === 'object' && result !== null && !Array.isArray(result)
            ? JSON.stringify(
                (result['result'] as Record<string, JsonValue> | undefined)?.['structuredContent'],
              )
            : '';
        expectThat(
          `${history.at(-1)?.stanza.xml ?? ''}\n--- stanzas:\n${task.transcript()}`,
          'interactive-input.identical-replay',
          `completed echoing exactly the accepted inputs, each once: ${expected}`,
          structured === expected,
        );
        await attempt(plan.after);
        await task.checkRecovery();
      } finally {
        await task.settle();
      }
    },
  );
}
