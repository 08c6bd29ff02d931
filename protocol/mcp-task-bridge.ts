/**
 * The agentconf task bridge: a small MCP extension that carries what the XMPP task model says
 * and plain MCP cannot (#mcp-mapping), between an MCP server whose tools are XMPP tasks (the
 * `agentconf conformance-tools` server, harness/conformance-tools/) and a bridge that hosts them
 * as an endpoint (the reference gateway's MCP runtime, reference-gateway/runtime/mcp/).
 * docs/conformance-tools.md, "Over MCP", is the normative text; this module holds its names
 * and the readers both sides use.
 *
 * Everything rides on standard MCP messages (a `_meta` member under TASK_BRIDGE, an `error.data`
 * member) except one notification, sent only when both sides declared the extension in
 * `capabilities.experimental[TASK_BRIDGE]`. A peer that ignores the extension sees plain MCP:
 *
 * | message                      | extension member                                               |
 * | ---------------------------- | -------------------------------------------------------------- |
 * | Tool (tools/list)            | `_meta[TASK_BRIDGE].declarations`: the urn:xmpp:agent-api:0 object |
 * | notifications/progress       | `_meta[TASK_BRIDGE].progress`: the exact progress payload       |
 * | elicitation/create           | `_meta[TASK_BRIDGE]`: `call` (the tools/call progressToken), the exact `inputSchema`, `expiresAt` |
 * | ElicitResult                 | `_meta[TASK_BRIDGE]`: `input` (accept), `outcome` (cancel), `refusal` (decline) |
 * | CallToolResult               | `_meta[TASK_BRIDGE].summary`                                    |
 * | tools/call JSON-RPC error    | `error.data[TASK_BRIDGE]`: `{failed}` or `{cancelled}`          |
 * | notifications/cancelled      | reason SETTLED_CANCEL_REASON: the task settled, not a cancel request |
 * | OUTCOME_NOTIFICATION         | an outcome after the call was cancelled or answered (JSON-RPC allows one response) |
 *
 * Why: MCP cancellation is terminal (no response after notifications/cancelled) while XMPP
 * cancellation is advisory (the tool may still complete or fail, #cancellation); MCP has no
 * failure codes, summaries, progress stages, input expiry or arbitrary input schemas; and an
 * MCP client cannot tell which tools/call a server-initiated request belongs to.
 */
import type { ProgressPayload, TaskFailure, ToolResult } from './events/payload-types.ts';
import { isJsonObject, type JsonObject, type JsonValue } from './json/json-value.ts';

/**
 * The members an MCP Tool and a manifest tool share, with the same meaning (#manifest: "The MCP
 * members retain their MCP-defined semantics exactly"); `_meta` is shared too, less this
 * extension's member.
 */
export const MCP_TOOL_MEMBERS: readonly string[] = Object.freeze([
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
  'execution',
]);

/** The `_meta` key, `error.data` key and experimental capability name of the extension. */
export const TASK_BRIDGE = 'org.agentconf/task-bridge';
/** The capability's value: `{ "version": 1 }`. */
export const TASK_BRIDGE_CAPABILITY: JsonObject = Object.freeze({ version: 1 });
/** Server → client: `{ progressToken, outcome }`, see BridgeOutcome. */
export const OUTCOME_NOTIFICATION = 'notifications/org.agentconf/task-outcome';
/** The notifications/cancelled reason a bridge sends when the task settled from outside (deadline). */
export const SETTLED_CANCEL_REASON = 'org.agentconf/task-bridge: the task settled';

/** How a pending input request ended without an answer, as the bridge tells the server. */
export type ElicitationEnd = 'expired' | 'superseded' | 'settled';
const ELICITATION_ENDS: readonly ElicitationEnd[] = ['expired', 'superseded', 'settled'];

/** Why the bridge did not commit an input request (the TaskActions refusal). */
export type ElicitationRefusal = 'invalid' | 'settled' | 'deadline-expired' | 'input-pending';
const ELICITATION_REFUSALS: readonly ElicitationRefusal[] = [
  'invalid',
  'settled',
  'deadline-expired',
  'input-pending',
];

/** The terminal outcome a tool reports, as the TaskActions it maps to. */
export type BridgeOutcome =
  | { readonly kind: 'completed'; readonly result: ToolResult; readonly summary?: string }
  | { readonly kind: 'failed'; readonly failure: TaskFailure }
  | { readonly kind: 'cancelled'; readonly reason?: string };

function asObject(value: unknown): JsonObject | undefined {
  return isJsonObject(value as JsonValue | undefined) ? (value as JsonObject) : undefined;
}

