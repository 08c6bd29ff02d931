/**
 * What every call-out scenario shares (docs/interop.md, "Call-out scenarios"): who invokes the
 * caller gateway's conformance call-out, which endpoint it names, and one call-out run recorded
 * on both gateways' component links (plaintext, inspected), with hooks that act on the call-out
 * task's events (answer a relayed input request, cancel) and on what the target sends.
 * The judging itself is each scenario's; what is not observed is cantTell there, never a pass.
 */
import type { Element } from '@xmpp/xml';

import { createDriver, type Caller, type Driver, type ValidTaskEvent } from '../../harness/driver/index.ts';
import type { FaultProxy } from '../../harness/faults/fault-proxy.ts';
import type { PairSide } from '../../harness/federation/pair-side.ts';
import type { SutConfig } from '../../harness/sut/sut-config.ts';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import { canonicalJson } from '../../protocol/json/canonical.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { NS_AGENT_TASK } from '../../protocol/namespaces.ts';
import {
  buildInvoke,
  buildManifestRequest,
  parseAccepted,
  parseInvoke,
  parseManifest,
  type Accepted,
  type Invoke,
} from '../../protocol/stanza/index.ts';
import type { InteropScenario } from '../../suites/interop/scenarios.ts';
import { invokeFingerprint } from '../../suites/sections/support/task-history.ts';
import type { PairGateways } from './pair-gateways.ts';
import { judgedThroughCallOut, type ScenarioVerdict } from './scenario-verdicts.ts';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

export type VerdictOf = (
  outcome: ScenarioVerdict['outcome'],
  reason: string,
  requirement?: string,
  side?: string,
) => ScenarioVerdict;

/** One direction's call-out, resolved from the pair and the caller side's SUT file. */
export interface CallOutSetup {
  readonly pair: PairGateways;
  readonly caller: PairSide;
  readonly target: PairSide;
  readonly labels: { readonly caller: string; readonly target: string };
  /** The call-out endpoint on the caller gateway's domain, and its tool. */
  readonly endpoint: string;
  readonly tool: string;
  /** The target gateway's conformance endpoint (bare JID). */
  readonly targetEndpoint: string;
  /** The account the caller gateway grants its call-out to. */
  readonly invokerJid: string;
  readonly taskTimeoutMs: number;
  readonly replyTimeoutMs: number;
  readonly verdict: VerdictOf;
}

/** The setup, or the verdict when no call-out can be driven (none declared, nobody may invoke it). */
export function callOutSetup(
  scenario: InteropScenario,
  pair: PairGateways,
  direction: { readonly caller: PairSide; readonly target: PairSide },
  suts: Readonly<Record<PairSide, SutConfig>>,
): CallOutSetup | ScenarioVerdict {
  const { caller, target } = direction;
  const labels = { caller: `caller ${caller.toUpperCase()}`, target: `target ${target.toUpperCase()}` };
  const base = { id: scenario.id, title: scenario.title, cases: [] };
  const verdict: VerdictOf = (outcome, reason, requirement, side) => ({
    ...base,
    outcome,
    reason,
    failures:
      outcome === 'failed' && requirement !== undefined && side !== undefined
        ? [{ side, requirement, caseId: `interop.${scenario.id}`, message: reason }]
        : [],
  });
  const declared = suts[caller].caller;
  if (declared?.kind !== 'gateway-tool') return judgedThroughCallOut(scenario, suts[caller], labels.caller);
  // The SUT file's call-out account, else its adminJid: a call-out is a request forgery risk,
  // so gateways grant it to the suite's account alone (docs/caller.md).
  const invokerJid = (pair.gateways[caller].callOutAccount ?? pair.gateways[caller].adminAccount)?.jid;
  if (invokerJid === undefined) {
    return verdict(
      'cantTell',
      `${labels.caller}'s SUT file names neither caller.gatewayTool.account nor adminJid, the account that may invoke its call-out`,
    );
  }
  return {
    pair,
    caller,
    target,
    labels,
    endpoint: `${declared.endpoint.split('@')[0] ?? ''}@${pair.gateways[caller].facts.componentDomain}`,
    tool: declared.tool,
    targetEndpoint: `conformance@${pair.gateways[target].facts.componentDomain}`,
    invokerJid,
    taskTimeoutMs: suts[caller].timeouts.taskSeconds * 1_000,
    replyTimeoutMs: suts[caller].timeouts.replySeconds * 1_000,
    verdict,
  };
}

