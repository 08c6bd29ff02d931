/**
 * The gateway is frozen (SIGSTOP) while a task runs (issue 14, item 4); the caller's wait times
 * out, which is its own observation only: once thawed the task goes on to its own end, an
 * identical retry finds the same task, and the tool ran once.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import { xml } from '@xmpp/xml';
import { NS_AGENT_TASK } from '../../../protocol/namespaces.ts';
import { buildInvoke } from '../../../protocol/stanza/index.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectThat } from '../../framework/expect.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import { freshLedgerKey, readLedger } from '../support/ledger.ts';
import { expectAccepted, expectTaskResult } from '../support/task-replies.ts';
import { TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { HARNESS_FEDERATION_ONLY, invokeOf } from '../support/link-faults.ts';

/** The gateway stopped (SIGSTOP) while a task runs; the caller's waits time out meanwhile. */
async function frozenWhileRunning(
  tasks: TaskSession,
  control: NonNullable<CaseContext['sutControl']>,
): Promise<void> {
  const { context, caller, target } = tasks;
  const ledgerKey = freshLedgerKey(context, 'frozen-gateway');
  const value = `thawed ${context.random.string('abcdefghijklmnopqrstuvwxyz', 8)}`;
  const invoke = invokeOf(context, target, {
    ledgerKey,
    steps: [{ wait: { ms: 100 } }, { complete: { structuredContent: { value } } }],
  });
  const accepted = expectAccepted(
    await caller.exchangeIq(target.jid, 'set', buildInvoke(invoke)),
    'invocation.replay-same-task',
    invoke,
  );
  const patienceMs = context.random.int(150, 300);
  await control.freeze();
  let observed: string[];
  try {
    // The caller's waits end locally: a state query and an identical retry go unanswered.
    observed = await Promise.all([
      caller
        .exchangeIq(
          target.jid,
          'get',
          xml('task-state-request', { xmlns: NS_AGENT_TASK, 'task-id': accepted.taskId }),
          {
            timeoutMs: patienceMs,
          },
        )
        .then(
          () => 'task-state answered',
          () => 'task-state timed out',
        ),
      caller.exchangeIq(target.jid, 'set', buildInvoke(invoke), { timeoutMs: patienceMs }).then(
        () => 'retry answered',
        () => 'retry timed out',
      ),
    ]);
  } finally {
    await control.thaw();
  }
  caller.transcript.note(
    `gateway frozen; the caller's ${String(patienceMs)} ms waits: ${observed.join(', ')}; thawed`,
  );
  const retry = await caller.exchangeIq(target.jid, 'set', buildInvoke(invoke));
  const again = expectAccepted(retry, 'invocation.replay-same-task', invoke);
  expectThat(
    retry.reply.xml,
    'invocation.replay-same-task',
    `the task admitted before the freeze: task-id='${accepted.taskId}'`,
    again.taskId === accepted.taskId,
  );
  const settled = await tasks.stateOnceSettled(
    accepted.taskId,
    'cancellation.caller-timeout-local',
    'after the fault',
  );
  const resultExchange = await tasks.result(accepted.taskId);
  const result = expectTaskResult(resultExchange, 'cancellation.caller-timeout-local');
  expectThat(
    resultExchange.reply.xml,
    'cancellation.caller-timeout-local',
    `the task's own end, unaffected by the caller's timeouts: completed with {"value":"${value}"} (no deadline was set)`,
    settled.state === 'completed' && result.json.includes(value),
  );
  // The retry above races the task's completion after the thaw; once it has settled, too.
  const late = await caller.exchangeIq(target.jid, 'set', buildInvoke(invoke));
  const settledAgain = expectAccepted(late, 'invocation.replay-same-task', invoke);
  expectThat(
    late.reply.xml,
    'invocation.replay-same-task',
    `the same task once it settled: task-id='${accepted.taskId}'`,
    settledAgain.taskId === accepted.taskId,
  );
  const count = await readLedger(tasks, ledgerKey, 'invocation.replay-same-task');
  expectThat(
    `count ${String(count)}`,
    'invocation.replay-same-task',
    'the tool ran once for the invocation and all its retries',
    count === 1,
  );
}

export const linkFaultCases: readonly CaseDeclaration<'cancellation'>[] = [
  {
    id: 'cancellation.frozen-gateway-timeout-local',
    requirements: ['cancellation.caller-timeout-local', 'invocation.replay-same-task'],
    profiles: ['task-execution'],
    level: 'MUST',
    scenario: 'link-fault',
    timeoutMs: 120_000,
    statement:
      "The gateway is frozen (SIGSTOP) while a task without a deadline runs; the caller's task-state query and identical retry time out on its side. Once thawed, the task completes with its own result — the caller's timeout is no remote state — an identical retry returns the same task, and the tool ran once.",
    run: async (context) => {
      const control = context.sutControl;
      if (control === undefined) throw new CannotTell(HARNESS_FEDERATION_ONLY);
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const count = context.budget.iterations(1, 6);
      for (let index = 0; index < count; index += 1) {
        await frozenWhileRunning(tasks, control);
      }
    },
  },
];
