/**
 * Which judge drives each call-out scenario (suites/interop/scenarios.ts, `callOut: true`).
 * A scenario without a driven judge here is cantTell, naming the reason.
 */
import type { PairSide } from '../../harness/federation/pair-side.ts';
import type { SutConfig } from '../../harness/sut/sut-config.ts';
import type { InteropScenario, InteropScenarioId } from '../../suites/interop/scenarios.ts';
import { judgeCancellationInputThroughCallOut } from './call-out-cancellation-input.ts';
import { judgeEventsThroughCallOut } from './call-out-events.ts';
import { judgeInvocationThroughCallOut } from './call-out-invocation.ts';
import { judgeRecoveryThroughCallOut } from './call-out-recovery.ts';
import { callOutSetup, isVerdict, type CallOutSetup } from './call-out-session.ts';
import type { PairGateways } from './pair-gateways.ts';
import { judgedThroughCallOut, type ScenarioVerdict } from './scenario-verdicts.ts';

export type CallOutJudge = (
  scenario: InteropScenario,
  pair: PairGateways,
  direction: { readonly caller: PairSide; readonly target: PairSide },
  suts: Readonly<Record<PairSide, SutConfig>>,
) => Promise<ScenarioVerdict>;

const notDrivenYet: CallOutJudge = (scenario, _pair, direction, suts) =>
  Promise.resolve(
    judgedThroughCallOut(scenario, suts[direction.caller], `caller ${direction.caller.toUpperCase()}`),
  );

/** A judge of a call-out the caller side declares (callOutSetup: its endpoint, invoker, links). */
type SetUpJudge = (setup: CallOutSetup) => Promise<ScenarioVerdict>;

const JUDGES: Partial<Record<InteropScenarioId, SetUpJudge>> = {
  invocation: judgeInvocationThroughCallOut,
  events: judgeEventsThroughCallOut,
  recovery: judgeRecoveryThroughCallOut,
  'cancellation-input': judgeCancellationInputThroughCallOut,
};

/** The judge of a call-out scenario; one this build does not drive is cantTell, saying so. */
export function callOutJudgeOf(id: InteropScenarioId): CallOutJudge {
  const judge = JUDGES[id];
  if (judge === undefined) return notDrivenYet;
  return async (scenario, pair, direction, suts) => {
    const setup = callOutSetup(scenario, pair, direction, suts);
    return isVerdict(setup) ? setup : await judge(setup);
  };
}
