/**
 * #events and #event-json-schemas: one event per committed transition or progress update at
 * revisions 1, 2, 3, … (identical repeats allowed; progress updates may be coalesced, never
 * invented), payloads valid against the event schema of their type with XEP-0082 date-times,
 * progress percent kept in range, the complete result envelope preserved, isError results
 * completed, outputSchema enforced before completion, failures with a stable qualified code,
 * and an <event/> of another namespace not taken for a task event.
 */
import { xml } from '@xmpp/xml';
import { failureCodeViolation, isReservedFailureCode } from '../../../protocol/events/index.ts';
import { canonicalJson } from '../../../protocol/json/canonical.ts';
import { isJsonObject, type JsonValue } from '../../../protocol/json/json-value.ts';
import { defineSuite } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectThat } from '../../framework/expect.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import { eventPayload, terminalPayload } from '../support/task-events.ts';
import { expectTaskResult, expectTaskState } from '../support/task-replies.ts';
import { TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { requireToolFeatures } from '../support/tool-features.ts';
import { linkFaultCases } from './link-faults.ts';

/** Two progress updates a task reports in this order (docs/conformance-tools.md, progress). */
const SCRIPTED_PROGRESS = [
  { percent: 25, stage: 'fetch' },
  { percent: 75, message: 'almost' },
] as const;

/** A failure as the tool reports it: the failed event carries exactly this error. */
const FAILURE = { code: 'org.agentconf.suite:broken', message: 'it broke', retryable: false } as const;

const RESULT = {
  content: [{ type: 'text', text: 'done' }],
  structuredContent: { value: 'done' },
  _meta: { 'org.example/trace': 'abc' },
};

async function settledPayload(
  context: CaseContext,
  tool: string,
  args: JsonValue,
): Promise<{ state: string; payload: JsonValue; xml: string }> {
  const target = conformanceTarget(context);
  const caller = await context.callers.local();
  const tasks = new TaskSession(context, caller, target);
  const { accepted } = await tasks.start(tool, args);
  const history = await tasks.awaitSettled(accepted.taskId);
  const { state, payload } = terminalPayload(history);
  return { state, payload, xml: history.at(-1)?.stanza.xml ?? '' };
}

export const eventsSuite = defineSuite('events', 'Lifecycle Events', [
  {
    id: 'events.revisions-one-per-commit',
    requirements: [
      'events.revision-increments',
      'event-json-schemas.payloads-valid',
      'event-json-schemas.datetime-xep0082',
      'events.progress-nondecreasing',
      'events.replay-identical',
      'task-states.permitted-transitions',
    ],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-06', 'interp-31', 'interp-34', 'interp-41'],
    statement:
      'A task with two progress updates and a completion produces one event per committed revision from 1 upwards without gaps, each a permitted transition or a progress update with a valid payload (a revision sent again must repeat its event ID, type and canonical payload, as every task case checks); each progress event is one of the scripted updates, unchanged and in order (a gateway may coalesce or drop updates to rate-limit them, #security, and one without effective progress support sends none), and the completed event carries the complete result envelope (with the summary, if any, as scripted).',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const { accepted } = await tasks.start('script', {
        steps: [
          ...SCRIPTED_PROGRESS.map((progress) => ({ progress })),
          { complete: { ...RESULT, summary: 'ok' } },
        ],
      });
      const history = await tasks.awaitSettled(accepted.taskId);
      const transcript = history.map((received) => received.stanza.xml).join('\n');
      const progress = history.filter((received) => received.event.type === 'progress').map(eventPayload);
      // Coalescing may drop any update, never reorder, repeat or invent one.
      let next = 0;
      const consistent = progress.every((payload) => {
        const index = SCRIPTED_PROGRESS.findIndex(
          (scripted, position) => position >= next && canonicalJson(scripted) === canonicalJson(payload),
        );
        next = index + 1;
        return index >= 0;
      });
      expectThat(
        transcript,
        'events.revision-increments',
        `progress events that are scripted updates (${SCRIPTED_PROGRESS.map((scripted) => canonicalJson(scripted)).join(' then ')}), each unchanged, at most once and in order`,
        consistent,
      );
      const { state, payload } = terminalPayload(history);
      const summary = isJsonObject(payload) ? payload['summary'] : undefined;
      expectThat(
        transcript,
        'event-json-schemas.payloads-valid',
        `completed with the result ${canonicalJson(RESULT)} and the summary "ok" or none`,
        state === 'completed' &&
          isJsonObject(payload) &&
          canonicalJson(payload['result'] ?? null) === canonicalJson(RESULT) &&
          (summary === undefined || summary === 'ok') &&
          Object.keys(payload).every((member) => member === 'result' || member === 'summary'),
      );
    },
  },
  {
    id: 'events.progress-percent-range',
    requirements: ['events.progress-percent-range'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    statement:
      'A tool reporting percents of 40, then 150 and -5, gets no progress event with a percent outside 0 to 100 (progress is advisory: dropping or clamping the out-of-range ones is allowed); the in-range update is reported, which shows the gateway emits progress at all (otherwise the case cannot tell).',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      await requireToolFeatures(tasks, 'script', ['progress']);
      // The waits give a gateway that rate-limits progress (#security) time to send what it holds.
      const { accepted } = await tasks.start('script', {
        steps: [
          { progress: { percent: 40 } },
          { wait: { ms: 200 } },
          { progress: { percent: 150 } },
          { progress: { percent: -5 } },
          { wait: { ms: 200 } },
          { complete: {} },
        ],
      });
      const history = await tasks.awaitSettled(accepted.taskId);
      const transcript = history.map((received) => received.stanza.xml).join('\n');
      const percents = history
        .filter((received) => received.event.type === 'progress')
        .map((received) => {
          const payload = eventPayload(received);
          return isJsonObject(payload) ? payload['percent'] : undefined;
        });
      expectThat(
        transcript,
        'events.progress-percent-range',
        'no progress event with a percent outside 0 to 100',
        percents.every(
          (percent) =>
            percent === undefined || (typeof percent === 'number' && percent >= 0 && percent <= 100),
        ),
      );
      if (!percents.includes(40)) {
        throw new CannotTell(
          'no progress event for the in-range update (percent 40) either: without one, the absence of out-of-range percents shows nothing',
        );
      }
    },
  },
  {
    id: 'events.iserror-is-completed',
    requirements: ['events.iserror-is-completed'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-40'],
    statement: 'A tool result with isError true settles the task completed with that result, never failed.',
    run: async (context) => {
      const result = { content: [{ type: 'text', text: 'the tool reports an error' }], isError: true };
      const settled = await settledPayload(context, 'script', { steps: [{ complete: result }] });
      expectThat(
        settled.xml,
        'events.iserror-is-completed',
        `completed with ${canonicalJson({ result })}`,
        settled.state === 'completed' && canonicalJson(settled.payload) === canonicalJson({ result }),
      );
    },
  },
  {
    id: 'events.output-schema-validated',
    requirements: ['events.output-schema-validated'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-40'],
    statement:
      'For a tool with an outputSchema, valid structuredContent completes, while invalid or missing structuredContent in a non-error result never completes (failed with any code).',
    run: async (context) => {
      const valid = await settledPayload(context, 'script.typed', {
        steps: [{ complete: { structuredContent: { value: 'x' } } }],
      });
      expectThat(
        valid.xml,
        'events.output-schema-validated',
        'completed for {"value":"x"}',
        valid.state === 'completed',
      );
      for (const complete of [{ structuredContent: { value: 1 } }, {}]) {
        const invalid = await settledPayload(context, 'script.typed', { steps: [{ complete }] });
        expectThat(
          invalid.xml,
          'events.output-schema-validated',
          `failed (not completed) for ${JSON.stringify(complete)}`,
          invalid.state === 'failed',
        );
      }
    },
  },
  {
    id: 'events.failed-event-shape',
    requirements: ['errors.failed-event-shape', 'errors.qualified-codes'],
    profiles: ['task-execution'],
    level: 'MUST',
    statement:
      "A tool failure is reported as failed with its qualified code and retryable flag, a message (the tool's, or a safe one of the gateway's) and its details or none; an unqualified code a tool reports is never sent as such.",
    run: async (context) => {
      const error = {
        code: 'org.example.suite:quota',
        message: 'Quota exhausted.',
        retryable: true,
        details: { 'org.example.suite:limit': 3 },
      };
      const failed = await settledPayload(context, 'script', { steps: [{ fail: error }] });
      // The spec asks for a stable code, a safe message and the flag: a gateway may word the
      // message itself and leave optional details out, never change code or flag.
      const reported = isJsonObject(failed.payload) ? failed.payload['error'] : undefined;
      expectThat(
        failed.xml,
        'errors.failed-event-shape',
        `failed with code ${error.code}, retryable true, a non-empty message and the details ${canonicalJson(error.details)} or none`,
        failed.state === 'failed' &&
          isJsonObject(reported) &&
          reported['code'] === error.code &&
          reported['retryable'] === error.retryable &&
          typeof reported['message'] === 'string' &&
          reported['message'] !== '' &&
          (reported['details'] === undefined ||
            canonicalJson(reported['details']) === canonicalJson(error.details)),
      );
      const unqualified = await settledPayload(context, 'script', {
        steps: [{ fail: { code: 'quota', message: 'Quota exhausted.', retryable: false } }],
      });
      const payloadError = isJsonObject(unqualified.payload) ? unqualified.payload['error'] : undefined;
      const code = isJsonObject(payloadError) ? payloadError['code'] : undefined;
      expectThat(
        unqualified.xml,
        'errors.qualified-codes',
        'no failure code other than a reserved or namespace-qualified one',
        typeof code !== 'string' || isReservedFailureCode(code) || failureCodeViolation(code) === undefined,
      );
    },
  },
  {
    id: 'events.unknown-namespace-event',
    requirements: ['events.unknown-namespace-event', 'events.unknown-namespace-error-condition'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-42'],
    statement:
      'A message whose only child is an <event/> of another namespace is ignored or answered with a stanza error (service-unavailable recommended), never taken for a task event.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const since = caller.inbound.length;
      const id = `ns-event-${context.random.string('abcdefghijklmnopqrstuvwxyz', 12)}`;
      await caller.send(
        xml(
          'message',
          { to: target.jid, id, type: 'normal' },
          xml('event', { xmlns: 'urn:example:other-events:0' }, '{}'),
        ),
      );
      // Stanzas on one route arrive in order: once a later IQ is answered, any reply has come.
      await caller.exchangeIq(
        target.jid,
        'get',
        xml('query', { xmlns: 'http://jabber.org/protocol/disco#info' }),
      );
      const replies = caller.inbound
        .slice(since)
        .filter((stanza) => stanza.name === 'message' && stanza.id === id);
      // Silence is one of the two permitted answers, and the barrier above makes it an observed one.
      expectThat(
        replies.length === 0
          ? '(nothing before the disco#info reply)'
          : replies.map((reply) => reply.xml).join('\n'),
        'events.unknown-namespace-event',
        'nothing, or a message of type error',
        replies.every((reply) => reply.type === 'error'),
      );
      for (const reply of replies) {
        if (!reply.xml.includes('service-unavailable')) {
          context.warn('events.unknown-namespace-error-condition', 'the error is not <service-unavailable/>');
        }
      }
    },
  },
  {
    id: 'events.revision-on-failure',
    requirements: ['events.revision-increments', 'task-recovery.state-contents'],
    profiles: ['task-execution'],
    level: 'MUST',
    statement:
      'A task that runs, then fails, commits its failed event at the revision one above the running status event, and task-state and task-result both report that revision and the failure as the tool reported it.',
    run: async (context) => {
      const tasks = new TaskSession(context, await context.callers.local(), conformanceTarget(context));
      const { accepted } = await tasks.start('script', { steps: [{ fail: FAILURE }] });
      // awaitSettled already holds every revision to one event, 1, 2, 3… without gaps.
      const history = await tasks.awaitSettled(accepted.taskId);
      const failed = history.at(-1);
      const before = history.at(-2)?.event.revision ?? 0;
      const transcript = history.map((received) => received.stanza.xml).join('\n');
      expectThat(
        transcript,
        'events.revision-increments',
        `the failed event at revision ${String(before + 1)}, one above the event before it, with the scripted failure`,
        failed?.event.type === 'failed' &&
          failed.event.revision === before + 1 &&
          canonicalJson(eventPayload(failed)) === canonicalJson({ error: FAILURE }),
      );
      if (failed === undefined) return;
      const stateExchange = await tasks.state(accepted.taskId);
      const state = expectTaskState(stateExchange, 'task-recovery.state-contents');
      expectThat(
        stateExchange.reply.xml,
        'events.revision-increments',
        `<task-state/> failed at revision ${String(failed.event.revision)}`,
        state.state === 'failed' && state.revision === failed.event.revision,
      );
      const resultExchange = await tasks.result(accepted.taskId);
      const result = expectTaskResult(resultExchange, 'task-recovery.state-contents');
      expectThat(
        resultExchange.reply.xml,
        'events.revision-increments',
        `<task-result/> failed at revision ${String(failed.event.revision)}`,
        result.state === 'failed' && result.revision === failed.event.revision,
      );
    },
  },
  ...linkFaultCases,
]);
