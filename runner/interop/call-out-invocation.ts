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

import { createDriver, type Caller } from '../../harness/driver/index.ts';
import type { FaultProxy } from '../../harness/faults/fault-proxy.ts';
import type { PairSide } from '../../harness/federation/pair-side.ts';
import type { SutConfig } from '../../harness/sut/sut-config.ts';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import { NS_AGENT_TASK } from '../../protocol/namespaces.ts';
import {
  buildInvoke,
  buildManifestRequest,
  parseAccepted,
  parseInvoke,
  parseManifest,
  sameHash,
} from '../../protocol/stanza/index.ts';
import { PAIR_DOMAINS } from '../../suites/interop/pair-world.ts';
import type { InteropScenario } from '../../suites/interop/scenarios.ts';
import type { PairGateways } from './pair-gateways.ts';
import { judgedThroughCallOut, type ScenarioVerdict } from './scenario-verdicts.ts';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

function componentLinkOf(pair: PairGateways, side: PairSide): FaultProxy {
  const link = side === 'a' ? pair.federation.links.pairComponent : pair.federation.links.component;
  if (link === undefined) throw new Error(`the pair has no component link for gateway ${side.toUpperCase()}`);
  return link;
}

/** Every stanza a gateway sends while `during` runs, read on its component link. */
async function recording<T>(
  link: FaultProxy,
  during: () => Promise<T>,
): Promise<{ value: T; sent: Element[] }> {
  const sent: Element[] = [];
  const listener = (stanza: Element): void => {
    sent.push(stanza);
  };
  link.on('stanza', listener);
  try {
    return { value: await during(), sent };
  } finally {
    link.off('stanza', listener);
  }
}

interface CallOutRun {
  readonly terminalType: string;
  readonly terminalJson: string;
}

async function callOut(
  invoker: Caller,
  endpoint: string,
  tool: string,
  input: unknown,
  timeoutMs: number,
): Promise<CallOutRun> {
  const manifestPayload = await invoker.iq(endpoint, 'get', buildManifestRequest({}));
  if (manifestPayload === undefined)
    throw new Error(`${endpoint} answered its manifest request with no manifest`);
  const manifest = parseManifest(manifestPayload);
  const accepted = await invoker.iq(
    endpoint,
    'set',
    buildInvoke({
      requestId: generateIdentifier('interop-'),
      tool,
      apiVersion: manifest.version,
      manifestHash: manifest.hash,
      argumentsJson: JSON.stringify(input),
    }),
  );
  if (accepted === undefined) throw new Error(`${endpoint} admitted the call-out with no <accepted/>`);
  const { taskId } = parseAccepted(accepted);
  for (;;) {
    const received = await invoker.events.next(taskId, { timeoutMs });
    if (!received.valid)
      throw new Error(`the call-out task sent an invalid lifecycle message: ${received.problem.message}`);
    if (TERMINAL.has(received.event.type)) {
      return { terminalType: received.event.type, terminalJson: received.event.json };
    }
  }
}

function isInvokeTo(stanza: Element, target: string): boolean {
  return (
    stanza.name === 'iq' &&
    stanza.attrs['to'] === target &&
    stanza.getChild('invoke', NS_AGENT_TASK) !== undefined
  );
}

type VerdictOf = (
  outcome: ScenarioVerdict['outcome'],
  reason: string,
  requirement?: string,
  side?: string,
) => ScenarioVerdict;

/**
 * The target refused the caller's <invoke/>. The caller broke the pin when the version and hash
 * it sent are not what the target serves for that version (manifest-retrieval.client-pins-version);
 * otherwise the refusal may be one the spec allows (a limit, say): cantTell, with what came back.
 */
