/**
 * The s2s links between the federated caller's server and the gateway's are cut or delayed while
 * an invocation is on its way (issue 14, item 4); the caller gives up and retries identically:
 * every <accepted/> the gateway wrote for that request names the same task, which ran once.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import { setTimeout as delay } from 'node:timers/promises';
import { buildInvoke } from '../../../protocol/stanza/index.ts';
import type { CaseContext, ComponentLinkControl } from '../../framework/context.ts';
import { expectThat } from '../../framework/expect.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import { freshLedgerKey, readLedger } from '../support/ledger.ts';
import { expectAccepted } from '../support/task-replies.ts';
import { TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { acceptedOnWire } from '../support/wire-stanzas.ts';
import { HARNESS_FEDERATION_ONLY, invokeOf } from '../support/link-faults.ts';

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

/** How long the caller still listens once the s2s link was cut under the gateway's answer. */
const CUT_GRACE_MS = 100;

/** One invocation through a faulty s2s link, then its identical retry. */
async function throughFaultyS2s(
  tasks: TaskSession,
  link: ComponentLinkControl,
  s2s: NonNullable<NonNullable<CaseContext['sutControl']>['s2s']>,
  fault: 'cut' | 'delay',
): Promise<void> {
  const { context, caller, target } = tasks;
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
    const settled = await tasks.stateOnceSettled(
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
    const count = await readLedger(tasks, ledgerKey, 'invocation.replay-same-task');
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

export const linkFaultCases: readonly CaseDeclaration<'invocation'>[] = [
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
      if (link === undefined || s2s === undefined) throw new CannotTell(HARNESS_FEDERATION_ONLY);
      const target = conformanceTarget(context);
      const caller = await context.callers.remote();
      const tasks = new TaskSession(context, caller, target);
      const count = context.budget.iterations(2, 12);
      const faults = ['cut', 'delay'] as const;
      for (let index = 0; index < count; index += 1) {
        const fault = index < faults.length ? faults[index] : context.random.pick(faults);
        await throughFaultyS2s(tasks, link, s2s, fault ?? 'cut');
      }
    },
  },
];
