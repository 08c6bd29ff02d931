/**
 * The cancellation-input scenario, driven through the caller side's call-out, in two calls:
 *
 * - **input**: the target's script asks for input, then completes echoing it. Whoever invoked
 *   the call-out answers the input request the caller relays (with a fresh nonce); the caller
 *   must pass it to the target as a task command to its bare JID (#task-message-routing), and
 *   the call-out must report the target's completion, which carries the answer. Relaying input
 *   is optional in the call-out contract: a caller that relays none leaves this undecided.
 * - **cancellation**, twice: the target's script reports progress, then waits (until cancelled,
 *   or for as long as the caller's task limit, so that it never outlives the scenario); its tool
 *   honours the cancellation the first time and completes anyway the second. Once the
 *   target's progress is seen, the invoker cancels the call-out task; the caller must send the
 *   target a <cancel/> for the remote task, to its bare JID, and its call-out settles only once
 *   the target settled (#cancellation: a cancellation is advisory, so completed, failed and
 *   cancelled are all allowed; `<cancel-accepted/>` alone is not cancellation, #mcp-mapping).
 *
 * The scenario passes when both parts pass; a failure of either names its side and requirement.
 */
import type { Element } from '@xmpp/xml';

import { StanzaErrorReply, type Caller, type ValidTaskEvent } from '../../harness/driver/index.ts';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import { canonicalJson } from '../../protocol/json/canonical.ts';
import { isJsonObject } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { NS_AGENT_TASK } from '../../protocol/namespaces.ts';
import {
  buildCancel,
  buildProvideInput,
  isLifecycleMessage,
  parseCancel,
  parseProvideInput,
} from '../../protocol/stanza/index.ts';
import { remoteTaskOf } from './call-out-events.ts';
import {
  admissionOf,
  combinedVerdict,
  isVerdict,
  recordCallOut,
  reportVerdict,
  type CallOutSetup,
  type RecordedCallOut,
  type SentStanza,
} from './call-out-session.ts';
import type { ScenarioVerdict } from './scenario-verdicts.ts';

const INPUT_SCHEMA = {
  type: 'object',
  properties: { word: { type: 'string' } },
  required: ['word'],
  additionalProperties: false,
};

/** Task commands of one kind (`cancel`, `provide-input`) the caller sent the target's domain. */
function commandsSent(
  recorded: RecordedCallOut,
  name: string,
  targetDomain: string,
): readonly { readonly stanza: Element; readonly command: Element }[] {
  return recorded.callerSent.flatMap(({ stanza }) => {
    const command = stanza.getChild(name, NS_AGENT_TASK);
    const to = stanza.attrs['to'];
    if (stanza.name !== 'iq' || command === undefined || typeof to !== 'string') return [];
    return to.split('/')[0]?.endsWith(`@${targetDomain}`) === true ? [{ stanza, command }] : [];
  });
}

/** A command to a full JID breaks #task-message-routing; undefined when it went to the bare JID. */
function routingVerdict(setup: CallOutSetup, stanza: Element, what: string): ScenarioVerdict | undefined {
  if (stanza.attrs['to'] === setup.targetEndpoint) return undefined;
  return setup.verdict(
    'failed',
    `${setup.labels.caller}: task-message-routing.bare-jid-commands (its ${what} went to '${String(stanza.attrs['to'])}', not the target's bare JID ${setup.targetEndpoint})`,
    'task-message-routing.bare-jid-commands',
    setup.labels.caller,
  );
}

function lastRevision(invoker: Caller, taskId: string): number {
  let revision = 0;
  for (const received of invoker.events.all(taskId)) {
    if (received.valid) revision = Math.max(revision, received.event.revision);
  }
  return revision;
}

