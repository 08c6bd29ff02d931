/**
 * Crash on the wire (issue 14, item 3; #invocation, #events): the harness's proxy on the
 * component link recognises a stanza the gateway writes — the <accepted/> of an invocation, the
 * running status, a progress update, an input request, the completion — and kills the gateway
 * with SIGKILL before the server sees it, then starts it again on the same state. Whatever left
 * the gateway was a promise: an <accepted/> says the task and its replay record are durable, an
 * event says its revision was committed. So after the restart the identical invocation returns
 * that very task, the task answers task-state, a terminal event's settlement is what task-state
 * and task-result say, any event the gateway sends again at a revision it had written is the
 * same event (ID, type, payload), and the tool ran at most once (ledger).
 *
 * The kill lands as soon as the harness has read the stanza, while the gateway may still be
 * running: a gateway that writes <accepted/> and commits a moment later is caught only when the
 * kill wins that race, which is why there are many kill points (the kind and order come from
 * context.random; --deep raises their number).
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import type { Element } from '@xmpp/xml';
import { canonicalJson } from '../../../protocol/json/canonical.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import type { JsonValue } from '../../../protocol/json/json-value.ts';
import { buildInvoke, type Invoke, type TaskEvent } from '../../../protocol/stanza/index.ts';
import type { ComponentLinkControl, StorageFaultControl } from '../../framework/context.ts';
import { expectThat } from '../../framework/expect.ts';
import { CannotTell, MissingFixture } from '../../framework/verdicts.ts';
import { freshLedgerKey, readLedger } from '../support/ledger.ts';
import { expectAccepted, expectTaskResult } from '../support/task-replies.ts';
import { freshRequestId, TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { acceptedOnWire, eventOnWire, WireEvents } from '../support/wire-stanzas.ts';
import { harnessFederationOnly } from '../support/harness-federation-only.ts';

const HARNESS_FEDERATION_ONLY = harnessFederationOnly("the fault proxy on the gateway's component link");

/** What the gateway writes that a kill point can stop. */
const KILL_POINTS = ['accepted', 'running', 'progress', 'input_required', 'completed'] as const;
type KillPointKind = (typeof KILL_POINTS)[number];

/** A script that reaches the kill point soon and settles soon after it, if resumed. */
function scriptFor(kind: KillPointKind, ledgerKey: string): JsonValue {
  const steps: Record<KillPointKind, JsonValue[]> = {
    accepted: [{ wait: { ms: 50 } }, { complete: {} }],
    running: [{ wait: { ms: 50 } }, { complete: {} }],
    progress: [{ progress: { percent: 40, stage: 'crash' } }, { wait: { ms: 50 } }, { complete: {} }],
    input_required: [
      { input: { question: 'Go on?', inputSchema: { type: 'boolean' }, expiresInMs: 2_000 } },
      { complete: {} },
    ],
    completed: [{ complete: { structuredContent: { value: 'committed before sent' } } }],
  };
  return { ledgerKey, steps: steps[kind] };
}

/** What a task still unsettled after the restart leaves open. */
const RESTART_WAIT = 'after the restart: whether its tool ran twice cannot be read yet';

const isTerminalEvent = (type: TaskEvent['type']): boolean =>
  type === 'completed' || type === 'failed' || type === 'cancelled';

function isKillPoint(event: TaskEvent, kind: KillPointKind): boolean {
  if (kind === 'running') return event.type === 'status' && /"state"\s*:\s*"running"/.test(event.json);
  return event.type === kind;
}

