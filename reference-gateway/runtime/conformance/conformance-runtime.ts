/**
 * The `conformance` ToolRuntime (#model-boundary): the tools of fixtures/manifests/
 * conformance.json, whose behaviour the arguments script (docs/conformance-tools.md). The
 * fixture world assigns endpoints to it by name; it never learns which endpoint it serves, so
 * any manifest whose tools carry these names can be hosted by it. The script language and its
 * interpreter live in protocol/conformance-script/, shared with the conformance-tools MCP server.
 */
import {
  COUNTER_TOOL,
  KEYWORDS_TOOL,
  SCRIPT_TOOLS,
  SYSTEM_CLOCK,
  UNKNOWN_TOOL_FAILURE,
  argumentFailure,
  parseCounterArguments,
  parseScript,
  runCounter,
  runKeywords,
  runScript,
  type RuntimeClock,
} from '../../../protocol/conformance-script/index.ts';
import type { TaskActions, ToolInvocation, ToolLedger, ToolRuntime } from '../tool-runtime.ts';

export const CONFORMANCE_RUNTIME_NAME = 'conformance';

export {
  CONFORMANCE_TOOLS,
  COUNTER_TOOL,
  KEYWORDS_TOOL,
  SCRIPT_TOOLS,
} from '../../../protocol/conformance-script/index.ts';

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
    if (invocation.tool === KEYWORDS_TOOL) {
      await runKeywords(invocation.arguments, actions);
      return;
    }
    await actions.fail(UNKNOWN_TOOL_FAILURE);
  }
}
