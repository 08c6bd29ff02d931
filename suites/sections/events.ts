/**
 * #events and #event-json-schemas: one event per committed transition or progress update at
 * revisions 1, 2, 3, … (identical repeats allowed), payloads valid against the event schema of
 * their type with XEP-0082 date-times, progress percent kept in range, the complete result
 * envelope preserved, isError results completed, outputSchema enforced before completion,
 * failures with a stable qualified code, and an <event/> of another namespace not taken for a
 * task event.
 */
import { xml } from '@xmpp/xml';
import { failureCodeViolation, isReservedFailureCode } from '../../protocol/events/index.ts';
import { canonicalJson } from '../../protocol/json/canonical.ts';
import { isJsonObject, type JsonValue } from '../../protocol/json/json-value.ts';
import { defineSuite } from '../framework/case.ts';
import type { CaseContext } from '../framework/context.ts';
import { expectThat } from '../framework/expect.ts';
import {
  awaitSettled,
  conformanceTarget,
  eventPayload,
  requireToolFeatures,
  startTask,
  terminalPayload,
} from './support/tasks.ts';

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
  const { accepted } = await startTask(context, caller, target, tool, args);
  const history = await awaitSettled(context, caller, accepted.taskId);
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
    ],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-06', 'interp-31', 'interp-34', 'interp-41'],
    statement:
      'Two progress updates and a completion produce one event per revision from 1 upwards, each with a valid payload (a revision the target sends again must repeat its event ID, type and canonical payload, as every task case checks); the progress events carry exactly the scripted members and the completed event the complete result envelope and summary.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      await requireToolFeatures(caller, target, 'script', ['progress']);
      const { accepted } = await startTask(context, caller, target, 'script', {
        steps: [
          { progress: { percent: 25, stage: 'fetch' } },
          { progress: { percent: 75, message: 'almost' } },
          { complete: { ...RESULT, summary: 'ok' } },
        ],
      });
      const history = await awaitSettled(context, caller, accepted.taskId);
      const transcript = history.map((received) => received.stanza.xml).join('\n');
      const progress = history.filter((received) => received.event.type === 'progress').map(eventPayload);
      expectThat(
        transcript,
        'events.revision-increments',
        'two progress events, {"percent":25,"stage":"fetch"} then {"percent":75,"message":"almost"}',
        progress.length === 2 &&
          canonicalJson(progress[0] ?? null) === canonicalJson({ percent: 25, stage: 'fetch' }) &&
          canonicalJson(progress[1] ?? null) === canonicalJson({ percent: 75, message: 'almost' }),
      );
      const { state, payload } = terminalPayload(history);
      expectThat(
        transcript,
        'event-json-schemas.payloads-valid',
        `completed with ${canonicalJson({ result: RESULT, summary: 'ok' })}`,
        state === 'completed' && canonicalJson(payload) === canonicalJson({ result: RESULT, summary: 'ok' }),
      );
      // Only running may come before an input or the first progress (interp-34).
      const others = history.filter(
        (received) => !['progress', 'completed', 'status'].includes(received.event.type),
      );
      expectThat(
        transcript,
        'events.revision-increments',
        'no event but status, progress and completed',
        others.length === 0,
      );
    },
  },
  {
    id: 'events.progress-percent-range',
    requirements: ['events.progress-percent-range'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    statement:
      'A tool reporting a percent of 150 or -5 gets no progress event for it (progress is advisory); an in-range percent is reported.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      await requireToolFeatures(caller, target, 'script', ['progress']);
      const { accepted } = await startTask(context, caller, target, 'script', {
        steps: [
          { progress: { percent: 150 } },
          { progress: { percent: -5 } },
          { progress: { percent: 40 } },
          { complete: {} },
        ],
      });
      const history = await awaitSettled(context, caller, accepted.taskId);
      const percents = history
        .filter((received) => received.event.type === 'progress')
        .map((received) => {
          const payload = eventPayload(received);
          return isJsonObject(payload) ? payload['percent'] : undefined;
        });
      expectThat(
        history.map((received) => received.stanza.xml).join('\n'),
        'events.progress-percent-range',
        'exactly one progress event, with percent 40',
        percents.length === 1 && percents[0] === 40,
      );
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
      'A tool failure is reported as failed with its qualified code, message, retryable flag and details; an unqualified code a tool reports is never sent as such.',
    run: async (context) => {
      const error = {
        code: 'org.example.suite:quota',
        message: 'Quota exhausted.',
        retryable: true,
        details: { 'org.example.suite:limit': 3 },
      };
      const failed = await settledPayload(context, 'script', { steps: [{ fail: error }] });
      expectThat(
        failed.xml,
        'errors.failed-event-shape',
        `failed with ${canonicalJson({ error })}`,
        failed.state === 'failed' && canonicalJson(failed.payload) === canonicalJson({ error }),
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
      for (const reply of replies) {
        expectThat(
          reply.xml,
          'events.unknown-namespace-event',
          'nothing, or a message of type error',
          reply.type === 'error',
        );
        if (!reply.xml.includes('service-unavailable')) {
          context.warn('events.unknown-namespace-error-condition', 'the error is not <service-unavailable/>');
        }
      }
    },
  },
]);