export function componentLinkOf(pair: PairGateways, side: PairSide): FaultProxy {
  const link = side === 'a' ? pair.federation.links.pairComponent : pair.federation.links.component;
  if (link === undefined) throw new Error(`the pair has no component link for gateway ${side.toUpperCase()}`);
  return link;
}

/** The s2s proxy a stanza from `side`'s server to the other server crosses. */
export function s2sFrom(pair: PairGateways, side: PairSide): FaultProxy {
  return side === 'a' ? pair.federation.links.s2sAToB : pair.federation.links.s2sBToA;
}

/** The call-out task as its invoker saw it. */
export interface CallOutRun {
  readonly taskId: string;
  readonly terminalType: string;
  readonly terminalJson: string;
  /** Every valid event of the call-out task, in arrival order (relayed progress among them). */
  readonly events: readonly ValidTaskEvent[];
  /** When the terminal event arrived (performance.now()). */
  readonly settledAt: number;
}

/** The invoker and its call-out task, once admitted. */
export interface StartedCallOut {
  readonly invoker: Caller;
  readonly taskId: string;
}

/** What the scenario may do while the call-out runs. */
export interface CallOutHooks {
  /** Each non-terminal event of the call-out task, as it arrives. */
  readonly onCallOutEvent?: (
    event: ValidTaskEvent,
    call: { readonly invoker: Caller; readonly taskId: string },
  ) => Promise<void>;
  /**
   * Each stanza the target gateway sends, as it is read on its link (before it is forwarded);
   * `started` resolves once the invoker knows the call-out task (which may come later: the
   * caller gateway may invoke the target before its own <accepted/> reaches the invoker).
   */
  readonly onTargetStanza?: (stanza: Element, started: Promise<StartedCallOut>) => void;
  /** Each stanza the caller gateway sends, as it is read on its link. */
  readonly onCallerStanza?: (stanza: Element) => void;
}

export interface SentStanza {
  readonly stanza: Element;
  /** performance.now() when it was read on the link. */
  readonly atMs: number;
}

export interface RecordedCallOut {
  readonly run: CallOutRun | Error;
  readonly callerSent: readonly SentStanza[];
  readonly targetSent: readonly SentStanza[];
}

async function runCallOut(
  setup: CallOutSetup,
  invoker: Caller,
  input: unknown,
  hooks: CallOutHooks,
  started: (taskId: string) => void,
): Promise<CallOutRun> {
  const { endpoint } = setup;
  const manifestPayload = await invoker.iq(endpoint, 'get', buildManifestRequest({}));
  if (manifestPayload === undefined)
    throw new Error(`${endpoint} answered its manifest request with no manifest`);
  const manifest = parseManifest(manifestPayload);
  const accepted = await invoker.iq(
    endpoint,
    'set',
    buildInvoke({
      requestId: generateIdentifier('interop-'),
      tool: setup.tool,
      apiVersion: manifest.version,
      manifestHash: manifest.hash,
      argumentsJson: JSON.stringify(input),
    }),
  );
  if (accepted === undefined) throw new Error(`${endpoint} admitted the call-out with no <accepted/>`);
  const { taskId } = parseAccepted(accepted);
  started(taskId);
  const events: ValidTaskEvent[] = [];
  for (;;) {
    const received = await invoker.events.next(taskId, { timeoutMs: setup.taskTimeoutMs });
    if (!received.valid)
      throw new Error(`the call-out task sent an invalid lifecycle message: ${received.problem.message}`);
    events.push(received);
    if (TERMINAL.has(received.event.type)) {
      return {
        taskId,
        terminalType: received.event.type,
        terminalJson: received.event.json,
        events,
        settledAt: performance.now(),
      };
    }
    await hooks.onCallOutEvent?.(received, { invoker, taskId });
  }
}

