/**
 * The component link dies silently in the middle of a task (issue 14, item 4): the running status
 * is held back and the link cut; the task goes on while the gateway is offline. Events are best
 * effort, so what was lost is recovered through task-state and task-result; whatever the gateway
 * sends again — after it reconnects, or after the invoking resource bounces the event — keeps its
 * event ID, revision and payload (checked on everything the link carried).
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import { xml, type Element } from '@xmpp/xml';
import type { Caller } from '../../../harness/driver/index.ts';
import { NS } from '../../../protocol/namespaces.ts';
import { buildInvoke, type TaskEvent } from '../../../protocol/stanza/index.ts';
import type { CaseContext, ComponentLinkControl } from '../../framework/context.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import { expectAccepted } from '../support/task-replies.ts';
import { TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { acceptedOnWire, eventOnWire, WireEvents } from '../support/wire-stanzas.ts';
import { HARNESS_FEDERATION_ONLY, invokeOf } from '../support/link-faults.ts';

const isTerminalEvent = (type: TaskEvent['type']): boolean =>
  type === 'completed' || type === 'failed' || type === 'cancelled';

/** One silent death of the component link in the middle of a task. */
async function cutMidTask(tasks: TaskSession, link: ComponentLinkControl, wire: WireEvents): Promise<void> {
  const { context, caller, target } = tasks;
  const value = `after the cut ${context.random.string('abcdefghijklmnopqrstuvwxyz', 8)}`;
  const invoke = invokeOf(context, target, {
    steps: [
      { wait: { ms: 20 } },
      { progress: { percent: 50, stage: 'offline' } },
      { complete: { structuredContent: { value } } },
    ],
  });
  // Written by the proxy's tap, outside this function's control flow.
  const seen: { taskId?: string } = {};
  const held = link.holdBeforeForwarding((stanza) => {
    const accepted = acceptedOnWire(stanza, invoke.requestId);
    if (accepted !== undefined) {
      seen.taskId = accepted.taskId;
      wire.watch(accepted.taskId);
      return false;
    }
    const event = eventOnWire(stanza);
    return event !== undefined && event.taskId === seen.taskId && event.type === 'status';
  });
  let stanza: Element | undefined;
  let taskId: string;
  try {
    const exchange = await caller.exchangeIq(target.jid, 'set', buildInvoke(invoke));
    const accepted = expectAccepted(exchange, 'invocation.required-parts', invoke);
    seen.taskId = accepted.taskId;
    taskId = accepted.taskId;
    wire.watch(accepted.taskId);
    const settledFirst = caller.events
      .waitFor(
        accepted.taskId,
        (received) => received.valid && isTerminalEvent(received.event.type),
        { timeoutMs: context.sut.taskTimeoutMs },
        'terminal event',
      )
      .then(() => undefined);
    settledFirst.catch(() => undefined);
    stanza = await Promise.race([held.fired, settledFirst]);
  } finally {
    held.disarm();
  }
  if (stanza === undefined) {
    throw new CannotTell('the task settled before its first status event crossed the link: nothing to cut');
  }
  const outageMs = context.random.int(100, 400);
  caller.transcript.note(
    `status event of ${taskId} held back; the component link is cut and stays down ${String(outageMs)} ms`,
  );
  await link.cut(() => new Promise((resolve) => setTimeout(resolve, outageMs)));
  caller.transcript.note('the gateway answers again');
  await tasks.expectRecoveredCompletion(taskId, {
    value,
    after: 'after the fault',
    recovered: 'recovered through task-result although events were lost',
  });
  await bounceTerminal(context, wire, caller, taskId);
  wire.expectIdenticalRepeats(taskId);
}

/**
 * The invoking resource answers the terminal event it got with an error (RFC 6120 §8.3, as a
 * server does for a resource that is gone): a gateway may send it again (to the bare JID,
 * #task-message-routing); if it does, the repeat must be identical. Waits briefly for one.
 */
async function bounceTerminal(context: CaseContext, wire: WireEvents, caller: Caller, taskId: string) {
  const terminal = caller.events
    .all(taskId)
    .find((received) => received.valid && isTerminalEvent(received.event.type));
  if (!terminal?.valid) {
    caller.transcript.note('no terminal event reached the caller: nothing to bounce');
    return;
  }
  const revision = terminal.event.revision;
  const sendsBefore = wire.sends(taskId).find((entry) => entry.revision === revision)?.count ?? 0;
  const again = caller.events
    .waitFor(
      taskId,
      (received) => received.valid && received.event.revision === revision,
      { timeoutMs: Math.min(1_500, context.sut.replyTimeoutMs) },
      'the bounced event again',
    )
    .then(
      () => true,
      () => false,
    );
  await caller.send(
    xml(
      'message',
      { to: terminal.from ?? '', id: terminal.message.id ?? terminal.event.eventId, type: 'error' },
      xml('error', { type: 'cancel' }, xml('service-unavailable', { xmlns: NS.stanzas })),
    ),
  );
  const resent = await again;
  const sendsAfter = wire.sends(taskId).find((entry) => entry.revision === revision)?.count ?? 0;
  caller.transcript.note(
    resent
      ? `the bounced ${terminal.event.type} event came again (${String(sendsAfter)} distinct sends of revision ${String(revision)} on the link, ${String(sendsBefore)} before)`
      : 'the gateway did not send the bounced event again (allowed)',
  );
}

export const linkFaultCases: readonly CaseDeclaration<'events'>[] = [
  {
    id: 'events.component-link-cut',
    requirements: [
      'events.replay-identical',
      'task-recovery.state-contents',
      'task-recovery.result-only-terminal',
      'task-states.terminal-immutable',
    ],
    profiles: ['task-execution'],
    level: 'MUST',
    scenario: 'link-fault',
    timeoutMs: 120_000,
    statement:
      'The component link dies silently in the middle of a task (its running status is held back, then the link is cut for a random 100-400 ms while the task goes on): once the gateway is back the task completes and task-state and task-result give its own completion, any terminal event the caller got agrees with them, and every event sent again — after the reconnection, or after the invoking resource bounced it — keeps its event ID, revision and payload.',
    run: async (context) => {
      const link = context.sutControl?.link;
      if (link === undefined) throw new CannotTell(HARNESS_FEDERATION_ONLY);
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const wire = new WireEvents(link);
      try {
        const count = context.budget.iterations(1, 8);
        for (let index = 0; index < count; index += 1) {
          await cutMidTask(tasks, link, wire);
        }
      } finally {
        wire.stop();
      }
    },
  },
];
