/**
 * Link faults (issue 14, item 4), each through the harness's own fault proxies, so each is
 * inapplicable to a gateway the harness does not launch:
 * - #events: the component link dies silently in the middle of a task (the running status is
 *   held back and the link cut; the task goes on while the gateway is offline). Events are
 *   best effort, so what was lost is recovered through task-state and task-result; whatever the
 *   gateway sends again — after it reconnects, or after the invoking resource bounces the event
 *   — keeps its event ID, revision and payload (checked on everything the link carried).
 * - #invocation: the s2s links between the federated caller's server and the gateway's are cut
 *   or delayed while an invocation is on its way; the caller gives up and retries identically:
 *   every <accepted/> the gateway wrote for that request names the same task, which ran once.
 * - #cancellation: the gateway is frozen (SIGSTOP) while a task runs; the caller's wait times
 *   out, which is its own observation only: once thawed the task goes on to its own end, an
 *   identical retry finds the same task, and the tool ran once.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { xml, type Element } from '@xmpp/xml';
import type { Caller } from '../../harness/driver/index.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { NS, NS_AGENT_TASK } from '../../protocol/namespaces.ts';
import { buildInvoke, type Invoke, type TaskEvent } from '../../protocol/stanza/index.ts';
import { defineSuite, type Suite } from '../framework/case.ts';
import type { CaseContext, ComponentLinkControl } from '../framework/context.ts';
import { expectThat } from '../framework/expect.ts';
import { CannotTell, NotApplicable } from '../framework/verdicts.ts';
import {
  conformanceTarget,
  expectAccepted,
  expectTaskResult,
  freshLedgerKey,
  freshRequestId,
  expectRecoveredCompletion,
  readLedger,
  stateOnceSettled,
  taskResultRequest,
  type TaskTarget,
} from './support/tasks.ts';
import { acceptedOnWire, eventOnWire, WireEvents } from './support/wire-stanzas.ts';
import { launchedOnly } from './support/launched-only.ts';

const LAUNCHED_ONLY = launchedOnly("the harness's own fault proxies");

const isTerminalEvent = (type: TaskEvent['type']): boolean =>
  type === 'completed' || type === 'failed' || type === 'cancelled';

function invokeOf(context: CaseContext, target: TaskTarget, args: JsonValue): Invoke {
  return {
    requestId: freshRequestId(context),
    tool: 'script',
    apiVersion: target.version,
    manifestHash: target.hash,
    argumentsJson: JSON.stringify(args),
  };
}

/** Every <accepted/> the gateway writes on the component link for one request ID. */
function acceptancesOf(
  link: ComponentLinkControl,
  requestId: string,
  onFirst: () => void,
): { taskIds: string[]; stop: () => void } {
  const taskIds: string[] = [];
  const stop = link.onSent((stanza) => {
    const accepted = acceptedOnWire(stanza, requestId);
    if (accepted === undefined) return;
    taskIds.push(accepted.taskId);
    if (taskIds.length === 1) onFirst();
  });
  return { taskIds, stop };
}