/**
 * Invokes the call-out with `{target, tool: 'script', arguments: {steps}}` and follows its task
 * to the end, recording both component links meanwhile. An error while following it (a wait
 * that ran out, say) is returned, not thrown: what was recorded still judges the sides.
 */
export async function recordCallOut(
  setup: CallOutSetup,
  steps: readonly unknown[],
  hooks: CallOutHooks = {},
): Promise<RecordedCallOut> {
  const driver: Driver = createDriver(setup.pair.federation, { timeoutMs: setup.replyTimeoutMs });
  const callerSent: SentStanza[] = [];
  const targetSent: SentStanza[] = [];
  let started: (call: StartedCallOut) => void = () => undefined;
  const startedCall = new Promise<StartedCallOut>((resolve) => {
    started = resolve;
  });
  const targetLink = componentLinkOf(setup.pair, setup.target);
  const callerLink = componentLinkOf(setup.pair, setup.caller);
  const onTarget = (stanza: Element): void => {
    targetSent.push({ stanza, atMs: performance.now() });
    hooks.onTargetStanza?.(stanza, startedCall);
  };
  const onCaller = (stanza: Element): void => {
    callerSent.push({ stanza, atMs: performance.now() });
    hooks.onCallerStanza?.(stanza);
  };
  targetLink.on('stanza', onTarget);
  callerLink.on('stanza', onCaller);
  try {
    const invoker = await driver.connect(setup.invokerJid, 'interop-call-out');
    const run = await runCallOut(
      setup,
      invoker,
      { target: setup.targetEndpoint, tool: 'script', arguments: { steps } },
      hooks,
      (taskId) => {
        started({ invoker, taskId });
      },
    ).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    return { run, callerSent, targetSent };
  } finally {
    targetLink.off('stanza', onTarget);
    callerLink.off('stanza', onCaller);
    await driver.closeAll();
  }
}

function isInvokeTo(stanza: Element, target: string): boolean {
  return (
    stanza.name === 'iq' &&
    stanza.attrs['to'] === target &&
    stanza.getChild('invoke', NS_AGENT_TASK) !== undefined
  );
}

/** The caller's <invoke/>s to the target, and the target's answer to the first. */
export interface Admission {
  readonly invokes: readonly { readonly stanza: Element; readonly invoke: Invoke }[];
  readonly answer: Element;
  readonly accepted: Accepted;
}

/**
 * The admission of the remote task as the links show it: the caller's <invoke/> must parse
 * (invocation.required-parts, naming the caller) and the target must answer one with
 * <accepted/>. Anything short of that is a verdict: cantTell when something was not seen, or
 * what `refused` makes of a refusal (only the invocation scenario judges one; the others cannot
 * tell). The answer judged is the first <accepted/> for any of the invokes (a lost one is
 * retried identically).
 */