/** Whether MCP capabilities (a client's or a server's) declare the extension. */
export function declaresTaskBridge(capabilities: unknown): boolean {
  const experimental = asObject(asObject(capabilities)?.['experimental']);
  return asObject(experimental?.[TASK_BRIDGE]) !== undefined;
}

/** The extension's member of a `_meta` object (or of `error.data`), when it is an object. */
export function bridgePart(meta: unknown): JsonObject | undefined {
  return asObject(asObject(meta)?.[TASK_BRIDGE]);
}

/** `meta` with the extension's member set to `part`. */
export function withBridgePart(meta: JsonObject | undefined, part: JsonObject): JsonObject {
  return { ...meta, [TASK_BRIDGE]: part };
}

/** `meta` without the extension's member; undefined when nothing else is left. */
export function withoutBridgePart(meta: JsonObject | undefined): JsonObject | undefined {
  if (meta === undefined) return undefined;
  const rest = Object.fromEntries(Object.entries(meta).filter(([key]) => key !== TASK_BRIDGE));
  return Object.keys(rest).length === 0 && Object.hasOwn(meta, TASK_BRIDGE) ? undefined : rest;
}

export function elicitationEndOf(part: JsonObject | undefined): ElicitationEnd | undefined {
  const value = part?.['outcome'];
  return ELICITATION_ENDS.find((end) => end === value);
}

export function elicitationRefusalOf(part: JsonObject | undefined): ElicitationRefusal | undefined {
  const value = part?.['refusal'];
  return ELICITATION_REFUSALS.find((refusal) => refusal === value);
}

/** The exact progress payload a server put in a progress notification's `_meta`. */
export function progressOf(part: JsonObject | undefined): ProgressPayload | undefined {
  return asObject(part?.['progress']);
}

/** A tool result as MCP's CallToolResult carries it; the task engine validates the rest. */
export function toolResultOf(value: unknown): ToolResult | undefined {
  const result = asObject(value);
  if (result === undefined) return undefined;
  const content = result['content'] ?? [];
  if (!Array.isArray(content) || !content.every((item) => isJsonObject(item))) return undefined;
  const meta = result['_meta'];
  if (meta !== undefined && !isJsonObject(meta)) return undefined;
  const isError = result['isError'];
  if (isError !== undefined && typeof isError !== 'boolean') return undefined;
  return {
    content: content,
    ...(result['structuredContent'] === undefined ? {} : { structuredContent: result['structuredContent'] }),
    ...(isError === undefined ? {} : { isError }),
    ...(meta === undefined ? {} : { _meta: meta }),
  };
}

function failureOf(value: unknown): TaskFailure | undefined {
  const failure = asObject(value);
  if (failure === undefined) return undefined;
  const { code, message, retryable, details } = failure;
  if (typeof code !== 'string' || typeof message !== 'string' || typeof retryable !== 'boolean') {
    return undefined;
  }
  if (details !== undefined && !isJsonObject(details)) return undefined;
  return { code, message, retryable, ...(details === undefined ? {} : { details }) };
}

/** `{completed: {result, summary?}}`, `{failed: failure}` or `{cancelled: {reason?}}`. */
export function outcomeToWire(outcome: BridgeOutcome): JsonObject {
  switch (outcome.kind) {
    case 'completed':
      return {
        completed: {
          result: outcome.result as unknown as JsonObject,
          ...(outcome.summary === undefined ? {} : { summary: outcome.summary }),
        },
      };
    case 'failed':
      return { failed: outcome.failure as unknown as JsonObject };
    case 'cancelled':
      return { cancelled: outcome.reason === undefined ? {} : { reason: outcome.reason } };
  }
}

/** The outcome in `error.data[TASK_BRIDGE]` or an outcome notification; undefined if malformed. */
export function outcomeFromWire(value: unknown): BridgeOutcome | undefined {
  const wire = asObject(value);
  if (wire === undefined || Object.keys(wire).length !== 1) return undefined;
  if (Object.hasOwn(wire, 'failed')) {
    const failure = failureOf(wire['failed']);
    return failure === undefined ? undefined : { kind: 'failed', failure };
  }
  if (Object.hasOwn(wire, 'cancelled')) {
    const body = asObject(wire['cancelled']);
    const reason = body?.['reason'];
    if (body === undefined || (reason !== undefined && typeof reason !== 'string')) return undefined;
    return reason === undefined ? { kind: 'cancelled' } : { kind: 'cancelled', reason };
  }
  const body = asObject(wire['completed']);
  const result = toolResultOf(body?.['result']);
  const summary = body?.['summary'];
  if (result === undefined || (summary !== undefined && typeof summary !== 'string')) return undefined;
  return summary === undefined ? { kind: 'completed', result } : { kind: 'completed', result, summary };
}
