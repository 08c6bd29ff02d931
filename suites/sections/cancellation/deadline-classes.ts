/**
 * Deadlines in the forms and states no other case reaches (suites/registry/input-classes.json):
 * a deadline written with Z and one with a negative numeric offset are both taken as the instant
 * they name (#cancellation: XEP-0082, offsets applied), and a deadline that arrives while the task
 * waits for input or while its cancellation is pending settles it once, as deadline-expired.
 */
import {
  compareInstants,
  dateTimeFromMillis,
  parseDateTime,
  toEpochMillis,
  type XmppDateTime,
} from '../../../protocol/datetime.ts';
import { isJsonObject, type JsonValue } from '../../../protocol/json/json-value.ts';
import type { CaseDeclaration } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectStanzaError, expectThat } from '../../framework/expect.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import { measureGatewayClock } from '../support/gateway-clock.ts';
import { inputRequestId, terminalPayload } from '../support/task-events.ts';
import { expectCancelAccepted, expectTaskState } from '../support/task-replies.ts';
import { TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { requireToolFeatures } from '../support/tool-features.ts';

/** Far enough ahead that no tool maximum of the conformance tools clamps it (60 s and more). */
const DISTANT_MS = 30_000;

/** How far ahead of the gateway's clock the deadlines that must arrive are placed. */
const NEAR_MS = 300;

function failureCode(payload: JsonValue | undefined): JsonValue | undefined {
  const error = isJsonObject(payload ?? null) ? (payload as Record<string, JsonValue>)['error'] : undefined;
  return isJsonObject(error ?? null) ? (error as Record<string, JsonValue>)['code'] : undefined;
}

/** `millis` in the lexical form `write` gives it, parsed as the caller sends it. */
function written(millis: number, write: (iso: string) => string): XmppDateTime {
  return parseDateTime(write(new Date(millis).toISOString()));
}

/** UTC with the Z designator and milliseconds. */
const zulu = (iso: string): string => `${iso.slice(0, 23)}Z`;

/** The same instant as local time at −07:00: the offset's sign matters, not only its presence. */
function minusSeven(iso: string): string {
  const local = new Date(Date.parse(iso) - 7 * 3_600_000).toISOString();
  return `${local.slice(0, 23)}-07:00`;
}

/**
 * A deadline in one lexical form is admitted and task-state reports the very instant it names
 * (interp-32 lets a gateway clamp one beyond a tool maximum, which DISTANT_MS stays within).
 */
function deadlineTakenCase(
  id: `cancellation.${string}`,
  form: string,
  write: (iso: string) => string,
): CaseDeclaration<'cancellation'> {
  return {
    id,
    requirements: [
      'cancellation.deadline-format',
      'cancellation.exact-instant-comparison',
      'task-recovery.state-contents',
    ],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-31', 'interp-32'],
    statement: `A deadline written ${form}, ${String(DISTANT_MS / 1000)} s ahead on the gateway's clock, is admitted and task-state reports it as the same instant.`,
    run: async (context) => {
      const tasks = new TaskSession(context, await context.callers.local(), conformanceTarget(context));
      const clock = await measureGatewayClock(tasks);
      const deadline = written(toEpochMillis(clock.ahead(DISTANT_MS)), write);
      const { accepted } = await tasks.start(
        'script',
        { steps: [{ complete: {} }] },
        { deadline },
        'cancellation.deadline-format',
      );
      await tasks.awaitSettled(accepted.taskId);
      const exchange = await tasks.state(accepted.taskId);
      const state = expectTaskState(exchange, 'task-recovery.state-contents');
      expectThat(
        exchange.reply.xml,
        'task-recovery.state-contents',
        `<task-state/> with the deadline the task was admitted with (${deadline.text})`,
        state.deadline !== undefined,
      );
      if (state.deadline === undefined) return;
      if (compareInstants(state.deadline, deadline) < 0) {
        throw new CannotTell(
          `task-state reports ${state.deadline.text}, before the requested ${deadline.text}: clamped to a maximum (interp-32), so whether the form was read right cannot be seen`,
        );
      }
      expectThat(
        exchange.reply.xml,
        'cancellation.exact-instant-comparison',
        `a deadline naming the instant of ${deadline.text} (${dateTimeFromMillis(toEpochMillis(deadline)).text})`,
        compareInstants(state.deadline, deadline) === 0,
      );
    },
  };
}

/** How long after the deadline the tool tries its mutation (its wait ends on the gateway's clock). */
const LATE_MS = 100;

/**
 * A task whose tool, after waiting until just past the deadline, tries `late` (a progress update,
 * an input request) and then completes: the deadline settles it failed with deadline-expired, and
 * neither the late mutation nor the completion is committed, whether the gateway's timer or its
 * commit-boundary check gets there first.
 */
function lateMutationCase(
  id: `cancellation.${string}`,
  what: string,
  late: JsonValue,
  type: string,
  features: readonly Parameters<typeof requireToolFeatures>[2][number][],
): CaseDeclaration<'cancellation'> {
  return {
    id,
    requirements: ['cancellation.deadline-at-commit', 'cancellation.deadline-expiry'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    interpretations: ['interp-30'],
    statement: `A tool that ${what} ${String(LATE_MS)} ms after its task's deadline (${String(NEAR_MS)} ms ahead on the gateway's clock), then completes: the task settles failed with deadline-expired, with no ${type} event and no completion.`,
    run: async (context) => {
      const tasks = new TaskSession(context, await context.callers.local(), conformanceTarget(context));
      await requireToolFeatures(tasks, 'script', features);
      const clock = await measureGatewayClock(tasks);
      const deadline = clock.ahead(NEAR_MS);
      const until = dateTimeFromMillis(toEpochMillis(deadline) + LATE_MS).text;
      const { accepted } = await tasks.start(
        'script',
        { steps: [{ wait: { until, onCancel: 'ignore' } }, late, { complete: {} }] },
        { deadline },
        'cancellation.deadline-expiry',
      );
      const history = await tasks.awaitSettled(accepted.taskId, {
        requirement: 'cancellation.deadline-expiry',
        expected: 'failed with deadline-expired once the deadline passed',
      });
      const { state, payload } = terminalPayload(history);
      expectThat(
        history.map((received) => received.stanza.xml).join('\n'),
        'cancellation.deadline-at-commit',
        `failed with code deadline-expired and no ${type} event: the ${type} came after the deadline`,
        state === 'failed' &&
          failureCode(payload) === 'deadline-expired' &&
          history.every((received) => received.event.type !== type),
      );
    },
  };
}

export const deadlineClassCases: readonly CaseDeclaration<'cancellation'>[] = [
  deadlineTakenCase('cancellation.deadline-utc-designator-taken', 'in UTC with the Z designator', zulu),
  deadlineTakenCase(
    'cancellation.deadline-negative-offset-taken',
    'with the numeric offset −07:00',
    minusSeven,
  ),
  {
    id: 'cancellation.deadline-while-waiting-for-input',
    requirements: ['cancellation.deadline-expiry', 'interactive-input.race-loser-conflict'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    interpretations: ['interp-30', 'interp-37'],
    statement: `A task waiting for input when its deadline (${String(NEAR_MS)} ms ahead on the gateway's clock) arrives settles failed with deadline-expired, once; an answer to its request after that gets conflict.`,
    run: async (context) => {
      const tasks = new TaskSession(context, await context.callers.local(), conformanceTarget(context));
      await requireToolFeatures(tasks, 'script', ['input']);
      const clock = await measureGatewayClock(tasks);
      const { accepted } = await tasks.start(
        'script',
        {
          steps: [
            { input: { question: 'Still there?', inputSchema: { type: 'object' }, expiresInMs: 600_000 } },
            { complete: { echoInputs: true } },
          ],
        },
        { deadline: clock.ahead(NEAR_MS) },
        'cancellation.deadline-expiry',
      );
      const asked = await tasks.awaitInputOrTerminal(accepted.taskId);
      if (asked.event.type !== 'input_required') {
        throw new CannotTell(
          `the task settled (${asked.event.type}) before it asked for input: the deadline came too soon to find it waiting`,
        );
      }
      const history = await tasks.awaitSettled(accepted.taskId, {
        requirement: 'cancellation.deadline-expiry',
        expected: 'failed with deadline-expired once the deadline passed, the input request still pending',
      });
      const { state, payload } = terminalPayload(history);
      expectThat(
        history.at(-1)?.stanza.xml ?? '',
        'cancellation.deadline-expiry',
        'failed with code deadline-expired',
        state === 'failed' && failureCode(payload) === 'deadline-expired',
      );
      const late = await tasks.provideInput(accepted.taskId, inputRequestId(asked), asked.event.revision, {});
      expectConflictWhileRetained(context, late, clock.reachedBy(accepted.retainUntil));
    },
  },
  {
    id: 'cancellation.deadline-while-cancelling',
    requirements: ['cancellation.deadline-expiry', 'task-states.terminal-immutable'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    interpretations: ['interp-30', 'interp-33'],
    statement: `A task whose accepted cancellation the tool ignores is still cancelling when its deadline (${String(NEAR_MS)} ms ahead on the gateway's clock) arrives: it settles once, failed with deadline-expired, unless the gateway settled the cancellation itself before the deadline (cancelled, updated before it).`,
    run: async (context) => {
      const tasks = new TaskSession(context, await context.callers.local(), conformanceTarget(context));
      await requireToolFeatures(tasks, 'script', ['cancel']);
      const clock = await measureGatewayClock(tasks);
      const deadline = clock.ahead(NEAR_MS);
      const { accepted } = await tasks.start(
        'script',
        { steps: [{ wait: { onCancel: 'ignore' } }, { complete: {} }] },
        { deadline },
        'cancellation.deadline-expiry',
      );
      const running = await tasks.awaitEvent(accepted.taskId, 'status');
      const cancel = await tasks.cancel(accepted.taskId, running.event.revision);
      // Refused only because the deadline came first (a slow machine): nothing to judge.
      if (cancel.parsed.type === 'error' && Date.now() >= clock.notBefore(deadline)) {
        await tasks.awaitSettled(accepted.taskId);
        throw new CannotTell(
          'the cancellation may have arrived after the deadline: the task was never cancelling at it',
        );
      }
      expectCancelAccepted(cancel, 'cancellation.deadline-expiry');
      // awaitSettled holds the history to one terminal event, at its highest revision.
      const history = await tasks.awaitSettled(accepted.taskId, {
        requirement: 'cancellation.deadline-expiry',
        expected: 'settled once the deadline passed, the cancellation still pending',
      });
      const { state, payload } = terminalPayload(history);
      const xml = history.map((received) => received.stanza.xml).join('\n');
      if (state === 'cancelled') {
        // Only a cancellation the gateway committed before the deadline may end it so.
        const exchange = await tasks.state(accepted.taskId);
        if (exchange.parsed.type === 'error' && Date.now() >= clock.reachedBy(accepted.retainUntil)) {
          throw new CannotTell(
            'task-state was asked after the task’s retain-until: it may have been forgotten',
          );
        }
        const settled = expectTaskState(exchange, 'cancellation.deadline-expiry');
        expectThat(
          `${xml}\n${exchange.reply.xml}`,
          'cancellation.deadline-expiry',
          `cancelled only by a commit before the deadline ${deadline.text}; at or after it, failed with deadline-expired`,
          compareInstants(settled.updated, deadline) < 0,
        );
        return;
      }
      expectThat(
        xml,
        'cancellation.deadline-expiry',
        'failed with code deadline-expired (the cancellation was still pending)',
        state === 'failed' && failureCode(payload) === 'deadline-expired',
      );
    },
  },
  lateMutationCase(
    'cancellation.progress-after-deadline',
    'reports progress',
    { progress: { percent: 50, message: 'late' } },
    'progress',
    ['progress'],
  ),
  lateMutationCase(
    'cancellation.input-request-after-deadline',
    'asks for input',
    { input: { question: 'Too late?', inputSchema: { type: 'object' } } },
    'input_required',
    ['input'],
  ),
];

/**
 * An answer after settlement is a race loser: conflict. Past the task's retain-until the gateway
 * may have forgotten it (item-not-found), which then cannot be told from a refusal for the race.
 */
function expectConflictWhileRetained(
  context: CaseContext,
  late: Awaited<ReturnType<TaskSession['provideInput']>>,
  forgettableAt: number,
): void {
  if (
    late.parsed.type === 'error' &&
    late.parsed.error.condition === 'item-not-found' &&
    Date.now() >= forgettableAt
  ) {
    throw new CannotTell('the answer arrived after the task’s retain-until: it may have been forgotten');
  }
  expectStanzaError(late, 'interactive-input.race-loser-conflict', 'conflict', context);
}