async function judgeInput(setup: CallOutSetup): Promise<ScenarioVerdict> {
  const { labels, verdict } = setup;
  const nonce = generateIdentifier('word-');
  // Written by the hook while the call-out runs.
  const answered: { relayed: boolean; refused?: string } = { relayed: false };
  const recorded = await recordCallOut(
    setup,
    [
      { input: { question: 'Which word?', inputSchema: INPUT_SCHEMA, expiresInMs: setup.taskTimeoutMs } },
      { complete: { echoInputs: true } },
    ],
    {
      onCallOutEvent: async (received: ValidTaskEvent, call) => {
        if (received.event.type !== 'input_required') return;
        answered.relayed = true;
        const payload = parseStrictJson(received.event.json);
        const requestId = isJsonObject(payload) ? payload['requestId'] : undefined;
        if (typeof requestId !== 'string') return;
        try {
          await call.invoker.iq(
            setup.endpoint,
            'set',
            buildProvideInput({
              taskId: call.taskId,
              requestId,
              expectedRevision: received.event.revision,
              inputJson: canonicalJson({ word: nonce }),
            }),
          );
        } catch (error) {
          if (!(error instanceof StanzaErrorReply)) throw error;
          answered.refused = error.message;
        }
      },
    },
  );
  const remote = remoteTaskOf(setup, recorded);
  if (isVerdict(remote)) return remote;
  const { run } = recorded;
  if (run instanceof Error)
    return verdict('cantTell', `the call-out task could not be followed: ${run.message}`);
  if (!answered.relayed) {
    return verdict(
      'cantTell',
      `${labels.caller} relayed no input request to its invoker (optional in the call-out contract); the call-out ended ${run.terminalType}`,
    );
  }
  if (answered.refused !== undefined)
    return verdict('cantTell', `${labels.caller} refused the invoker's answer: ${answered.refused}`);
  const sent = commandsSent(
    recorded,
    'provide-input',
    setup.pair.gateways[setup.target].facts.componentDomain,
  );
  const forwarded = sent.find(({ command }) => {
    try {
      const input = parseProvideInput(command);
      return (
        input.taskId === remote.taskId && canonicalJson(parseStrictJson(input.inputJson)).includes(nonce)
      );
    } catch {
      return false;
    }
  });
  if (forwarded === undefined) {
    return verdict(
      'cantTell',
      `${labels.caller} sent ${labels.target} no <provide-input/> carrying the invoker's answer for task ${remote.taskId} (${String(sent.length)} other)`,
    );
  }
  const misrouted = routingVerdict(setup, forwarded.stanza, '<provide-input/>');
  if (misrouted !== undefined) return misrouted;
  const mismatch = reportVerdict(setup, run, {
    taskId: remote.taskId,
    state: remote.terminal.event.type,
    payload: remote.terminal.payload,
  });
  if (mismatch !== undefined) return mismatch;
  if (remote.terminal.event.type !== 'completed' || !canonicalJson(remote.terminal.payload).includes(nonce)) {
    return verdict(
      'cantTell',
      `${labels.target} accepted the input but settled ${remote.terminal.event.type} ${canonicalJson(remote.terminal.payload).slice(0, 200)}, not a completion echoing it`,
    );
  }
  return verdict(
    'passed',
    `input: ${labels.caller} relayed the input request, passed the answer to ${setup.targetEndpoint}, and reported the completion echoing it`,
  );
}

/** When a gateway sent the task's terminal event, read on its own link. */
function terminalSentAt(sent: readonly SentStanza[], taskId: string): number | undefined {
  return sent.find(({ stanza }) => {
    if (stanza.name !== 'message' || !isLifecycleMessage(stanza)) return false;
    const event = stanza.getChild('event', NS_AGENT_TASK);
    return (
      event?.attrs['task-id'] === taskId &&
      ['completed', 'failed', 'cancelled'].includes(String(event.attrs['type']))
    );
  })?.atMs;
}

/** When the caller gateway sent the call-out task's terminal event. */
function callOutSettledAt(callerSent: readonly SentStanza[], taskId: string): number | undefined {
  return terminalSentAt(callerSent, taskId);
}

/**
 * The call-out settled while the remote task had not (its terminal event, read on the caller's
 * link, came before any terminal event of the remote task on the target's link): the caller took
 * something short of settlement, <cancel-accepted/> say, for the outcome. Undefined otherwise,
 * or when the remote task is unknown.
 */
function settledBeforeTarget(setup: CallOutSetup, recorded: RecordedCallOut): ScenarioVerdict | undefined {
  const { run } = recorded;
  if (run instanceof Error) return undefined;
  const admission = admissionOf(setup, recorded);
  if (isVerdict(admission) || 'refused' in admission) return undefined;
  const settledAt = callOutSettledAt(recorded.callerSent, run.taskId);
  if (settledAt === undefined) return undefined;
  const remoteSettledAt = terminalSentAt(recorded.targetSent, admission.accepted.taskId);
  if (remoteSettledAt !== undefined && remoteSettledAt <= settledAt) return undefined;
  return setup.verdict(
    'failed',
    `${setup.labels.caller}: mcp-mapping.cancel-accepted-not-cancellation (its call-out settled ${run.terminalType} ${run.terminalJson.slice(0, 200)} while ${setup.labels.target} had not settled task ${admission.accepted.taskId})`,
    'mcp-mapping.cancel-accepted-not-cancellation',
    setup.labels.caller,
  );
}

