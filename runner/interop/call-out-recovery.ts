/**
 * The recovery scenario, driven through the caller side's call-out, in two calls whose return
 * path across s2s is broken on purpose (the s2s proxies carry TLS, so they are cut by timing
 * read on the plaintext component links, where each stanza is seen before it is forwarded):
 *
 * - **cut link**: the target's script reports progress, runs on a while, then completes with a
 *   fresh nonce. When the target sends the progress, both s2s proxies freeze; the task keeps
 *   running, and once its terminal event is held too, both links are cut (held bytes are lost:
 *   neither the progress nor the completion ever reaches the caller) and restored. The caller
 *   must recover the outcome by itself (#task-message-routing: correctness never depends on
 *   events; #task-recovery: task-state and task-result, to the target's bare JID) and the
 *   call-out must report it exactly. A caller that never queries after the cut is undecided
 *   only if its report is right anyway (nothing was lost then); a wrong report fails it.
 * - **lost <accepted/>**: the target's first <accepted/> is frozen on its s2s way back and cut
 *   once the caller repeats the invoke. The repeat must be identical, same request ID
 *   (invocation.caller-retries-identically, naming the caller); the target must answer it with
 *   the same task (invocation.replay-same-task, naming the target); the call-out must report the
 *   task's outcome. A caller that does not repeat at all leaves this undecided.
 */
import type { Element } from '@xmpp/xml';

import type { FaultProxy } from '../../harness/faults/fault-proxy.ts';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import { NS_AGENT_TASK } from '../../protocol/namespaces.ts';
import { remoteTaskOf } from './call-out-events.ts';
import {
  admissionOf,
  acceptedTaskId,
  combinedVerdict,
  invokeAnswers,
  isVerdict,
  recordCallOut,
  repeatVerdict,
  reportVerdict,
  s2sFrom,
  type CallOutSetup,
} from './call-out-session.ts';
import type { ScenarioVerdict } from './scenario-verdicts.ts';

/** How long the target's task runs on with the links frozen (a script step, not a wait of ours). */
const RUNS_ON_MS = 1_000;

const RECOVERY_QUERIES = ['task-state-request', 'task-result-request'];

function isTaskEvent(stanza: Element, types: readonly string[]): boolean {
  const event = stanza.getChild('event', NS_AGENT_TASK);
  return stanza.name === 'message' && event !== undefined && types.includes(String(event.attrs['type']));
}

/**
 * Freezes the s2s links; `cut` then loses whatever they hold (TCP reset, the servers reconnect
 * on their next stanza) and lets traffic flow again; `restore` undoes any fault left.
 */
function s2sLinks(links: readonly FaultProxy[]): {
  freeze: () => void;
  cut: () => void;
  restore: () => void;
} {
  return {
    freeze: () => {
      for (const link of links) link.freeze();
    },
    cut: () => {
      for (const link of links) {
        link.cut();
        link.restore();
      }
    },
    restore: () => {
      for (const link of links) link.restore();
    },
  };
}

async function judgeCutLink(setup: CallOutSetup): Promise<ScenarioVerdict> {
  const { labels, verdict, pair } = setup;
  const nonce = generateIdentifier('nonce-');
  const returnLink = s2sFrom(pair, setup.target);
  const links = s2sLinks([s2sFrom(pair, 'a'), s2sFrom(pair, 'b')]);
  const cut: { frozen: boolean; atMs?: number; done?: Promise<void> } = { frozen: false };
  let recorded;
  try {
    recorded = await recordCallOut(
      setup,
      [
        { progress: { percent: 50, stage: 'before the cut' } },
        { wait: { ms: RUNS_ON_MS } },
        { complete: { structuredContent: { nonce } } },
      ],
      {
        onTargetStanza: (stanza) => {
          if (!cut.frozen && isTaskEvent(stanza, ['progress'])) {
            cut.frozen = true;
            links.freeze();
          } else if (
            cut.frozen &&
            cut.done === undefined &&
            isTaskEvent(stanza, ['completed', 'failed', 'cancelled'])
          ) {
            // Cut once the terminal event's bytes are held on their way back, so that they are lost.
            const heldBefore = returnLink.heldBytesTowardsTarget;
            const held = (): boolean => returnLink.heldBytesTowardsTarget > heldBefore;
            cut.done = returnLink.waitFor('held', held, setup.replyTimeoutMs).then(
              () => {
                links.cut();
                cut.atMs = performance.now();
              },
              () => {
                links.cut();
                cut.atMs = performance.now();
              },
            );
          }
        },
      },
    );
  } finally {
    await cut.done;
    links.restore();
  }
  const remote = remoteTaskOf(setup, recorded);
  if (isVerdict(remote)) return remote;
  const { run } = recorded;
  if (run instanceof Error)
    return verdict('cantTell', `the call-out task could not be followed: ${run.message}`);
  const cutAt = cut.atMs;
  if (cutAt === undefined)
    return verdict('cantTell', `the links were never cut: ${labels.target} sent no progress`);
  const mismatch = reportVerdict(setup, run, {
    taskId: remote.taskId,
    state: remote.terminal.event.type,
    payload: remote.terminal.payload,
  });
  if (mismatch !== undefined) return mismatch;
  const queries = recorded.callerSent.filter(
    ({ stanza, atMs }) =>
      atMs >= cutAt &&
      stanza.name === 'iq' &&
      RECOVERY_QUERIES.some((name) => stanza.getChild(name, NS_AGENT_TASK) !== undefined),
  );
  const first = queries[0];
  if (first === undefined) {
    return verdict(
      'cantTell',
      `${labels.caller} reported the outcome without a task-state or task-result query after the cut: the lost events cannot have been lost, so recovery was not exercised`,
    );
  }
  const misrouted = queries.find(({ stanza }) => stanza.attrs['to'] !== setup.targetEndpoint);
  if (misrouted !== undefined) {
    return verdict(
      'failed',
      `${labels.caller}: task-message-routing.bare-jid-commands (a recovery query went to '${String(misrouted.stanza.attrs['to'])}', not ${setup.targetEndpoint})`,
      'task-message-routing.bare-jid-commands',
      labels.caller,
    );
  }
  return verdict(
    'passed',
    `cut link: both s2s links cut while they held ${labels.target}'s progress and ${remote.terminal.event.type} events; ${labels.caller} recovered by ${String(queries.length)} query(ies) and reported the outcome`,
  );
}

