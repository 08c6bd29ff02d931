/**
 * The events scenario, driven through the caller side's call-out: the target's conformance
 * script reports two progress updates, then completes with a fresh nonce. Judged on the wire:
 * the target's lifecycle messages to the caller gateway, read on the target's component link
 * (addressed to the invoking JID, valid, one per revision in order: target-events.ts); the
 * caller relays the target's progress to whoever invoked the call-out (optional in the call-out
 * contract, so a caller relaying none leaves the scenario undecided); the call-out reports the
 * target's terminal outcome exactly.
 */
import { generateIdentifier } from '../../protocol/identifiers.ts';
import { canonicalJson } from '../../protocol/json/canonical.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import {
  admissionOf,
  isVerdict,
  recordCallOut,
  repeatVerdict,
  reportVerdict,
  type CallOutRun,
  type CallOutSetup,
  type RecordedCallOut,
} from './call-out-session.ts';
import { withWarnings, type ScenarioVerdict } from './scenario-verdicts.ts';
import { checkedTargetEvents, isEventProblem, terminalOf, type TargetEvent } from './target-events.ts';

const SCRIPTED_PROGRESS = [
  { percent: 25, stage: 'interop' },
  { percent: 75, message: 'almost there' },
];

export interface RemoteTask {
  readonly taskId: string;
  readonly invokerJid: string;
  readonly events: readonly TargetEvent[];
  readonly terminal: TargetEvent;
  /** Recommendations the target's events did not meet. */
  readonly warnings: readonly string[];
}

/**
 * The remote task as the target's component link shows it: admitted, its events checked, and
 * settled. A verdict when one side broke a requirement or something was not seen.
 */
export function remoteTaskOf(setup: CallOutSetup, recorded: RecordedCallOut): ScenarioVerdict | RemoteTask {
  const { labels, verdict } = setup;
  const admission = admissionOf(setup, recorded);
  if (isVerdict(admission)) return admission;
  if ('refused' in admission) {
    return verdict(
      'cantTell',
      `${labels.target} refused the call-out's <invoke/> (${admission.refused.toString().slice(0, 300)}); the invocation scenario judges refusals`,
    );
  }
  const repeat = repeatVerdict(setup, recorded, admission);
  if (repeat !== undefined) return repeat;
  const invokerJid = admission.invokes[0]?.stanza.attrs['from'];
  if (typeof invokerJid !== 'string')
    return verdict(
      'cantTell',
      `${labels.caller}'s <invoke/> carries no from address as its component sent it`,
    );
  const checked = checkedTargetEvents(
    recorded.targetSent,
    admission.accepted.taskId,
    invokerJid,
    admission.accepted.revision,
  );
  if (isEventProblem(checked)) {
    return verdict(
      'failed',
      `${labels.target}: ${checked.requirement} (${checked.message})`,
      checked.requirement,
      labels.target,
    );
  }
  const terminal = terminalOf(checked.events);
  if (terminal === undefined) {
    const why = recorded.run instanceof Error ? `: ${recorded.run.message}` : '';
    return verdict(
      'cantTell',
      `${labels.target} sent no terminal event for task ${admission.accepted.taskId} while it was watched${why}`,
    );
  }
  return {
    taskId: admission.accepted.taskId,
    invokerJid,
    events: checked.events,
    terminal,
    warnings: checked.warnings.map((warning) => `${labels.target}: ${warning}`),
  };
}

export async function judgeEventsThroughCallOut(setup: CallOutSetup): Promise<ScenarioVerdict> {
  const { verdict } = setup;
  const nonce = generateIdentifier('nonce-');
  const recorded = await recordCallOut(setup, [
    ...SCRIPTED_PROGRESS.map((progress) => ({ progress })),
    { complete: { structuredContent: { nonce } } },
  ]);
  const remote = remoteTaskOf(setup, recorded);
  if (isVerdict(remote)) return remote;
  const { run } = recorded;
  if (run instanceof Error)
    return verdict('cantTell', `the call-out task could not be followed: ${run.message}`);
  const mismatch = reportVerdict(setup, run, {
    taskId: remote.taskId,
    state: remote.terminal.event.type,
    payload: remote.terminal.payload,
  });
  if (mismatch !== undefined) return mismatch;
  return withWarnings(relayVerdict(setup, remote, run), remote.warnings);
}

/** Whether the caller relayed the progress the target committed (the warnings are the caller's to add). */
function relayVerdict(setup: CallOutSetup, remote: RemoteTask, run: CallOutRun): ScenarioVerdict {
  const { labels, verdict } = setup;
  const targetProgress = remote.events
    .filter((received) => received.event.type === 'progress')
    .map((received) => canonicalJson(received.payload));
  if (targetProgress.length === 0) {
    return verdict(
      'cantTell',
      `${labels.target} committed none of the scripted progress updates (a target may coalesce or drop them), so no relay could be seen`,
    );
  }
  const relayed = run.events
    .filter((received) => received.event.type === 'progress')
    .map((received) => canonicalJson(parseStrictJson(received.event.json)));
  const relayedRemote = relayed.filter((payload) => targetProgress.includes(payload));
  if (relayedRemote.length === 0) {
    return verdict(
      'cantTell',
      `${labels.caller} relayed none of ${labels.target}'s ${String(targetProgress.length)} progress event(s) to its invoker (relaying is optional in the call-out contract)`,
    );
  }
  return verdict(
    'passed',
    `${labels.target} sent ${String(remote.events.length)} valid events to ${remote.invokerJid} (revisions ${String(remote.events[0]?.event.revision ?? 0)}–${String(remote.terminal.event.revision)}); ${labels.caller} relayed ${String(relayedRemote.length)} progress update(s) and reported the result`,
  );
}