async function judgeCancellation(
  setup: CallOutSetup,
  onCancel: 'confirm' | 'proceed',
): Promise<ScenarioVerdict> {
  const { labels, verdict } = setup;
  let cancelling: Promise<string | undefined> | undefined;
  const cancelCallOut = async (invoker: Caller, taskId: string): Promise<string | undefined> => {
    // The call-out task may have moved on (relayed progress) since: retry at its newest revision.
    let refusal: string | undefined;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        await invoker.iq(
          setup.endpoint,
          'set',
          buildCancel({
            taskId,
            expectedRevision: lastRevision(invoker, taskId),
            reason: 'interop scenario',
          }),
        );
        return undefined;
      } catch (error) {
        if (!(error instanceof StanzaErrorReply)) throw error;
        refusal = error.message;
      }
    }
    return refusal;
  };
  const recorded = await recordCallOut(
    setup,
    [
      { progress: { percent: 10, stage: 'started' } },
      { wait: { ms: setup.taskTimeoutMs, onCancel } },
      // With 'proceed' the tool completes a second after the cancellation (a step of the
      // target's script), so that a caller taking <cancel-accepted/> for cancellation shows.
      { wait: { ms: 1_000, onCancel: 'ignore' } },
      { complete: { structuredContent: { completedAnyway: true } } },
    ],
    {
      onTargetStanza: (stanza, started) => {
        const event = stanza.getChild('event', NS_AGENT_TASK);
        if (cancelling !== undefined || stanza.name !== 'message' || event?.attrs['type'] !== 'progress')
          return;
        cancelling = started.then((call) => cancelCallOut(call.invoker, call.taskId));
      },
    },
  );
  const refusal = await cancelling;
  const early = settledBeforeTarget(setup, recorded);
  if (early !== undefined) return early;
  const remote = remoteTaskOf(setup, recorded);
  if (isVerdict(remote)) return remote;
  const { run } = recorded;
  if (run instanceof Error)
    return verdict('cantTell', `the call-out task could not be followed: ${run.message}`);
  if (cancelling === undefined)
    return verdict(
      'cantTell',
      `${labels.target} sent no progress event, so the call-out was never cancelled`,
    );
  if (refusal !== undefined)
    return verdict('cantTell', `${labels.caller} refused the cancellation of its call-out task: ${refusal}`);
  const cancels = commandsSent(
    recorded,
    'cancel',
    setup.pair.gateways[setup.target].facts.componentDomain,
  ).filter(({ command }) => {
    try {
      return parseCancel(command).taskId === remote.taskId;
    } catch {
      return false;
    }
  });
  const cancel = cancels[0];
  if (cancel === undefined) {
    return verdict(
      'cantTell',
      `${labels.caller} sent ${labels.target} no <cancel/> for task ${remote.taskId} after its call-out was cancelled (the call-out contract asks for one); the call-out ended ${run.terminalType}`,
    );
  }
  const misrouted = routingVerdict(setup, cancel.stanza, '<cancel/>');
  if (misrouted !== undefined) return misrouted;
  const remoteState = remote.terminal.event.type;
  if (run.terminalType === 'cancelled') {
    // The call-out task itself cancelled: allowed once the remote task settled cancelled.
    if (remoteState === 'cancelled') {
      return verdict(
        'passed',
        `cancellation (${onCancel}): ${labels.caller} sent <cancel/> to ${setup.targetEndpoint}; its call-out settled cancelled after the target did`,
      );
    }
    return verdict(
      'failed',
      `${labels.caller}: mcp-mapping.cancel-accepted-not-cancellation (its call-out settled cancelled, but ${labels.target} settled the remote task ${remoteState})`,
      'mcp-mapping.cancel-accepted-not-cancellation',
      labels.caller,
    );
  }
  const mismatch = reportVerdict(
    setup,
    run,
    { taskId: remote.taskId, state: remoteState, payload: remote.terminal.payload },
    'mcp-mapping.cancel-accepted-not-cancellation',
  );
  if (mismatch !== undefined) return mismatch;
  return verdict(
    'passed',
    `cancellation (${onCancel}): ${labels.caller} sent <cancel/> to ${setup.targetEndpoint}; the target settled ${remoteState} and the call-out reported it once it had`,
  );
}

export async function judgeCancellationInputThroughCallOut(setup: CallOutSetup): Promise<ScenarioVerdict> {
  const input = await judgeInput(setup);
  // The target's tool honours the cancellation, then ignores it and completes: a caller must
  // report what the target settled either way.
  const honoured = await judgeCancellation(setup, 'confirm');
  const ignored = await judgeCancellation(setup, 'proceed');
  return combinedVerdict(setup, [input, honoured, ignored]);
}
