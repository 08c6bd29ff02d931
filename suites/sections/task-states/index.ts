/**
 * #task-states: the seven states and the permitted transitions between them, each announced by
 * its own event (every task case walks its history through them, support/task-events.ts); task state
 * agreeing with the history while a task runs and once it settled; and terminal states immutable:
 * nothing a tool reports or a caller sends after settlement changes state, revision or result.
 * None of it needs #progress, #cancel or #input: a tool may cancel its own task (#task-states,
 * "any non-terminal state → cancelled"), and tasks are held running by a wait step.
 */
import { isJsonObject, type JsonValue } from '../../../protocol/json/json-value.ts';
import type { TaskState as TaskStateName } from '../../../protocol/task-states.ts';
import { defineSuite } from '../../framework/case.ts';
import { expectAnyStanzaError, expectThat } from '../../framework/expect.ts';
import { whileHeld } from '../support/held-task.ts';
import { freshLedgerKey, untilCounted } from '../support/ledger.ts';
import { offeredTaskOperations } from '../support/raw-operations.ts';
import { terminalPayload } from '../support/task-events.ts';
import { expectTaskState } from '../support/task-replies.ts';
import { freshRequestId, TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { raceCases } from './races.ts';

/** The reason a tool gives when it cancels its own task. */
const OWN_REASON = 'the tool stopped on its own';

/** Scripts that settle at once, and the terminal states the gateway may commit for them. */
const SETTLING_SCRIPTS: readonly { label: string; steps: JsonValue[]; allowed: readonly TaskStateName[] }[] =
  [
    {
      label: 'a completion',
      steps: [{ complete: { structuredContent: { value: 'ok' } } }],
      allowed: ['completed'],
    },
    {
      label: 'a failure',
      steps: [{ fail: { code: 'org.example.suite:broken', message: 'Broken.', retryable: false } }],
      allowed: ['failed'],
    },
    // A gateway may refuse a tool's own cancellation (the spec lets it, not obliges it); the
    // conformance tools then fail the task (docs/conformance-tools.md, "Refusals").
    {
      label: "the tool's own cancellation",
      steps: [{ cancel: { reason: OWN_REASON } }],
      allowed: ['cancelled', 'failed'],
    },
  ];

export const taskStatesSuite = defineSuite('task-states', 'Task States', [
  {
    id: 'task-states.states-and-transitions',
    requirements: ['task-states.permitted-transitions', 'task-recovery.state-contents'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-34', 'interp-39'],
    statement:
      "A task held running by a wait step is in state running at the revision of its running event; tasks that complete, fail or are cancelled by their own tool go from accepted through permitted transitions only, each announced by its own event, and task state then gives the terminal state at the terminal event's revision.",
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const { task } = await whileHeld(tasks, async ({ accepted, running }) => {
        const exchange = await tasks.state(accepted.taskId);
        const state = expectTaskState(exchange, 'task-recovery.state-contents');
        // The events are the transitions; a task state that disagrees with them misreports.
        expectThat(
          exchange.reply.xml,
          'task-recovery.state-contents',
          `state='running' revision='${String(running.event.revision)}', as the running event announced`,
          state.state === 'running' && state.revision === running.event.revision,
        );
      });
      await tasks.awaitSettled(task.accepted.taskId);
      for (const script of SETTLING_SCRIPTS) {
        const { accepted } = await tasks.start('script', { steps: script.steps });
        // awaitSettled walks the history through the permitted transitions.
        const history = await tasks.awaitSettled(accepted.taskId);
        const terminal = terminalPayload(history);
        expectThat(
          history.map((received) => received.stanza.xml).join('\n'),
          'task-states.permitted-transitions',
          `${script.label} settling ${script.allowed.join(' or ')}`,
          script.allowed.includes(terminal.state),
        );
        const exchange = await tasks.state(accepted.taskId);
        const state = expectTaskState(exchange, 'task-recovery.state-contents');
        expectThat(
          exchange.reply.xml,
          'task-recovery.state-contents',
          `state='${terminal.state}' revision='${String(terminal.revision)}', as the terminal event announced`,
          state.state === terminal.state && state.revision === terminal.revision,
        );
      }
    },
  },
  {
    id: 'task-states.terminal-immutable',
    requirements: ['task-states.terminal-immutable', 'task-recovery.result-only-terminal'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-38', 'interp-39'],
    statement:
      "Once settled, a task never changes: a tool that cancels its own task and then reports progress, a completion and a failure gets no further event; a caller's cancellation and input answer (where the endpoint offers them) are refused; task state and task result keep the terminal state, revision and payload. (A gateway that refuses a tool's own cancellation fails the task instead, and the same holds for that failure.)",
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const key = freshLedgerKey(context, 'terminal-immutable');
      const { accepted } = await tasks.start('script', {
        steps: [
          { cancel: { reason: OWN_REASON } },
          { progress: { percent: 99, message: 'late' } },
          { complete: { structuredContent: { value: 'late' } } },
          { fail: { code: 'org.example.suite:late', message: 'Late.', retryable: false } },
          { increment: { key } },
        ],
      });
      const settled = await tasks.awaitFirstTerminal(accepted.taskId);
      const cancelledByTool =
        settled.state === 'cancelled' &&
        isJsonObject(settled.payload) &&
        settled.payload['reason'] === OWN_REASON;
      // Only after the tool's own cancellation does it go on to the late output (its last step
      // counts the ledger once every late attempt was made).
      if (cancelledByTool) await untilCounted(tasks, key, 'task-states.terminal-immutable');
      const operations = await offeredTaskOperations(caller, target);
      if (operations.includes('cancel')) {
        expectAnyStanzaError(
          await tasks.cancel(accepted.taskId, settled.revision, 'too late'),
          'task-states.terminal-immutable',
          context,
        );
      }
      if (operations.includes('provide-input')) {
        expectAnyStanzaError(
          await tasks.provideInput(accepted.taskId, freshRequestId(context), settled.revision, {}),
          'task-states.terminal-immutable',
          context,
        );
      }
      await tasks.expectSettlementKept(accepted.taskId, settled, 'task-states.terminal-immutable');
    },
  },
  ...raceCases,
]);
