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
import { canonicalJson } from '../../protocol/json/canonical.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { buildInvoke, type Invoke } from '../../protocol/stanza/index.ts';
import { defineSuite, type Suite } from '../framework/case.ts';
import type { CaseContext, ComponentLinkControl, ServerRestartControl } from '../framework/context.ts';
import { expectThat } from '../framework/expect.ts';
import { NotApplicable, RequirementViolation } from '../framework/verdicts.ts';
import {
  conformanceTarget,
  expectAccepted,
  expectTaskResult,
  freshLedgerKey,
  freshRequestId,
  readLedger,
  stateOnceSettled,
  taskResultRequest,
  type TaskTarget,
} from './support/tasks.ts';
import { WireEvents } from './support/wire-stanzas.ts';

const LAUNCHED_ONLY =
  'needs a gateway the harness launches, behind the harness\'s own fault proxies and servers: give the SUT file a "launch" command (docs/sut.md) and run it on the native or container federation';

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

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
  caller.transcript.note(
    `server restarted in ${String(Math.round(serverMs))} ms while task ${accepted.taskId} ran; the gateway answered again ${String(Math.round(performance.now() - started))} ms after the kill over ${String(link.connections - connectionsBefore)} new component connection(s)`,
  );
  const settled = await stateOnceSettled(
    context,
    caller,
    target,
    accepted.taskId,
    'task-recovery.state-contents',
    'after the server restart',
  );
  const resultExchange = await taskResultRequest(caller, target, accepted.taskId);
  const result = expectTaskResult(resultExchange, 'task-recovery.result-only-terminal');
  expectThat(
    resultExchange.reply.xml,
    'task-recovery.result-only-terminal',
    `the task's own completion, {"value":"${value}"} in structuredContent, recovered through task-result across the server restart`,
    settled.state === 'completed' && result.json.includes(value),
  );
  for (const observer of [before, caller]) {
    for (const received of observer.events.all(accepted.taskId)) {
      if (!received.valid || !TERMINAL_EVENTS.has(received.event.type)) continue;
      expectThat(
        received.stanza.xml,
        'task-states.terminal-immutable',
        `the terminal event task-state and task-result report: ${settled.state} at revision ${String(settled.revision)}`,
        received.event.type === settled.state &&
          received.event.revision === settled.revision &&
          canonicalJson(parseStrictJson(received.event.json)) === canonicalJson(parseStrictJson(result.json)),
      );
    }
  }
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
  const count = await readLedger(context, caller, target, ledgerKey, 'invocation.replay-same-task');
  expectThat(
    `count ${String(count)}`,
    'invocation.replay-same-task',
    'the tool ran once across the server restart and the identical retry',
    count === 1,
  );
}

export const taskRecoveryServerRestart: Suite = defineSuite('task-recovery', 'Task Recovery', [
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
      if (server === undefined || link === undefined) throw new NotApplicable(LAUNCHED_ONLY);
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
]);