async function refusedInvoke(
  pair: PairGateways,
  target: PairSide,
  targetEndpoint: string,
  invokeElement: Element | undefined,
  answer: Element,
  labels: { readonly caller: string; readonly target: string },
  verdict: VerdictOf,
): Promise<ScenarioVerdict> {
  const refusal = answer.toString().slice(0, 300);
  if (invokeElement === undefined)
    return verdict('cantTell', `${labels.target} refused the <invoke/>: ${refusal}`);
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

export async function judgeInvocationThroughCallOut(
  scenario: InteropScenario,
  pair: PairGateways,
  direction: { readonly caller: PairSide; readonly target: PairSide },
  suts: Readonly<Record<PairSide, SutConfig>>,
): Promise<ScenarioVerdict> {
  const { caller, target } = direction;
  const callerLabel = `caller ${caller.toUpperCase()}`;
  const targetLabel = `target ${target.toUpperCase()}`;
  const declared = suts[caller].caller;
  if (declared?.kind !== 'gateway-tool') return judgedThroughCallOut(scenario, suts[caller], callerLabel);
  const callerDomain = pair.gateways[caller].facts.componentDomain;
  const endpoint = `${declared.endpoint.split('@')[0] ?? ''}@${callerDomain}`;
  const targetEndpoint = `conformance@${pair.gateways[target].facts.componentDomain}`;
  const nonce = generateIdentifier('nonce-');
  const timeoutMs = suts[caller].timeouts.taskSeconds * 1_000;
  const base = { id: scenario.id, title: scenario.title, cases: [] };
  const labels = { caller: callerLabel, target: targetLabel };
  const verdict: VerdictOf = (outcome, reason, requirement, side) => ({
    ...base,
    outcome,
    reason,
    failures:
      outcome === 'failed' && requirement !== undefined && side !== undefined
        ? [{ side, requirement, caseId: `interop.${scenario.id}`, message: reason }]
        : [],
  });

  const driver = createDriver(pair.federation, { timeoutMs: suts[caller].timeouts.replySeconds * 1_000 });
  try {
    // The SUT file's call-out account, else its adminJid: a call-out is a request forgery risk,
    // so gateways grant it to the suite's account alone (docs/caller.md).
    const invokerJid = (pair.gateways[caller].callOutAccount ?? pair.gateways[caller].adminAccount)?.jid;
    if (invokerJid === undefined) {
      return verdict(
        'cantTell',
        `${callerLabel}'s SUT file names neither caller.gatewayTool.account nor adminJid, the account that may invoke its call-out`,
      );
    }
    const invoker = await driver.connect(invokerJid, 'interop-call-out');
    const targetLink = componentLinkOf(pair, target);
    const callerLink = componentLinkOf(pair, caller);
    const recorded = await recording(targetLink, () =>
      recording(callerLink, () =>
        callOut(
          invoker,
          endpoint,
          declared.tool,
          {
            target: targetEndpoint,
            tool: 'script',
            arguments: { steps: [{ complete: { structuredContent: { nonce } } }] },
          },
          timeoutMs,
        ).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))),
      ),
    );
    const run: CallOutRun | Error = recorded.value.value;
    const callerSent = recorded.value.sent;
    const targetSent = recorded.sent;
    const invokes = callerSent.filter((stanza) => isInvokeTo(stanza, targetEndpoint));
    const invoke = invokes[0];
    if (invoke === undefined) {
      const why =
        run instanceof Error
          ? run.message
          : `the call-out task ended ${run.terminalType}: ${run.terminalJson}`;
      return verdict('cantTell', `${callerLabel} sent no <invoke/> to ${targetEndpoint} (${why})`);
    }
    const invokeElement = invoke.getChild('invoke', NS_AGENT_TASK);
    try {
      if (invokeElement === undefined) throw new Error('no <invoke/>');
      parseInvoke(invokeElement);
    } catch (error) {
      return verdict(
        'failed',
        `${callerLabel}: invocation.required-parts (${error instanceof Error ? error.message : String(error)})`,
        'invocation.required-parts',
        callerLabel,
      );
    }
    const answer = targetSent.find(
      (stanza) => stanza.name === 'iq' && stanza.attrs['id'] === invoke.attrs['id'],
    );
    if (answer === undefined)
      return verdict(
        'cantTell',
        `${targetLabel} sent no answer to the call-out's <invoke/> while it was watched`,
      );
    if (answer.attrs['type'] !== 'result' || answer.getChild('accepted', NS_AGENT_TASK) === undefined) {
      return await refusedInvoke(pair, target, targetEndpoint, invokeElement, answer, labels, verdict);
    }
    if (run instanceof Error)
      return verdict('cantTell', `the call-out task could not be followed: ${run.message}`);
    const outcome = JSON.parse(run.terminalJson) as {
      result?: { structuredContent?: { state?: unknown; result?: unknown } };
    };
    const content = outcome.result?.structuredContent;
    if (run.terminalType !== 'completed' || content?.state !== 'completed') {
      return verdict(
        'failed',
        `${callerLabel}: the call-out reported ${run.terminalType} ${run.terminalJson.slice(0, 300)} for a remote task the target admitted`,
        'invocation.correlation-id',
        callerLabel,
      );
    }
    if (!JSON.stringify(content.result ?? null).includes(nonce)) {
      return verdict(
        'failed',
        `${callerLabel}: the call-out's result does not carry the remote result (nonce ${nonce})`,
        'invocation.correlation-id',
        callerLabel,
      );
    }
    return verdict(
      'passed',
      `${callerLabel} invoked ${targetEndpoint} across s2s; ${targetLabel} admitted it; the remote result came back (${String(invokes.length)} <invoke/>)`,
    );
  } finally {
    await driver.closeAll();
  }
}
