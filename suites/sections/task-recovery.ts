/**
 * #task-recovery (with #task-message-routing's delivery independence): task state with every
 * attribute from a sibling resource that received no event, result-available only when terminal,
 * task-result only for terminal tasks (unexpected-request before) holding the terminal event's
 * payload, malformed task IDs refused with bad-request, and another caller's task answered like
 * a task that does not exist, for every task operation; on a gateway configured for a short
 * retention, a task past its retain-until answered like one that does not exist too.
 */
import { canonicalJson } from '../../protocol/json/canonical.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import {
  compareInstants,
  dateTimeFromMillis,
  toEpochMillis,
  type XmppDateTime,
} from '../../protocol/datetime.ts';
import { defineSuite } from '../framework/case.ts';
import { expectIndistinguishable, expectStanzaError, expectThat } from '../framework/expect.ts';
import { NotApplicable } from '../framework/verdicts.ts';
import { requireWorld } from '../fixtures/reference-world.ts';
import {
  awaitEvent,
  awaitSettled,
  conformanceTarget,
  expectTaskResult,
  expectTaskState,
  freshRequestId,
  instantFromNow,
  rawTaskRequest,
  requireToolFeatures,
  sendCancel,
  sendInput,
  startTask,
  taskResultRequest,
  taskStateRequest,
  terminalPayload,
} from './support/tasks.ts';

/**
 * The longest retention the expiry case waits out (registry fixture short-retention): a gateway
 * promising more is not configured for it, and the case does not apply.
 */
const SHORT_RETENTION_MS = 5000;
/** Beyond retain-until before the case looks: the gateway's clock need not be ours to the ms. */
const EXPIRY_MARGIN_MS = 200;

function sameInstant(a: XmppDateTime | undefined, b: XmppDateTime | undefined): boolean {
  return a !== undefined && b !== undefined && compareInstants(a, b) === 0;
}