function isInvoke(stanza: Element, targetEndpoint: string): boolean {
  return (
    stanza.name === 'iq' &&
    stanza.getChild('invoke', NS_AGENT_TASK) !== undefined &&
    String(stanza.attrs['to']).split('/')[0] === targetEndpoint
  );
}

async function judgeLostAccepted(setup: CallOutSetup): Promise<ScenarioVerdict> {
  const { labels, verdict, pair, targetEndpoint } = setup;
  const nonce = generateIdentifier('nonce-');
  // Only the way back: the caller's repeat must still reach the target.
  const links = s2sLinks([s2sFrom(pair, setup.target)]);
  const lost: { invokeId?: string; frozen: boolean; cut: boolean } = { frozen: false, cut: false };
  let recorded;
  try {
    recorded = await recordCallOut(setup, [{ complete: { structuredContent: { nonce } } }], {
      onCallerStanza: (stanza) => {
        if (!isInvoke(stanza, targetEndpoint)) return;
        const id = String(stanza.attrs['id']);
        if (lost.invokeId === undefined) lost.invokeId = id;
        else if (lost.frozen && !lost.cut) {
          // The caller repeated the invoke: the first <accepted/> is lost for good.
          lost.cut = true;
          links.cut();
        }
      },
      onTargetStanza: (stanza) => {
        if (lost.frozen || stanza.name !== 'iq' || stanza.attrs['id'] !== lost.invokeId) return;
        if (acceptedTaskId(stanza) === undefined) return;
        lost.frozen = true;
        links.freeze();
      },
    });
  } finally {
    links.restore();
  }
  const admission = admissionOf(setup, recorded);
  if (isVerdict(admission)) return admission;
  if ('refused' in admission)
    return verdict(
      'cantTell',
      `${labels.target} refused the call-out's <invoke/>: ${admission.refused.toString().slice(0, 300)}`,
    );
  if (!lost.frozen)
    return verdict('cantTell', `${labels.target}'s <accepted/> was never seen, so none was lost`);
  const [first, retry] = admission.invokes;
  if (first === undefined || retry === undefined) {
    const { run } = recorded;
    const ended =
      run instanceof Error
        ? run.message
        : `the call-out ended ${run.terminalType} ${run.terminalJson.slice(0, 200)}`;
    return verdict(
      'cantTell',
      `${labels.caller} did not repeat its <invoke/> after the <accepted/> was lost (${ended})`,
    );
  }
  const repeat = repeatVerdict(setup, recorded, admission);
  if (repeat !== undefined) return repeat;
  const answers = invokeAnswers(recorded, admission);
  const replayedTask = answers[1] === undefined ? undefined : acceptedTaskId(answers[1].stanza);
  if (replayedTask === undefined)
    return verdict('cantTell', `${labels.target} sent no answer to the repeated <invoke/> while watched`);
  const { run } = recorded;
  if (run instanceof Error)
    return verdict('cantTell', `the call-out task could not be followed: ${run.message}`);
  const remote = remoteTaskOf(setup, recorded);
  if (isVerdict(remote)) return remote;
  const mismatch = reportVerdict(setup, run, {
    taskId: remote.taskId,
    state: remote.terminal.event.type,
    payload: remote.terminal.payload,
  });
  if (mismatch !== undefined) return mismatch;
  return verdict(
    'passed',
    `lost <accepted/>: ${labels.caller} repeated request ${first.invoke.requestId} identically (${String(admission.invokes.length - 1)} time(s)); ${labels.target} replayed task ${replayedTask}; the call-out reported its outcome`,
  );
}

export async function judgeRecoveryThroughCallOut(setup: CallOutSetup): Promise<ScenarioVerdict> {
  const cutLink = await judgeCutLink(setup);
  const lostAccepted = await judgeLostAccepted(setup);
  return combinedVerdict(setup, [cutLink, lostAccepted]);
}
