/**
 * #interactive-input: the pending request in every task state, schema-invalid input refused
 * with not-acceptable, acceptance at the revision of the running status event, identical
 * replays returning the original acceptance (also after settlement), other tuples, unknown
 * request IDs, expired and superseded requests (conflict, never item-not-found), and expiry
 * handled by a new request or a settlement.
 */
import { dateTimeFromMillis, parseDateTime, toEpochMillis } from '../../../protocol/datetime.ts';
import { canonicalJson } from '../../../protocol/json/canonical.ts';
import { isJsonObject, type JsonValue } from '../../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import type { IqExchange, ValidTaskEvent } from '../../../harness/driver/index.ts';
import { defineSuite } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectStanzaError, expectThat } from '../../framework/expect.ts';
import { passOnGatewayClock } from '../support/gateway-clock.ts';
import { terminalPayload } from '../support/task-events.ts';
import { expectCancelAccepted, expectInputAccepted, expectTaskState } from '../support/task-replies.ts';
import { freshRequestId, TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { requireToolFeatures } from '../support/tool-features.ts';
import { expiryInstantCases } from './expiry-instants.ts';
import { modelCases } from './model-checks.ts';
import { raceCases } from './races.ts';

const UNIT_SCHEMA = { type: 'object', properties: { unit: { enum: ['C', 'F'] } }, required: ['unit'] };

function requestIdOf(received: ValidTaskEvent): string {
  const payload = parseStrictJson(received.event.json);
  return isJsonObject(payload) && typeof payload['requestId'] === 'string' ? payload['requestId'] : '';
}

const isRunning = (payload: JsonValue): boolean => isJsonObject(payload) && payload['state'] === 'running';

/** An input request the task is waiting on, as the caller answers it. */
interface PendingInput {
  readonly tasks: TaskSession;
  readonly taskId: string;
  readonly requestId: string;
  /** The revision of the input_required event: the expected revision an answer names. */
  readonly revision: number;
}

const answerTo = (pending: PendingInput, revision: number, answer: JsonValue | string): Promise<IqExchange> =>
  pending.tasks.provideInput(pending.taskId, pending.requestId, revision, answer);

/** While input is pending, task-state carries the input_required object and task-result is refused. */
async function expectPendingInState(
  context: CaseContext,
  pending: PendingInput,
  asked: ValidTaskEvent,
): Promise<void> {
  const stateExchange = await pending.tasks.state(pending.taskId);
  const state = expectTaskState(stateExchange, 'interactive-input.pending-in-state');
  expectThat(
    stateExchange.reply.xml,
    'interactive-input.pending-in-state',
    `state='input_required' with <pending-input/> holding the input_required object ${asked.event.json}`,
    state.state === 'input_required' &&
      state.pendingInputJson !== undefined &&
      canonicalJson(parseStrictJson(state.pendingInputJson)) ===
        canonicalJson(parseStrictJson(asked.event.json)),
  );
  expectStanzaError(
    await pending.tasks.result(pending.taskId),
    'task-recovery.result-only-terminal',
    'unexpected-request',
    context,
  );
}

/** Schema-invalid input, an unknown request ID and a stale expected revision are each refused. */
async function expectBadAnswersRefused(context: CaseContext, pending: PendingInput): Promise<void> {
  const { tasks, taskId, revision } = pending;
  expectStanzaError(
    await answerTo(pending, revision, { unit: 'K' }),
    'interactive-input.schema-invalid-not-acceptable',
    'not-acceptable',
    context,
  );
  expectStanzaError(
    await tasks.provideInput(taskId, freshRequestId(context), revision, { unit: 'C' }),
    'interactive-input.unknown-request-not-found',
    'item-not-found',
    context,
  );
  // A valid answer naming a revision that is no longer current (the input_required commit came
  // after it) is stale: conflict, and it must not be taken.
  expectStanzaError(
    await answerTo(pending, revision - 1, { unit: 'C' }),
    'interactive-input.stale-revision-conflict',
    'conflict',
    context,
  );
  // One naming a revision the task has not reached is refused too: conflict or bad-request
  // (interp-36). Neither is taken: the accepted answer later completes the task alone.
  expectStanzaError(
    await answerTo(pending, revision + 1, { unit: 'C' }),
    'interactive-input.stale-revision-conflict',
    ['conflict', 'bad-request'],
    context,
  );
}

/** The answer is accepted, the task resumes at the revision returned, and completes with it applied once. */
async function expectAnswerTakenOnce(
  context: CaseContext,
  pending: PendingInput,
  answer: JsonValue,
): Promise<ReturnType<typeof expectInputAccepted>> {
  const { tasks, taskId } = pending;
  const first = expectInputAccepted(
    await answerTo(pending, pending.revision, answer),
    'interactive-input.acceptance-retention',
  );
  const resumed = await tasks.awaitEvent(taskId, 'status', isRunning);
  expectThat(
    resumed.stanza.xml,
    'interactive-input.acceptance-retention',
    `the running status event at the revision input-accepted returned (${String(first.revision)}, interp-33)`,
    resumed.event.revision === first.revision,
  );
  const history = await tasks.awaitSettled(taskId);
  const { payload } = terminalPayload(history);
  expectThat(
    history.at(-1)?.stanza.xml ?? '',
    'interactive-input.acceptance-retention',
    'completed with the accepted answer applied once: {"inputs":[{"unit":"C"}]}',
    canonicalJson(payload) ===
      canonicalJson({ result: { content: [], structuredContent: { inputs: [answer] } } }),
  );
  return first;
}

/** After settlement: the identical tuple (reformatted JSON) is the original acceptance; another answer conflicts. */
async function expectReplayAfterSettlement(
  context: CaseContext,
  pending: PendingInput,
  first: ReturnType<typeof expectInputAccepted>,
): Promise<void> {
  const replay = await answerTo(pending, pending.revision, '{ "unit" : "C" }');
  const again = expectInputAccepted(replay, 'interactive-input.identical-replay');
  expectThat(
    replay.reply.xml,
    'interactive-input.identical-replay',
    `<input-accepted revision='${String(first.revision)}'/>`,
    again.taskId === first.taskId && again.revision === first.revision,
  );
  expectStanzaError(
    await answerTo(pending, pending.revision, { unit: 'F' }),
    'interactive-input.different-tuple-conflict',
    'conflict',
    context,
  );
}

export const interactiveInputSuite = defineSuite('interactive-input', 'Interactive Input', [
  {
    id: 'interactive-input.pending-answer-replay',
    requirements: [
      'interactive-input.pending-in-state',
      'interactive-input.identical-replay',
      'interactive-input.different-tuple-conflict',
      'interactive-input.acceptance-retention',
      'interactive-input.schema-invalid-not-acceptable',
      'interactive-input.unknown-request-not-found',
      'interactive-input.stale-revision-conflict',
      'task-recovery.result-only-terminal',
    ],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    interpretations: ['interp-33', 'interp-36', 'interp-37', 'interp-39'],
    statement:
      'While input is pending, task state carries the complete input_required object and the result is refused with unexpected-request; schema-invalid input gets not-acceptable, a valid answer naming a stale expected revision conflict, one naming a revision ahead conflict or bad-request; the accepted answer is replayed identically to the original acceptance (also after settlement), another answer gets conflict, an unknown request ID item-not-found.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      await requireToolFeatures(tasks, 'script', ['input']);
      const { accepted } = await tasks.start('script', {
        steps: [
          { input: { question: 'Which unit?', inputSchema: UNIT_SCHEMA, expiresInMs: 60_000 } },
          { complete: { echoInputs: true } },
        ],
      });
      const asked = await tasks.awaitEvent(accepted.taskId, 'input_required');
      const requestId = requestIdOf(asked);
      const pending: PendingInput = {
        tasks,
        taskId: accepted.taskId,
        requestId,
        revision: asked.event.revision,
      };
      await expectPendingInState(context, pending, asked);
      await expectBadAnswersRefused(context, pending);
      const answer = { unit: 'C' };
      const first = await expectAnswerTakenOnce(context, pending, answer);
      await expectReplayAfterSettlement(context, pending, first);
    },
  },
  {
    id: 'interactive-input.expiry-reissue-and-late-answers',
    requirements: [
      'interactive-input.expiry-outcome',
      'interactive-input.late-answer-conflict',
      'interactive-input.expiry-enforced',
      'interactive-input.race-loser-conflict',
    ],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    interpretations: ['interp-35', 'interp-37'],
    statement:
      'An expired input request is replaced by a new request with a new ID, then the task fails with the scripted failure when that one expires too; answers to either expired request get conflict.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      await requireToolFeatures(tasks, 'script', ['input']);
      const expiryFailure = {
        code: 'org.example.suite:no-answer',
        message: 'Nobody answered.',
        retryable: false,
      };
      const { accepted } = await tasks.start('script', {
        steps: [
          {
            input: {
              question: 'Still there?',
              inputSchema: { type: 'object' },
              expiresInMs: 150,
              reissue: 1,
              expiryFailure,
            },
          },
          { complete: { echoInputs: true } },
        ],
      });
      const firstAsk = await tasks.awaitEvent(accepted.taskId, 'input_required');
      const secondAsk = await tasks.awaitEvent(accepted.taskId, 'input_required');
      expectThat(
        secondAsk.stanza.xml,
        'interactive-input.expiry-outcome',
        'a new request ID for the re-issued request',
        requestIdOf(firstAsk) !== requestIdOf(secondAsk),
      );
      const late = await tasks.provideInput(
        accepted.taskId,
        requestIdOf(firstAsk),
        secondAsk.event.revision,
        {},
      );
      expectStanzaError(late, 'interactive-input.late-answer-conflict', 'conflict', context);
      const history = await tasks.awaitSettled(accepted.taskId);
      const { state, payload } = terminalPayload(history);
      expectThat(
        history.at(-1)?.stanza.xml ?? '',
        'interactive-input.expiry-outcome',
        `failed with ${canonicalJson({ error: expiryFailure })}`,
        state === 'failed' && canonicalJson(payload) === canonicalJson({ error: expiryFailure }),
      );
      const afterSettlement = await tasks.provideInput(
        accepted.taskId,
        requestIdOf(secondAsk),
        secondAsk.event.revision,
        {},
      );
      expectStanzaError(afterSettlement, 'interactive-input.race-loser-conflict', 'conflict', context);
    },
  },
  {
    id: 'interactive-input.answer-after-expiry-refused',
    requirements: ['interactive-input.expiry-enforced'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    interpretations: ['interp-35', 'interp-37'],
    statement:
      "An answer sent once the request's expiresAt has passed on the gateway's clock gets conflict, whether or not the gateway has noticed the expiry yet: expiry is compared with the current instant, not left to a timer.",
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      await requireToolFeatures(tasks, 'script', ['input']);
      const { accepted } = await tasks.start('script', {
        steps: [
          { input: { question: 'Now or never?', inputSchema: { type: 'object' }, expiresInMs: 300 } },
          { complete: { echoInputs: true } },
        ],
      });
      const asked = await tasks.awaitEvent(accepted.taskId, 'input_required');
      const payload = parseStrictJson(asked.event.json);
      const expiresText = isJsonObject(payload) ? payload['expiresAt'] : undefined;
      if (typeof expiresText !== 'string') {
        expectThat(
          asked.stanza.xml,
          'interactive-input.expiry-enforced',
          'an input_required event with the expiresAt the tool asked for',
          false,
        );
        return;
      }
      const expiresAt = parseDateTime(expiresText);
      // Just past expiresAt by the gateway's own clock (a task of the conformance tools waits for it).
      await passOnGatewayClock(tasks, dateTimeFromMillis(toEpochMillis(expiresAt) + 20));
      const late = await tasks.provideInput(accepted.taskId, requestIdOf(asked), asked.event.revision, {});
      expectStanzaError(late, 'interactive-input.expiry-enforced', 'conflict', context);
    },
  },
  {
    id: 'interactive-input.cancellation-supersedes-input',
    requirements: ['interactive-input.race-loser-conflict'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    interpretations: ['interp-37'],
    statement: 'Once a cancellation committed, an answer to the pending input request gets conflict.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      await requireToolFeatures(tasks, 'script', ['input', 'cancel']);
      const { accepted } = await tasks.start('script', {
        steps: [{ input: { question: 'Go on?', inputSchema: { type: 'boolean' } } }, { complete: {} }],
      });
      const asked = await tasks.awaitEvent(accepted.taskId, 'input_required');
      expectCancelAccepted(
        await tasks.cancel(accepted.taskId, asked.event.revision),
        'interactive-input.race-loser-conflict',
      );
      const answer = await tasks.provideInput(
        accepted.taskId,
        requestIdOf(asked),
        asked.event.revision,
        true,
      );
      expectStanzaError(answer, 'interactive-input.race-loser-conflict', 'conflict', context);
      await tasks.awaitSettled(accepted.taskId);
    },
  },
  ...expiryInstantCases,
  ...raceCases,
  ...modelCases,
]);