export const taskRecoverySuite = defineSuite('task-recovery', 'Task Recovery', [
  {
    id: 'task-recovery.state-and-result-from-sibling',
    requirements: [
      'task-recovery.state-contents',
      'task-recovery.result-availability',
      'task-recovery.result-only-terminal',
      'task-message-routing.delivery-independent',
      'events.queryable-until-retain-until',
    ],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-03', 'interp-04', 'interp-32', 'interp-39'],
    statement:
      'Another resource of the caller, which received no event, recovers the task: while running, state with every attribute, no result available and unexpected-request for the result; once settled, the terminal state and revision, result-available and a task-result equal to the terminal event.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const sibling = await context.callers.sibling(caller);
      const deadline = instantFromNow(600_000);
      const { accepted } = await startTask(
        context,
        caller,
        target,
        'script',
        {
          steps: [{ wait: { ms: 250 } }, { complete: { structuredContent: { value: 'recovered' } } }],
        },
        { deadline },
      );
      const runningExchange = await taskStateRequest(sibling, target, accepted.taskId);
      const running = expectTaskState(runningExchange, 'task-recovery.state-contents');
      const replyXml = runningExchange.reply.xml;
      expectThat(
        replyXml,
        'task-recovery.state-contents',
        `task-id='${accepted.taskId}'`,
        running.taskId === accepted.taskId,
      );
      expectThat(
        replyXml,
        'task-recovery.state-contents',
        `endpoint='${target.jid}'`,
        running.endpoint === target.jid,
      );
      expectThat(
        replyXml,
        'task-recovery.state-contents',
        `api-version='${target.version}'`,
        running.apiVersion === target.version,
      );
      expectThat(
        replyXml,
        'task-recovery.state-contents',
        `the pinned manifest hash ${target.hash.value}`,
        running.manifestHash.algo === target.hash.algo && running.manifestHash.value === target.hash.value,
      );
      expectThat(
        replyXml,
        'task-recovery.state-contents',
        `created at ${accepted.created.text}`,
        sameInstant(running.created, accepted.created),
      );
      expectThat(
        replyXml,
        'task-recovery.state-contents',
        `deadline at ${deadline.text}`,
        sameInstant(running.deadline, deadline),
      );
      expectThat(
        replyXml,
        'task-recovery.state-contents',
        `retain-until no earlier than the accepted ${accepted.retainUntil.text} (interp-32)`,
        compareInstants(running.retainUntil, accepted.retainUntil) >= 0,
      );
      if (!['completed'].includes(running.state)) {
        expectThat(
          replyXml,
          'task-recovery.result-availability',
          "result-available='false' while not terminal",
          !running.resultAvailable,
        );
        const early = await taskResultRequest(sibling, target, accepted.taskId);
        // The task may have settled in between; only a non-terminal answer is judged.
        if (early.parsed.type === 'error')
          expectStanzaError(early, 'task-recovery.result-only-terminal', 'unexpected-request', context);
      }
      const history = await awaitSettled(context, caller, accepted.taskId);
      const terminal = terminalPayload(history);
      expectThat(
        `${String(sibling.events.all(accepted.taskId).length)} events`,
        'task-message-routing.delivery-independent',
        'no event at the sibling (it proves recovery without events)',
        sibling.events.all(accepted.taskId).length === 0,
      );
      const settledExchange = await taskStateRequest(sibling, target, accepted.taskId);
      const settled = expectTaskState(settledExchange, 'task-recovery.state-contents');
      expectThat(
        settledExchange.reply.xml,
        'task-recovery.result-availability',
        `state='${terminal.state}' revision='${String(terminal.revision)}' result-available='true'`,
        settled.state === terminal.state && settled.revision === terminal.revision && settled.resultAvailable,
      );
      const resultExchange = await taskResultRequest(sibling, target, accepted.taskId);
      const result = expectTaskResult(resultExchange, 'task-recovery.result-only-terminal');
      expectThat(
        resultExchange.reply.xml,
        'task-recovery.result-only-terminal',
        `the terminal state, revision and payload of the terminal event: ${canonicalJson(terminal.payload)}`,
        result.state === terminal.state &&
          result.revision === terminal.revision &&
          canonicalJson(parseStrictJson(result.json)) === canonicalJson(terminal.payload),
      );
    },
  },
  {
    id: 'task-recovery.failed-result-retained',
    requirements: ['task-recovery.result-availability', 'task-recovery.result-only-terminal'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-39'],
    statement:
      'A failed task also has its result available: the task-result holds the failed state and the error object of the failed event.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const { accepted } = await startTask(context, caller, target, 'script', {
        steps: [{ fail: { code: 'org.example.suite:broken', message: 'Broken.', retryable: false } }],
      });
      const terminal = terminalPayload(await awaitSettled(context, caller, accepted.taskId));
      const stateExchange = await taskStateRequest(caller, target, accepted.taskId);
      const state = expectTaskState(stateExchange, 'task-recovery.result-availability');
      expectThat(
        stateExchange.reply.xml,
        'task-recovery.result-availability',
        "state='failed' result-available='true'",
        state.state === 'failed' && state.resultAvailable,
      );
      const exchange = await taskResultRequest(caller, target, accepted.taskId);
      const result = expectTaskResult(exchange, 'task-recovery.result-only-terminal');
      expectThat(
        exchange.reply.xml,
        'task-recovery.result-only-terminal',
        `state='failed' with ${canonicalJson(terminal.payload)}`,
        result.state === 'failed' &&
          canonicalJson(parseStrictJson(result.json)) === canonicalJson(terminal.payload),
      );
    },
  },
  {
    id: 'task-recovery.malformed-task-id',
    requirements: ['invocation.identifier-grammar'],
    profiles: ['task-execution'],
    level: 'MUST',
    statement:
      'A task ID outside the identifier grammar (too short, a character outside the unreserved set) gets bad-request.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      for (const taskId of ['short', `${'a'.repeat(30)}/x`, 'a'.repeat(129)]) {
        for (const local of ['task-state-request', 'task-result-request'] as const) {
          const exchange = await caller.exchangeIq(target.jid, 'get', rawTaskRequest(local, taskId));
          expectStanzaError(exchange, 'invocation.identifier-grammar', 'bad-request', context);
        }
      }
    },
  },
  {
    id: 'task-recovery.other-caller-like-nonexistent',
    requirements: ['task-recovery.indistinguishable-not-found', 'task-recovery.caller-authorization'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-19', 'interp-26', 'interp-42'],
    statement:
      "Another caller asking for a task's state or result, cancelling it or answering its input gets exactly what a task ID that names no task gets: item-not-found.",
    run: async (context) => {
      const world = requireWorld(context);
      const target = conformanceTarget(context);
      const owner = await context.callers.local();
      // An input request keeps the task waiting, so every operation finds it non-terminal.
      await requireToolFeatures(owner, target, 'script', ['input']);
      const { accepted } = await startTask(context, owner, target, 'script', {
        steps: [{ input: { question: 'Ready?', inputSchema: { type: 'boolean' } } }, { complete: {} }],
      });
      const pending = await awaitEvent(context, owner, accepted.taskId, 'input_required');
      const requestId = (parseStrictJson(pending.event.json) as { requestId: string }).requestId;
      const other = world.mayInvoke('remote', world.endpoint(target.jid), 'script')
        ? await context.callers.remote()
        : await context.callers.denied();
      const unknown = freshRequestId(context);
      const pairs = [
        ['state', (id: string) => taskStateRequest(other, target, id)],
        ['result', (id: string) => taskResultRequest(other, target, id)],
        ['cancel', (id: string) => sendCancel(other, target, id, pending.event.revision)],
        ['input', (id: string) => sendInput(other, target, id, requestId, pending.event.revision, true)],
      ] as const;
      for (const [label, send] of pairs) {
        const foreign = await send(accepted.taskId);
        const missing = await send(unknown);
        expectStanzaError(foreign, 'task-recovery.caller-authorization', 'item-not-found', context);
        expectIndistinguishable(
          [
            { label: `${label} of another caller's task`, to: target.jid, exchange: foreign },
            { label: `${label} of a task that does not exist`, to: target.jid, exchange: missing },
          ],
          'task-recovery.indistinguishable-not-found',
          context,
        );
      }
      // The owner's task is untouched: finish it.
      const answered = await sendInput(
        owner,
        target,
        accepted.taskId,
        requestId,
        pending.event.revision,
        true,
      );
      expectThat(
        answered.reply.xml,
        'task-recovery.caller-authorization',
        "the owner's answer accepted",
        answered.parsed.type === 'result',
      );
      await awaitSettled(context, owner, accepted.taskId);
    },
  },
  {
    id: 'task-recovery.expired-like-nonexistent',
    requirements: ['task-recovery.indistinguishable-not-found', 'events.queryable-until-retain-until'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-19', 'interp-32'],
    statement:
      'A completed task answers state and result until its retain-until; once that has passed, a gateway that no longer answers for it gives exactly what a task ID that names no task gets (needs a gateway configured for a retention of a few seconds).',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      // A caller deadline keeps the effective deadline, and so retain-until, close.
      const { accepted } = await startTask(
        context,
        caller,
        target,
        'script',
        { steps: [{ complete: {} }] },
        { deadline: instantFromNow(1000) },
      );
      const retainUntil = toEpochMillis(accepted.retainUntil);
      if (retainUntil - Date.now() > SHORT_RETENTION_MS) {
        throw new NotApplicable(
          `retain-until ${accepted.retainUntil.text} is more than ${String(SHORT_RETENTION_MS / 1000)} s away: the gateway is not configured for a short retention`,
        );
      }
      const history = await awaitSettled(context, caller, accepted.taskId);
      const before = await taskStateRequest(caller, target, accepted.taskId);
      // Asked early enough that no clock difference can put the reply past retain-until.
      if (Date.now() + EXPIRY_MARGIN_MS < retainUntil) {
        const state = expectTaskState(before, 'events.queryable-until-retain-until');
        expectThat(
          before.reply.xml,
          'events.queryable-until-retain-until',
          'the settled state before retain-until',
          state.state === terminalPayload(history).state,
        );
      }
      // Time passes on the gateway's clock: a tool waiting until just past retain-until.
      const { accepted: timer } = await startTask(context, caller, target, 'script', {
        steps: [
          { wait: { until: dateTimeFromMillis(retainUntil + EXPIRY_MARGIN_MS).text } },
          { complete: {} },
        ],
      });
      await awaitSettled(context, caller, timer.taskId);
      const unknown = freshRequestId(context);
      const pairs = [
        ['state', (id: string) => taskStateRequest(caller, target, id)],
        ['result', (id: string) => taskResultRequest(caller, target, id)],
      ] as const;
      let compared = 0;
      for (const [label, send] of pairs) {
        const expired = await send(accepted.taskId);
        // Keeping a task longer than promised is allowed; only a refusal must look like "none".
        if (expired.parsed.type === 'result') continue;
        compared += 1;
        expectStanzaError(expired, 'task-recovery.indistinguishable-not-found', 'item-not-found', context);
        expectIndistinguishable(
          [
            { label: `${label} of a task past retain-until`, to: target.jid, exchange: expired },
            {
              label: `${label} of a task that does not exist`,
              to: target.jid,
              exchange: await send(unknown),
            },
          ],
          'task-recovery.indistinguishable-not-found',
          context,
        );
      }
      if (compared === 0) {
        throw new NotApplicable(
          'the gateway still answers for the task after retain-until (allowed): nothing expired to compare',
        );
      }
    },
  },
]);