export function admissionOf(
  setup: CallOutSetup,
  recorded: RecordedCallOut,
): Admission | { readonly refused: Element; readonly invoke: Element } | ScenarioVerdict {
  const { labels, targetEndpoint, verdict } = setup;
  const { run } = recorded;
  const sent = recorded.callerSent.filter(({ stanza }) => isInvokeTo(stanza, targetEndpoint));
  if (sent[0] === undefined) {
    const why =
      run instanceof Error ? run.message : `the call-out task ended ${run.terminalType}: ${run.terminalJson}`;
    return verdict('cantTell', `${labels.caller} sent no <invoke/> to ${targetEndpoint} (${why})`);
  }
  const invokes: { stanza: Element; invoke: Invoke }[] = [];
  for (const { stanza } of sent) {
    const element = stanza.getChild('invoke', NS_AGENT_TASK);
    try {
      if (element === undefined) throw new Error('no <invoke/>');
      invokes.push({ stanza, invoke: parseInvoke(element) });
    } catch (error) {
      return verdict(
        'failed',
        `${labels.caller}: invocation.required-parts (${error instanceof Error ? error.message : String(error)})`,
        'invocation.required-parts',
        labels.caller,
      );
    }
  }
  const ids = new Set(invokes.map(({ stanza }) => stanza.attrs['id']));
  const answers = recorded.targetSent.filter(
    ({ stanza }) => stanza.name === 'iq' && ids.has(stanza.attrs['id']),
  );
  const acceptedAnswer = answers.find(
    ({ stanza }) =>
      stanza.attrs['type'] === 'result' && stanza.getChild('accepted', NS_AGENT_TASK) !== undefined,
  );
  if (acceptedAnswer === undefined) {
    const first = answers[0];
    if (first === undefined)
      return verdict(
        'cantTell',
        `${labels.target} sent no answer to the call-out's <invoke/> while it was watched`,
      );
    const invoke = invokes.find(({ stanza }) => stanza.attrs['id'] === first.stanza.attrs['id']);
    return {
      refused: first.stanza,
      invoke: (invoke ?? invokes[0])?.stanza.getChild('invoke', NS_AGENT_TASK) ?? first.stanza,
    };
  }
  const acceptedElement = acceptedAnswer.stanza.getChild('accepted', NS_AGENT_TASK);
  try {
    if (acceptedElement === undefined) throw new Error('no <accepted/>');
    return { invokes, answer: acceptedAnswer.stanza, accepted: parseAccepted(acceptedElement) };
  } catch (error) {
    return verdict(
      'failed',
      `${labels.target}: schema.base-structures-valid (an unusable <accepted/>: ${error instanceof Error ? error.message : String(error)})`,
      'schema.base-structures-valid',
      labels.target,
    );
  }
}

export function isVerdict(value: object): value is ScenarioVerdict {
  return 'outcome' in value && 'failures' in value;
}

/** The call-out's report: `{state, taskId, result}` of its completion (docs/caller.md). */
export interface CallOutReport {
  readonly state: unknown;
  readonly taskId: unknown;
  readonly result: unknown;
}

export function reportOf(run: CallOutRun): CallOutReport | undefined {
  if (run.terminalType !== 'completed') return undefined;
  try {
    const outcome = JSON.parse(run.terminalJson) as { result?: { structuredContent?: CallOutReport } };
    return outcome.result?.structuredContent;
  } catch {
    return undefined;
  }
}

/**
 * Whether the call-out reported the remote task as the target settled it: its state, task ID
 * and terminal payload (docs/caller.md, "Outcome"). The caller saw a terminal outcome the target
 * did send, so reporting another one is the caller's failure: a caller recovers the complete
 * state and result whatever happened to the events (#task-message-routing).
 */
export function reportVerdict(
  setup: CallOutSetup,
  run: CallOutRun,
  remote: { readonly taskId: string; readonly state: string; readonly payload: unknown },
  requirement = 'task-message-routing.delivery-independent',
): ScenarioVerdict | undefined {
  const { labels, verdict } = setup;
  const report = reportOf(run);
  const expected = `{state: ${remote.state}, taskId: ${remote.taskId}, result: ${JSON.stringify(remote.payload).slice(0, 200)}}`;
  if (report === undefined) {
    return verdict(
      'failed',
      `${labels.caller}: ${requirement} (the call-out task ended ${run.terminalType} ${run.terminalJson.slice(0, 300)}, expected a completion reporting ${expected})`,
      requirement,
      labels.caller,
    );
  }
  const same =
    report.state === remote.state &&
    report.taskId === remote.taskId &&
    canonicalJson((report.result ?? null) as JsonValue) ===
      canonicalJson((remote.payload ?? null) as JsonValue);
  if (same) return undefined;
  return verdict(
    'failed',
    `${labels.caller}: ${requirement} (the call-out reported ${JSON.stringify(report).slice(0, 300)}, but ${labels.target} settled ${expected})`,
    requirement,
    labels.caller,
  );
}

