/**
 * The invocation scenario, driven through the caller side's conformance call-out (docs/caller.md,
 * "A gateway whose own agents call out"): a local account of the caller gateway invokes its
 * call-out tool, naming the target gateway's `conformance` endpoint and a script that completes
 * with a fresh nonce; the caller gateway then pins the target's metadata and invokes it across
 * s2s, as its own agents would. Judged on the wire, on both gateways' component links: the
 * caller's <invoke/> must be well-formed and pinned (#invocation, #manifest-retrieval), the
 * target must admit it (<accepted/>) and the call-out must report the remote task completed
 * with the nonce. Whatever was not observed makes the scenario cantTell, never a pass.
 */
import type { Element } from '@xmpp/xml';

import { createDriver } from '../../harness/driver/index.ts';
import type { PairSide } from '../../harness/federation/pair-side.ts';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import { buildManifestRequest, parseInvoke, parseManifest, sameHash } from '../../protocol/stanza/index.ts';
import { PAIR_DOMAINS } from '../../suites/interop/pair-world.ts';
import type { PairGateways } from './pair-gateways.ts';
import {
  admissionOf,
  isVerdict,
  recordCallOut,
  reportOf,
  reportVerdict,
  type CallOutRun,
  type CallOutSetup,
  type RecordedCallOut,
  type VerdictOf,
} from './call-out-session.ts';
import { remoteTaskOf } from './call-out-events.ts';
import type { ScenarioVerdict } from './scenario-verdicts.ts';

/**
 * The target refused the caller's <invoke/>. The caller broke the pin when the version and hash
 * it sent are not what the target serves for that version (manifest-retrieval.client-pins-version);
 * otherwise the refusal may be one the spec allows (a limit, say): cantTell, with what came back.
 */
async function refusedInvoke(
  pair: PairGateways,
  target: PairSide,
  targetEndpoint: string,
  invokeElement: Element,
  answer: Element,
  labels: { readonly caller: string; readonly target: string },
  verdict: VerdictOf,
): Promise<ScenarioVerdict> {
  const refusal = answer.toString().slice(0, 300);
  const sent = parseInvoke(invokeElement);
  const driver = createDriver(pair.federation);
  try {
    const reader = await driver.connect(`bob@${PAIR_DOMAINS[target].local}`, 'interop-pin-check');
    const served = await reader
      .iq(targetEndpoint, 'get', buildManifestRequest({ version: sent.apiVersion }))
      .then((payload) => (payload === undefined ? undefined : parseManifest(payload)))
      .catch(() => undefined);
    if (served === undefined || !sameHash(served.hash, sent.manifestHash)) {
      return verdict(
        'failed',
        `${labels.caller}: manifest-retrieval.client-pins-version (invoked ${targetEndpoint} at version ${sent.apiVersion} with a hash ${targetEndpoint} does not serve for it; refused: ${refusal})`,
        'manifest-retrieval.client-pins-version',
        labels.caller,
      );
    }
    return verdict(
      'cantTell',
      `${labels.target} refused a well-formed, correctly pinned <invoke/> from a granted caller (${refusal}): a refusal the spec may allow (a limit), so neither side is judged`,
    );
  } finally {
    await driver.closeAll();
  }
}

export async function judgeInvocationThroughCallOut(setup: CallOutSetup): Promise<ScenarioVerdict> {
  const { labels, targetEndpoint, verdict } = setup;
  const nonce = generateIdentifier('nonce-');
  const recorded = await recordCallOut(setup, [{ complete: { structuredContent: { nonce } } }]);
  const admission = admissionOf(setup, recorded);
  if (isVerdict(admission)) return admission;
  if ('refused' in admission) {
    return await refusedInvoke(
      setup.pair,
      setup.target,
      targetEndpoint,
      admission.invoke,
      admission.refused,
      labels,
      verdict,
    );
  }
  const { run } = recorded;
  if (run instanceof Error)
    return verdict('cantTell', `the call-out task could not be followed: ${run.message}`);
  const content = reportOf(run);
  const carriesNonce =
    run.terminalType === 'completed' &&
    content?.state === 'completed' &&
    JSON.stringify(content.result ?? null).includes(nonce);
  if (!carriesNonce) return misreported(setup, recorded, run);
  return verdict(
    'passed',
    `${labels.caller} invoked ${targetEndpoint} across s2s; ${labels.target} admitted it; the remote result came back (${String(admission.invokes.length)} <invoke/>)`,
  );
}

/**
 * The call-out did not come back completed with the nonce. Whose fault that is depends on what
 * the target settled, as its component link shows: a report other than that is the caller's
 * (it must end up with the complete result, #task-message-routing); a target that settled
 * otherwise, or was not seen settling, leaves the caller unjudged here.
 */
function misreported(setup: CallOutSetup, recorded: RecordedCallOut, run: CallOutRun): ScenarioVerdict {
  const remote = remoteTaskOf(setup, recorded);
  if (isVerdict(remote)) return remote;
  const state = remote.terminal.event.type;
  const mismatch = reportVerdict(setup, run, {
    taskId: remote.taskId,
    state,
    payload: remote.terminal.payload,
  });
  return (
    mismatch ??
    setup.verdict(
      'cantTell',
      `${setup.labels.target} settled the scripted task ${state} without the scripted nonce, and ${setup.labels.caller} reported that faithfully`,
    )
  );
}