/** One kill point: returns false when the stanza never came (the point was not reached). */
async function crashAt(
  tasks: TaskSession,
  link: ComponentLinkControl,
  wire: WireEvents,
  kind: KillPointKind,
): Promise<boolean> {
  const { context, caller, target } = tasks;
  const ledgerKey = freshLedgerKey(context, 'crash-on-the-wire');
  const args = scriptFor(kind, ledgerKey);
  const invoke: Invoke = {
    requestId: freshRequestId(context),
    tool: 'script',
    apiVersion: target.version,
    manifestHash: target.hash,
    argumentsJson: JSON.stringify(args),
  };
  // Written by the proxy's tap, outside this function's control flow.
  const seen: { taskId?: string; matched: boolean } = { matched: false };
  const point = link.killBeforeForwarding((stanza) => {
    const accepted = acceptedOnWire(stanza, invoke.requestId);
    if (accepted !== undefined) {
      seen.taskId = accepted.taskId;
      wire.watch(accepted.taskId);
      seen.matched = kind === 'accepted';
      return seen.matched;
    }
    const event = kind === 'accepted' ? undefined : eventOnWire(stanza);
    seen.matched = event !== undefined && event.taskId === seen.taskId && isKillPoint(event, kind);
    return seen.matched;
  });
  let held: Element | undefined;
  try {
    const reply = caller.exchangeIq(target.jid, 'set', buildInvoke(invoke));
    // Killed before its answer reached the server, the invocation is never answered.
    reply.catch(() => undefined);
    const first = await Promise.race([
      // Once the kill point matched, the restart decides (it may outlast the reply timeout).
      reply.catch((error: unknown) =>
        seen.matched ? new Promise<never>(() => undefined) : Promise.reject(error as Error),
      ),
      point.fired.then((stanza) => ({ fired: stanza })),
    ]);
    if ('fired' in first) {
      held = first.fired;
    } else {
      const accepted = expectAccepted(first, 'invocation.durable-before-accepted', invoke);
      seen.taskId = accepted.taskId;
      wire.watch(accepted.taskId);
      const terminal = caller.events
        .waitFor(
          accepted.taskId,
          (received) => received.valid && isTerminalEvent(received.event.type),
          { timeoutMs: context.sut.taskTimeoutMs },
          'terminal event',
        )
        .then(() => undefined);
      terminal.catch(() => undefined);
      held = await Promise.race([point.fired, terminal]);
      if (held === undefined && seen.matched) held = await point.fired;
    }
  } finally {
    // A kill point that matched is restarting the gateway: nothing goes on before it answers.
    if (seen.matched) await point.fired.catch(() => undefined);
    else point.disarm();
  }
  const taskId = seen.taskId;
  if (held === undefined || taskId === undefined) {
    caller.transcript.note(`kill point ${kind}: not reached (the stanza never came), no kill`);
    return false;
  }
  const heldEvent = eventOnWire(held);
  caller.transcript.note(
    `kill point ${kind}: the gateway was killed before the server saw ${heldEvent === undefined ? `<accepted/> for task ${taskId}` : `${heldEvent.type} r${String(heldEvent.revision)} of task ${taskId}`}; restarted`,
  );
  const requirement = 'invocation.durable-before-accepted';
  const replay = await tasks.invoke('script', args, { requestId: invoke.requestId });
  const replayed = expectAccepted(replay.exchange, requirement, replay.invoke);
  expectThat(
    replay.exchange.reply.xml,
    requirement,
    `the task whose <accepted/> had left the gateway before the kill: task-id='${taskId}'`,
    replayed.taskId === taskId,
  );
  const settled = await tasks.stateOnceSettled(taskId, 'invocation.durable-before-accepted', RESTART_WAIT);
  if (heldEvent !== undefined && isTerminalEvent(heldEvent.type)) {
    // The terminal event left the gateway: the settlement was committed and never changes.
    expectThat(
      `task-state '${settled.state}' at revision ${String(settled.revision)}`,
      'task-states.terminal-immutable',
      `the settlement whose event had left the gateway before the kill: ${heldEvent.type} at revision ${String(heldEvent.revision)}`,
      settled.state === heldEvent.type && settled.revision === heldEvent.revision,
    );
    const exchange = await tasks.result(taskId);
    const result = expectTaskResult(exchange, 'task-states.terminal-immutable');
    expectThat(
      exchange.reply.xml,
      'task-states.terminal-immutable',
      `the payload of the terminal event that had left the gateway: ${canonicalJson(parseStrictJson(heldEvent.json))}`,
      canonicalJson(parseStrictJson(result.json)) === canonicalJson(parseStrictJson(heldEvent.json)),
    );
  }
  wire.expectIdenticalRepeats(taskId);
  const count = await readLedger(tasks, ledgerKey, 'invocation.replay-same-task');
  expectThat(
    `count ${String(count)}`,
    'invocation.replay-same-task',
    'the tool ran at most once across the kill, the restart and the identical replay (ledger 0 or 1)',
    count <= 1,
  );
  return true;
}

/** One invocation while the gateway's storage fails; then its identical retry once it works. */
async function storageFaultOnce(
  tasks: TaskSession,
  storage: StorageFaultControl,
  link: ComponentLinkControl,
  fault: 'sync' | 'write',
): Promise<void> {
  const { context, caller, target } = tasks;
  const ledgerKey = freshLedgerKey(context, 'storage-fault');
  const args = { ledgerKey, steps: [{ complete: {} }] };
  const invoke: Invoke = {
    requestId: freshRequestId(context),
    tool: 'script',
    apiVersion: target.version,
    manifestHash: target.hash,
    argumentsJson: JSON.stringify(args),
  };
  const written: string[] = [];
  const stop = link.onSent((stanza) => {
    const accepted = acceptedOnWire(stanza, invoke.requestId);
    if (accepted !== undefined) written.push(accepted.taskId);
  });
  let during: { readonly outcome: string; readonly accepted: readonly string[] };
  let exited: boolean;
  try {
    ({ value: during, exited } = await storage.failWhile(fault, async (gone) => {
      const reply = caller.exchangeIq(target.jid, 'set', buildInvoke(invoke));
      reply.catch(() => undefined);
      const outcome = await Promise.race([
        reply.then(
          (exchange) =>
            exchange.parsed.type === 'error'
              ? `an error (${exchange.parsed.error.condition})`
              : `a result: ${exchange.reply.xml}`,
          () => 'no answer in time',
        ),
        gone.then(() => 'no answer: the gateway exited'),
      ]);
      // What the link carried while every such call failed, before the fault is turned off.
      return { outcome, accepted: [...written] };
    }));
  } finally {
    stop();
  }
  const what = fault === 'sync' ? 'every fsync and fdatasync' : 'every pwrite (the WAL frames)';
  caller.transcript.note(
    `storage fault '${fault}' (${what} failing): the invocation got ${during.outcome}${exited ? '; the gateway exited and was started again' : ''}`,
  );
  expectThat(
    during.accepted.length === 0
      ? during.outcome
      : `<accepted/> for task ${during.accepted.join(', ')} written on the component link while ${what} failed`,
    'invocation.durable-before-accepted',
    `no <accepted/> for an invocation made while ${what} failed: nothing it admitted could be on disk`,
    during.accepted.length === 0,
  );
  const retry = await tasks.invoke('script', args, { requestId: invoke.requestId });
  const accepted = expectAccepted(retry.exchange, 'invocation.replay-same-task', retry.invoke);
  await tasks.stateOnceSettled(accepted.taskId, 'invocation.durable-before-accepted', RESTART_WAIT);
  const count = await readLedger(tasks, ledgerKey, 'invocation.replay-same-task');
  expectThat(
    `count ${String(count)}`,
    'invocation.replay-same-task',
    'the tool ran at most once for the invocation and its identical retry (ledger 0 or 1)',
    count <= 1,
  );
}