/** Both parts: failed if either failed, cantTell if either could not tell, passed only if both passed. */
export function combinedVerdict(setup: CallOutSetup, parts: readonly ScenarioVerdict[]): ScenarioVerdict {
  const failed = parts.filter((part) => part.outcome === 'failed');
  const outcome =
    failed.length > 0 ? 'failed' : parts.every((part) => part.outcome === 'passed') ? 'passed' : 'cantTell';
  const shown =
    outcome === 'failed'
      ? failed
      : outcome === 'cantTell'
        ? parts.filter((part) => part.outcome !== 'passed')
        : parts;
  const verdict = setup.verdict(outcome, [...new Set(shown.map((part) => part.reason))].join('; '));
  return { ...verdict, failures: failed.flatMap((part) => part.failures) };
}

/** The task an answer admits, when it is an <accepted/>. */
export function acceptedTaskId(answer: Element): string | undefined {
  const element = answer.getChild('accepted', NS_AGENT_TASK);
  if (answer.attrs['type'] !== 'result' || element === undefined) return undefined;
  try {
    return parseAccepted(element).taskId;
  } catch {
    return undefined;
  }
}

/** The target's answers to the caller's <invoke/>s, in the order it sent them. */
export function invokeAnswers(recorded: RecordedCallOut, admission: Admission): readonly SentStanza[] {
  const ids = new Set(admission.invokes.map(({ stanza }) => stanza.attrs['id']));
  return recorded.targetSent.filter(({ stanza }) => stanza.name === 'iq' && ids.has(stanza.attrs['id']));
}

/**
 * When the caller sent its <invoke/> more than once (an <accepted/> lost on the way, by the
 * scenario or by chance): every repeat must be the identical request, same request ID
 * (#invocation: invocation.caller-retries-identically, naming the caller), and once the target
 * admitted the first, it must answer each identical repeat with the same task
 * (invocation.replay-same-task, naming the target). Undefined when nothing was repeated or all
 * is well.
 */
export function repeatVerdict(
  setup: CallOutSetup,
  recorded: RecordedCallOut,
  admission: Admission,
): ScenarioVerdict | undefined {
  const { labels, verdict } = setup;
  const [first, ...repeats] = admission.invokes;
  if (first === undefined || repeats.length === 0) return undefined;
  const different = repeats.find(
    ({ invoke }) =>
      invoke.requestId !== first.invoke.requestId ||
      invokeFingerprint(invoke) !== invokeFingerprint(first.invoke),
  );
  if (different !== undefined) {
    return verdict(
      'failed',
      `${labels.caller}: invocation.caller-retries-identically (it repeated an unanswered <invoke/> as request ${different.invoke.requestId}${different.invoke.requestId === first.invoke.requestId ? ' with another fingerprint' : ''}; the first was ${first.invoke.requestId})`,
      'invocation.caller-retries-identically',
      labels.caller,
    );
  }
  const [firstAnswer, ...later] = invokeAnswers(recorded, admission);
  const firstTask = firstAnswer === undefined ? undefined : acceptedTaskId(firstAnswer.stanza);
  if (firstTask === undefined) return undefined;
  const other = later.find(({ stanza }) => acceptedTaskId(stanza) !== firstTask);
  if (other === undefined) return undefined;
  return verdict(
    'failed',
    `${labels.target}: invocation.replay-same-task (the identical repeat of request ${first.invoke.requestId} got ${other.stanza.toString().slice(0, 300)}, not the <accepted/> of task ${firstTask})`,
    'invocation.replay-same-task',
    labels.target,
  );
}
