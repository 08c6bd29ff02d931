/**
 * The ledger side of the conformance tools: the `counter` tool, which reads how often a key was
 * incremented (docs/conformance-tools.md). Script executions and their `increment` steps write
 * the same ToolLedger, so a suite proves "executed once" from outside — after a replayed
 * request, a crash or an approval-required invocation — by calling counter
 * (invocation.replay-same-task, invocation.durable-before-accepted,
 * manifest.fail-closed-permissions).
 */
import type { ToolResult } from '../events/payload-types.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { TaskActions, ToolLedger } from '../tool-actions.ts';
import { ArgumentProblem, ObjectReader } from './argument-reader.ts';
import { REFUSAL_FAILURE } from './failures.ts';
import type { ParseOutcome } from './script.ts';

export interface CounterArguments {
  readonly key: string;
}

export function parseCounterArguments(args: JsonValue): ParseOutcome<CounterArguments> {
  try {
    const reader = ObjectReader.of(args, '', ['key']);
    const key = reader.ledgerKey('key');
    if (key === undefined) throw new ArgumentProblem(reader.at('key'), 'required but absent');
    return { ok: true, value: { key } };
  } catch (error) {
    if (error instanceof ArgumentProblem) return { ok: false, problem: error };
    throw error;
  }
}

/** The result shape counter's outputSchema declares, plus the count as text for MCP clients. */
export function counterResult(key: string, count: number): ToolResult {
  return { content: [{ type: 'text', text: String(count) }], structuredContent: { key, count } };
}

/** Reads the key and completes at once; reading changes no count. */
export async function runCounter(
  args: CounterArguments,
  actions: TaskActions,
  ledger: ToolLedger,
): Promise<void> {
  const result = await actions.complete(counterResult(args.key, ledger.read(args.key)));
  if (!result.ok && result.refusal === 'invalid') await actions.fail(REFUSAL_FAILURE);
}