export const crashOnTheWireCases: readonly CaseDeclaration<'invocation'>[] = [
  {
    id: 'invocation.crash-on-the-wire',
    requirements: [
      'invocation.durable-before-accepted',
      'invocation.replay-same-task',
      'events.replay-identical',
      'task-states.terminal-immutable',
    ],
    profiles: ['task-execution'],
    level: 'MUST',
    scenario: 'crash',
    timeoutMs: 600_000,
    statement:
      'At kill points chosen at random (the <accepted/> of an invocation, the running status, a progress update, an input request, the completion), the gateway is killed with SIGKILL as that stanza leaves it, before the server sees it, and started again: the identical invocation then returns the task whose <accepted/> had left, the task answers task-state, a settlement whose event had left is what task-state and task-result say, an event sent again at a revision already written is identical, and the tool ran at most once. A gateway the harness does not start is killed by the external.kill command of its SUT file; without it the case cannot tell.',
    run: async (context) => {
      const link = context.sutControl?.link;
      if (link === undefined) throw new CannotTell(HARNESS_FEDERATION_ONLY);
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const count = context.budget.iterations(1, 24);
      // Every kind once before any repeats, in a seeded order.
      const kinds: KillPointKind[] = [];
      while (kinds.length < count) kinds.push(...context.random.shuffle(KILL_POINTS));
      // The <accepted/> point is the one #invocation is about: a short budget always has it.
      if (!kinds.slice(0, count).includes('accepted')) kinds[context.random.int(0, count - 1)] = 'accepted';
      const wire = new WireEvents(link);
      let killed = 0;
      try {
        for (const kind of kinds.slice(0, count)) {
          if (await crashAt(tasks, link, wire, kind)) killed += 1;
        }
      } finally {
        wire.stop();
      }
      caller.transcript.note(`${String(killed)} of ${String(count)} kill points reached`);
      if (killed === 0) {
        throw new CannotTell(
          'no kill point was reached: the gateway never wrote the stanzas the case waits for',
        );
      }
    },
  },
  {
    id: 'invocation.storage-fault-no-accepted',
    requirements: ['invocation.durable-before-accepted', 'invocation.replay-same-task'],
    profiles: ['task-execution'],
    level: 'MUST',
    scenario: 'crash',
    timeoutMs: 120_000,
    needs: ['libfiu'],
    statement:
      'While every fsync and fdatasync (or every pwrite) inside the gateway fails (libfiu in a launched gateway), an invocation gets no <accepted/> — none is written on the component link, whether the gateway answers with an error, says nothing or stops — and once storage works again (the gateway restarted if it stopped) the identical retry is admitted and the tool ran at most once. A gateway the harness does not start has its storage failed by the external.storageFault commands of its SUT file; without them, or without fiu-utils, the case cannot tell.',
    run: async (context) => {
      const control = context.sutControl;
      const link = control?.link;
      if (control === undefined || link === undefined) throw new CannotTell(HARNESS_FEDERATION_ONLY);
      const storage = control.storage;
      // libfiu missing from the machine is decided before the case runs (case-tools.ts); this is
      // libfiu there but not in the launched gateway's process (its preload libraries not found),
      // or a gateway the harness does not start whose SUT file gives no storage-fault commands.
      if (storage === undefined) {
        throw new MissingFixture(
          "the gateway's storage cannot be made to fail: a launched gateway was not started under libfiu, or the SUT file of a gateway the harness does not start gives no external.storageFault commands (docs/sut.md)",
        );
      }
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const count = context.budget.iterations(1, 6);
      // A failed WAL write first: the gateway stays up (no restart: the default budget's one
      // iteration costs a fraction of a second); a failed sync, which stops the reference gateway
      // and so costs a restart, comes second (--deep).
      const faults = ['write', 'sync'] as const;
      for (let index = 0; index < count; index += 1) {
        await storageFaultOnce(
          tasks,
          storage,
          link,

          faults[index % faults.length] ?? 'sync',
        );
      }
    },
  },
];
