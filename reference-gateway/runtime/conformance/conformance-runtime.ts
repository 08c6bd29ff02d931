/**
 * The `conformance` ToolRuntime (#model-boundary): the tools of fixtures/manifests/
 * conformance.json, whose behaviour the arguments script (docs/conformance-tools.md). The
 * fixture world assigns endpoints to it by name; it never learns which endpoint it serves, so
 * any manifest whose tools carry these names can be hosted by it.
 */
import type { TaskActions, ToolInvocation, ToolLedger, ToolRuntime } from '../tool-runtime.ts';
import { SYSTEM_CLOCK, type RuntimeClock } from './clock.ts';
import { UNKNOWN_TOOL_FAILURE, argumentFailure } from './failures.ts';
import { runScript } from './interpreter.ts';
import { parseCounterArguments, runCounter } from './ledger-tools.ts';
import { parseScript } from './script.ts';

export const CONFORMANCE_RUNTIME_NAME = 'conformance';

/**
 * The script tools run one interpreter; they differ only in what the manifest declares for
 * them (task features, outputSchema, approvalRequired), which is what the suites vary.
 */
export const SCRIPT_TOOLS = ['script', 'script.typed', 'script.plain', 'script.approval'] as const;
export const COUNTER_TOOL = 'counter';
export const CONFORMANCE_TOOLS: readonly string[] = [...SCRIPT_TOOLS, COUNTER_TOOL];

export interface ConformanceRuntimeOptions {
  /** The gateway's durable ledger (kept in its store). */
  readonly ledger: ToolLedger;
  /** Real time unless a test injects a fake. */
  readonly clock?: RuntimeClock;
}

export class ConformanceRuntime implements ToolRuntime {
  readonly name = CONFORMANCE_RUNTIME_NAME;
  readonly #ledger: ToolLedger;
  readonly #clock: RuntimeClock;

  constructor(options: ConformanceRuntimeOptions) {
    this.#ledger = options.ledger;
    this.#clock = options.clock ?? SYSTEM_CLOCK;
  }

  async execute(invocation: ToolInvocation, actions: TaskActions): Promise<void> {
    if ((SCRIPT_TOOLS as readonly string[]).includes(invocation.tool)) {
      const parsed = parseScript(invocation.arguments);
      if (!parsed.ok) {
        await actions.fail(argumentFailure(parsed.problem));
        return;
      }
      await runScript(parsed.value, { actions, clock: this.#clock, ledger: this.#ledger });
      return;
    }
    if (invocation.tool === COUNTER_TOOL) {
      const parsed = parseCounterArguments(invocation.arguments);
      if (!parsed.ok) {
        await actions.fail(argumentFailure(parsed.problem));
        return;
      }
      await runCounter(parsed.value, actions, this.#ledger);
      return;
    }
    await actions.fail(UNKNOWN_TOOL_FAILURE);
  }
}