/** One silent death of the component link in the middle of a task. */
async function cutMidTask(
  context: CaseContext,
  link: ComponentLinkControl,
  wire: WireEvents,
  caller: Caller,
  target: TaskTarget,
): Promise<void> {
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
  await expectRecoveredCompletion(context, caller, target, taskId, {
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

export const eventsLinkFaults: Suite = defineSuite('events', 'Lifecycle Events', [
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
      if (link === undefined) throw new NotApplicable(LAUNCHED_ONLY);
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const wire = new WireEvents(link);
      try {
        const count = context.budget.iterations(1, 8);
        for (let index = 0; index < count; index += 1) {
          await cutMidTask(context, link, wire, caller, target);
        }
      } finally {
        wire.stop();
      }
    },
  },
]);

/** One invocation through a faulty s2s link, then its identical retry. */
/** How long the caller still listens once the s2s link was cut under the gateway's answer. */
const CUT_GRACE_MS = 100;

async function throughFaultyS2s(
  context: CaseContext,
  link: ComponentLinkControl,
  s2s: NonNullable<NonNullable<CaseContext['sutControl']>['s2s']>,
  caller: Caller,
  target: TaskTarget,
  fault: 'cut' | 'delay',
): Promise<void> {
  const ledgerKey = freshLedgerKey(context, 's2s-fault');
  const invoke = invokeOf(context, target, { ledgerKey, steps: [{ complete: {} }] });
  let cutMade: () => void = () => undefined;
  const cut = new Promise<void>((resolve) => {
    cutMade = resolve;
  });
  // A cut lands as the gateway's <accepted/> leaves it, before its server has routed it back.
  const acceptances = acceptancesOf(link, invoke.requestId, () => {
    if (fault !== 'cut') return;
    s2s.cut();
    cutMade();
  });
  try {
    const delayMs = context.random.int(150, 400);
    if (fault === 'delay') s2s.delay(delayMs);
    // The caller's own patience is shorter than the fault: it gives up and retries.
    const original = caller.exchangeIq(target.jid, 'set', buildInvoke(invoke), {
      timeoutMs: fault === 'delay' ? Math.floor(delayMs / 2) : 2_000,
    });
    const answered = original.then(
      (exchange) => (exchange.parsed.type === 'result' ? 'answered' : 'an error'),
      () => 'no answer in time',
    );
    // Once the link is cut under the answer, nothing more can come: the caller gives up then
    // (a short grace later) rather than at the end of its patience.
    const first = await Promise.race([
      answered,
      cut.then(() => delay(CUT_GRACE_MS)).then(() => 'no answer in time'),
    ]);
    s2s.restore();
    caller.transcript.note(
      `s2s ${fault}${fault === 'delay' ? ` ${String(delayMs)} ms` : ''}: the original invocation got ${first}; identical retry`,
    );
    const retry = await caller.exchangeIq(target.jid, 'set', buildInvoke(invoke));
    const accepted = expectAccepted(retry, 'invocation.replay-same-task', invoke);
    const settled = await stateOnceSettled(
      context,
      caller,
      target,
      accepted.taskId,
      'invocation.replay-same-task',
      'after the fault',
    );
    expectThat(
      `the gateway wrote <accepted/> for request ${invoke.requestId} naming ${acceptances.taskIds.join(', ')}`,
      'invocation.replay-same-task',
      `one task for the request, whichever attempt got through: ${accepted.taskId}`,
      acceptances.taskIds.every((taskId) => taskId === accepted.taskId),
    );
    const count = await readLedger(context, caller, target, ledgerKey, 'invocation.replay-same-task');
    expectThat(
      `count ${String(count)} (task ${settled.state})`,
      'invocation.replay-same-task',
      'the tool ran once for the original and its identical retry',
      count <= 1,
    );
  } finally {
    s2s.restore();
    acceptances.stop();
  }
}

export const invocationLinkFaults: Suite = defineSuite('invocation', 'Invocation', [
  {
    id: 'invocation.s2s-fault-identical-retry',
    requirements: ['invocation.replay-same-task'],
    profiles: ['task-execution'],
    level: 'MUST',
    scenario: 'link-fault',
    timeoutMs: 120_000,
    statement:
      "A federated caller invokes while the s2s links to the gateway's server are cut (as the gateway's <accepted/> leaves it) or delayed past the caller's patience, and retries identically once they work: every <accepted/> the gateway wrote for that request (seen on the component link) names the task the retry gets, and the tool ran once.",
    run: async (context) => {
      const control = context.sutControl;
      const link = control?.link;
      const s2s = control?.s2s;
      if (link === undefined || s2s === undefined) throw new NotApplicable(LAUNCHED_ONLY);
      const target = conformanceTarget(context);
      const caller = await context.callers.remote();
      const count = context.budget.iterations(2, 12);
      const faults = ['cut', 'delay'] as const;
      for (let index = 0; index < count; index += 1) {
        const fault = index < faults.length ? faults[index] : context.random.pick(faults);
        await throughFaultyS2s(context, link, s2s, caller, target, fault ?? 'cut');
      }
    },
  },
]);

/** The gateway stopped (SIGSTOP) while a task runs; the caller's waits time out meanwhile. */
async function frozenWhileRunning(
  context: CaseContext,
  control: NonNullable<CaseContext['sutControl']>,
  caller: Caller,
  target: TaskTarget,
): Promise<void> {
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
  const settled = await stateOnceSettled(
    context,
    caller,
    target,
    accepted.taskId,
    'cancellation.caller-timeout-local',
    'after the fault',
  );
  const resultExchange = await taskResultRequest(caller, target, accepted.taskId);
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
  const count = await readLedger(context, caller, target, ledgerKey, 'invocation.replay-same-task');
  expectThat(
    `count ${String(count)}`,
    'invocation.replay-same-task',
    'the tool ran once for the invocation and all its retries',
    count === 1,
  );
}

export const cancellationLinkFaults: Suite = defineSuite('cancellation', 'Cancellation', [
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
      if (control === undefined) throw new NotApplicable(LAUNCHED_ONLY);
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const count = context.budget.iterations(1, 6);
      for (let index = 0; index < count; index += 1) {
        await frozenWhileRunning(context, control, caller, target);
      }
    },
  },
]);
