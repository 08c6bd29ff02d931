/**
 * The caller under test as a case sees it, whatever interface its SUT file declares
 * (docs/caller.md): "call `tool` of `jid` with these arguments" gives a handle whose `done` is
 * the outcome as the caller reports it, which the case can cancel and, where the interface
 * carries it, answer an input request on. Cases judge the caller by what it sends the fake
 * target and by what it reports back; the two implementations are mcp-caller-under-test.ts (the
 * suite as an MCP client) and gateway-caller-under-test.ts (the suite invoking the gateway's
 * declared call-out tool).
 */
import type { JsonObject, JsonValue } from '../../../protocol/json/json-value.ts';
import type { AssessmentId } from '../../registry/assessments.ts';

/** The interfaces a caller under test can be driven through (harness/sut/sut-config.ts). */
export const CALLER_INTERFACES = ['mcp', 'gateway-tool'] as const;
export type CallerInterface = (typeof CALLER_INTERFACES)[number];

export const CALLER_INTERFACE_TITLES: Readonly<Record<CallerInterface, string>> = {
  mcp: 'MCP (the suite is the MCP client of a bridge)',
  'gateway-tool': "gateway call-out tool (the suite invokes the gateway's declared tool over XMPP)",
};

/**
 * The assessments each interface can be judged on: the MCP-bridge assessment is about mapping
 * MCP, which a gateway's call-out tool does not speak; caller-side binds every caller.
 */
export const INTERFACE_ASSESSMENTS: Readonly<Record<CallerInterface, readonly AssessmentId[]>> = {
  mcp: ['caller-side', 'mcp-bridge'],
  'gateway-tool': ['caller-side'],
};

/** Whether a case applies to an interface: `true`, or why it does not. */
export type InterfaceApplicability = true | { readonly inapplicable: string };

/** What a case needs of each interface (every case states both). */
export type CaseInterfaces = Readonly<Record<CallerInterface, InterfaceApplicability>>;

/** Every interface: a case that needs only what both interfaces give. */
export const EVERY_INTERFACE: CaseInterfaces = { mcp: true, 'gateway-tool': true };

/** A case that needs MCP itself, with the reason a gateway's call-out tool cannot stand in. */
export function mcpOnly(reason: string): CaseInterfaces {
  return { mcp: true, 'gateway-tool': { inapplicable: reason } };
}

/** A case that judges what only a gateway's call-out shows, with the reason an MCP bridge cannot be judged on it. */
export function gatewayToolOnly(reason: string): CaseInterfaces {
  return { mcp: { inapplicable: reason }, 'gateway-tool': true };
}

export interface CallRequest {
  readonly jid: string;
  readonly tool: string;
  readonly arguments: JsonObject;
  /**
   * Pin this API version. MCP: the bridge pins per endpoint in its config, so the session's pins
   * apply and this must agree with them; gateway-tool: the call's `version` input.
   */
  readonly version?: string;
  /**
   * The caller's own wait for this call. MCP: the caller config's timeoutSeconds (per session);
   * gateway-tool: the call's `timeoutSeconds` input (the session's value when absent here).
   */
  readonly timeoutSeconds?: number;
  /** The suite's own wait for the caller's answer (default: the case's limit decides). */
  readonly waitMs?: number;
}

/** An input request the caller relayed to the suite, answerable once. */
export interface RelayedInput {
  /** What the caller showed of the request, as JSON text. */
  readonly json: string;
  answer(input: JsonValue): Promise<void>;
}

/** One call in flight or settled. */
export interface CallerCall {
  /**
   * The outcome as the caller reports it: MCP, the CallToolResult as sent; gateway-tool, the
   * conformance task's structuredContent `{state, taskId, result}`. Rejects when the caller reports
   * an error (a JSON-RPC error; the conformance task failed or was cancelled) or the suite's wait ends.
   */
  readonly done: Promise<JsonObject>;
  /** Asks the caller to cancel the call (MCP cancellation; cancelling the conformance task). */
  cancel(reason?: string): void;
  /**
   * The next input request the caller relays for this call, within `timeoutMs`; undefined when
   * its interface relays none (the case is then inapplicable: see `relaysInput`).
   */
  nextInput(timeoutMs: number): Promise<RelayedInput>;
}

export interface CallerUnderTest {
  readonly interface: CallerInterface;
  /** Whether the interface relays a remote input request to the suite (MCP: elicitation). */
  relaysInput(): Promise<boolean>;
  /** Makes the caller call `tool` of `jid`; resolves once the request was handed to the caller. */
  call(request: CallRequest): Promise<CallerCall>;
  /** Everything the caller reported to the suite so far (MCP messages; stanzas from the gateway), as text. */
  reported(): string[];
  /**
   * Whether the caller reported progress showing `text` within `timeoutMs` (MCP: a progress
   * notification; gateway-tool: a progress event of the conformance task).
   */
  reportedProgress(text: string, timeoutMs: number): Promise<boolean>;
  /** The progress reports so far that show `text`. */
  progressShowing(text: string): string[];
}
