/**
 * Server restart (issue 14, item 4; scenario `link-fault`): the XMPP server that serves the
 * gateway's component is killed (SIGKILL) and started again in place — same ports, same
 * configuration, same accounts — while a task runs (SutControl.server, so only where the harness
 * runs the servers). Nobody tells the gateway: it must notice the lost stream and reconnect by
 * itself. Afterwards, through a fresh login of the same account (the caller's own connection died
 * with the server):
 * - task-state reports the task's current state and, once terminal, task-result its own
 *   completion (#task-recovery: what was missed while the server was down is recovered there,
 *   events being best effort, #task-message-routing);
 * - every event the gateway sent again keeps its event ID, revision and payload (all sends are
 *   recorded on the component link, #events);
 * - the identical invocation returns the same task and the tool ran once (the ledger,
 *   #invocation): the restart neither lost nor repeated the execution.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import { buildInvoke, type Invoke } from '../../../protocol/stanza/index.ts';
import type { CaseContext, ComponentLinkControl, ServerRestartControl } from '../../framework/context.ts';
import { expectThat } from '../../framework/expect.ts';
import { CannotTell, RequirementViolation } from '../../framework/verdicts.ts';
import { freshLedgerKey, readLedger } from '../support/ledger.ts';
import { expectAccepted } from '../support/task-replies.ts';
import { freshRequestId, TaskSession } from '../support/task-session.ts';
import { conformanceTarget, type TaskTarget } from '../support/task-target.ts';
import { WireEvents } from '../support/wire-stanzas.ts';
import { harnessFederationOnly } from '../support/harness-federation-only.ts';

const HARNESS_FEDERATION_ONLY = harnessFederationOnly(
  "the fault proxy on the gateway's component link and the server behind it",
);

const LOWER = 'abcdefghijklmnopqrstuvwxyz';

async function restartWhileRunning(
  context: CaseContext,
  server: ServerRestartControl,
  link: ComponentLinkControl,
  wire: WireEvents,
  target: TaskTarget,
): Promise<void> {
  const ledgerKey = freshLedgerKey(context, 'server-restart');
  const value = `after the restart ${context.random.string(LOWER, 8)}`;
  const invoke: Invoke = {
    requestId: freshRequestId(context),
    tool: 'script',
    apiVersion: target.version,
    manifestHash: target.hash,
    argumentsJson: JSON.stringify({
      ledgerKey,
      steps: [
        { wait: { ms: context.random.int(20, 80) } },
        { progress: { percent: 50, stage: 'server down' } },
        { complete: { structuredContent: { value } } },
      ],
    }),
  };
  const before = await context.callers.local();
  const accepted = expectAccepted(
    await before.exchangeIq(target.jid, 'set', buildInvoke(invoke)),
    'invocation.replay-same-task',
    invoke,
  );
  wire.watch(accepted.taskId);
  const connectionsBefore = link.connections;
  const started = performance.now();
  await server.restart();
  const serverMs = performance.now() - started;
  try {
    await link.answering();
  } catch (error) {
    throw new RequirementViolation(
      'task-recovery.state-contents',
      "the gateway reconnects to its restarted server by itself and answers again (its tasks' state is only recoverable through it)",
      `it did not: ${error instanceof Error ? error.message.slice(0, 600) : String(error)}`,
    );
  }
  // The caller's connection died with the server: a fresh login of the same account.
  const caller = await context.callers.local();
  const tasks = new TaskSession(context, caller, target);
  caller.transcript.note(
    `server restarted in ${String(Math.round(serverMs))} ms while task ${accepted.taskId} ran; the gateway answered again ${String(Math.round(performance.now() - started))} ms after the kill over ${String(link.connections - connectionsBefore)} new component connection(s)`,
  );
  const settled = await tasks.expectRecoveredCompletion(
    accepted.taskId,
    {
      value,
      after: 'after the server restart',
      recovered: 'recovered through task-result across the server restart',
    },
    [before, caller],
  );
  // Events are best effort (#events): a revision the link never carried, re-sent or not, was
  // recovered through task-state and task-result alone.
  const onLink = wire
    .sends(accepted.taskId)
    .map(({ revision, count }) => `${String(revision)} ×${String(count)}`);
  caller.transcript.note(
    `task ${accepted.taskId} settled ${settled.state} at revision ${String(settled.revision)}; revisions its events carried on the component link: ${onLink.join(', ') || 'none'}`,
  );
  wire.expectIdenticalRepeats(accepted.taskId);
  const retry = expectAccepted(
    await caller.exchangeIq(target.jid, 'set', buildInvoke(invoke)),
    'invocation.replay-same-task',
    invoke,
  );
  expectThat(
    `the identical invocation after the restart got task ${retry.taskId}`,
    'invocation.replay-same-task',
    `the task admitted before the restart: ${accepted.taskId}`,
    retry.taskId === accepted.taskId,
  );
  const count = await readLedger(tasks, ledgerKey, 'invocation.replay-same-task');
  expectThat(
    `count ${String(count)}`,
    'invocation.replay-same-task',
    'the tool ran once across the server restart and the identical retry',
    count === 1,
  );
}

export const serverRestartCases: readonly CaseDeclaration<'task-recovery'>[] = [
  {
    id: 'task-recovery.server-restart',
    requirements: [
      'task-recovery.state-contents',
      'task-recovery.result-only-terminal',
      'events.replay-identical',
      'task-states.terminal-immutable',
      'invocation.replay-same-task',
    ],
    profiles: ['task-execution'],
    level: 'MUST',
    scenario: 'link-fault',
    timeoutMs: 180_000,
    statement:
      "The gateway's XMPP server is killed and started again in place while a task runs; the gateway reconnects by itself. Then, from a fresh login of the caller's account: task-state reports the task and task-result its own completion, any terminal event agrees with them, every event the gateway sent again keeps its event ID, revision and payload, the identical invocation returns the same task and the tool ran once.",
    run: async (context) => {
      const server = context.sutControl?.server;
      const link = context.sutControl?.link;
      if (server === undefined || link === undefined) throw new CannotTell(HARNESS_FEDERATION_ONLY);
      const target = conformanceTarget(context);
      const wire = new WireEvents(link);
      try {
        const count = context.budget.iterations(1, 4);
        for (let index = 0; index < count; index += 1) {
          await restartWhileRunning(context, server, link, wire, target);
        }
      } finally {
        wire.stop();
      }
    },
  },
];
