/**
 * The conformance tools' script language and its interpreter (docs/conformance-tools.md),
 * shared by the two hosts of the tools: the reference gateway's `conformance` runtime
 * (reference-gateway/runtime/conformance/) and the `agentconf conformance-tools` MCP server
 * (harness/conformance-tools/). Pure: the interpreter runs a parsed script against
 * TaskActions, a RuntimeClock and a ToolLedger that its host supplies.
 */
import { KEYWORDS_TOOL } from './keywords-tool.ts';

export { ArgumentProblem, LEDGER_KEY_PATTERN } from './argument-reader.ts';
export { SYSTEM_CLOCK, clockFromTimers, untilAborted, type RuntimeClock, type TimerSource } from './clock.ts';
export {
  DEFAULT_EXPIRY_FAILURE,
  REFUSAL_FAILURE,
  UNKNOWN_TOOL_FAILURE,
  argumentFailure,
} from './failures.ts';
export { runScript, type ScriptContext } from './interpreter.ts';
export { counterResult, parseCounterArguments, runCounter, type CounterArguments } from './ledger-tools.ts';
export { KEYWORDS_TOOL, keywordsResult, runKeywords } from './keywords-tool.ts';
export { SCRIPT_LIMITS, parseScript, type ParseOutcome, type Script, type Step } from './script.ts';

/**
 * The script tools run one interpreter; they differ only in what the manifest declares for
 * them (task features, outputSchema, approvalRequired, timeouts), which is what the suites vary.
 */
export const SCRIPT_TOOLS = [
  'script',
  'script.typed',
  'script.plain',
  'script.approval',
  'script.bounded',
] as const;
export const COUNTER_TOOL = 'counter';
export const CONFORMANCE_TOOLS: readonly string[] = [...SCRIPT_TOOLS, COUNTER_TOOL, KEYWORDS_TOOL];
