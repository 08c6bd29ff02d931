/**
 * The `mcp` ToolRuntime (#model-boundary, #mcp-mapping): the tools of an MCP-hosted endpoint,
 * each task one tools/call on a session of the endpoint's server. What the server sends becomes
 * TaskActions, which the engine commits or refuses like any runtime's:
 *
 * | MCP                                              | task                                               |
 * | ------------------------------------------------ | -------------------------------------------------- |
 * | notifications/progress                           | progress (the bridge payload, else percent = progress/total, message) |
 * | elicitation/create (form)                        | requestInput: question = message, inputSchema = the bridge schema or requestedSchema, expiresAt from the bridge |
 * | CallToolResult                                   | complete with the whole result (isError included); summary from the bridge |
 * | JSON-RPC error with a bridge failure/cancellation | fail / confirmCancellation                          |
 * | other JSON-RPC error                             | the engine's runtime fault (failed internal-error, retryable) |
 * | the session closed                               | failed `unavailable`, retryable                      |
 *
 * And the other way: an accepted cancellation → notifications/cancelled; the task settling from
 * outside (deadline) → notifications/cancelled with SETTLED_CANCEL_REASON. MCP cancellation is
 * terminal (no answer follows), XMPP cancellation advisory: with a server that speaks the
 * task-bridge extension the runtime waits for the tool's own outcome (OUTCOME_NOTIFICATION: it
 * may still complete or fail, #cancellation); with any other server it returns at once and the
 * engine settles the task cancelled — the completion-or-failure race is lost, a semantic loss
 * docs/gateway-config.md reports. A refused result, failure or confirmation (invalid) falls back
 * to failed internal-error, as the conformance interpreter does (interp-40). What the server
 * sends for a call after its outcome is discarded here.
 */
import { randomUUID } from 'node:crypto';
import type { ElicitRequest, ElicitResult, ProgressNotification } from '@modelcontextprotocol/sdk/types.js';
import { REFUSAL_FAILURE, untilAborted } from '../../../protocol/conformance-script/index.ts';
import type { ProgressPayload, TaskFailure } from '../../../protocol/events/payload-types.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../protocol/json/json-value.ts';
import {
  SETTLED_CANCEL_REASON,
  TASK_BRIDGE,
  bridgePart,
  outcomeFromWire,
  progressOf,
  toolResultOf,
  withoutBridgePart,
  type BridgeOutcome,
} from '../../../protocol/mcp-task-bridge.ts';
import type { ActionResult, TaskActions, ToolInvocation, ToolRuntime } from '../tool-runtime.ts';
import type { McpSession, ResponseAnswer } from './mcp-session.ts';
import type { McpSessionPool } from './mcp-session-pool.ts';

export const MCP_RUNTIME_NAME = 'mcp';

/** The server went away under a running call. */
export const SERVER_GONE: TaskFailure = Object.freeze({
  code: 'unavailable',
  message: 'The MCP server closed the connection while the tool ran.',
  retryable: true,
});

/** No session could be opened for the call. */
export const SERVER_UNREACHABLE: TaskFailure = Object.freeze({
  code: 'unavailable',
  message: 'The MCP server cannot be reached.',
  retryable: true,
});

const CANCEL_REASON = 'the caller cancelled the task';

/** A plain MCP progress notification as a progress payload (undefined: nothing to report). */
function plainProgress(params: ProgressNotification['params']): ProgressPayload | undefined {
  const { progress, total, message } = params;
  const percent = total !== undefined && total > 0 ? (progress / total) * 100 : undefined;
  if (percent === undefined && message === undefined) return undefined;
  return { ...(percent === undefined ? {} : { percent }), ...(message === undefined ? {} : { message }) };
}

/** An answer MCP's ElicitResult.content can carry (flat: strings, numbers, booleans, string arrays). */
function formContent(input: JsonValue): Record<string, string | number | boolean | string[]> | undefined {
  if (!isJsonObject(input)) return undefined;
  const flat = Object.values(input).every(
    (value) =>
      typeof value === 'string' ||
      typeof value === 'number' ||
      typeof value === 'boolean' ||
      (Array.isArray(value) && value.every((item) => typeof item === 'string')),
  );
  return flat ? (input as Record<string, string | number | boolean | string[]>) : undefined;
}

/** The outcome a CallToolResult stands for: the whole result, the bridge's summary taken out. */
function completedOf(raw: JsonObject): BridgeOutcome | undefined {
  const result = toolResultOf(raw);
  if (result === undefined) return undefined;
  const summary = bridgePart(result._meta)?.['summary'];
  const meta = withoutBridgePart(result._meta);
  const { _meta: _dropped, ...rest } = result;
  return {
    kind: 'completed',
    result: meta === undefined ? rest : { ...rest, _meta: meta },
    ...(typeof summary === 'string' ? { summary } : {}),
  };
}

/** The outcome a tools/call response stands for (undefined: an error that is not the tool's outcome). */
function outcomeOfAnswer(answer: ResponseAnswer): BridgeOutcome | undefined {
  return answer.kind === 'result' ? completedOf(answer.result) : outcomeFromWire(bridgePart(answer.data));
}

/** Commits an outcome; a refusal as invalid becomes the fallback failure. */
async function settleWith(actions: TaskActions, outcome: BridgeOutcome | undefined): Promise<void> {
  let result: ActionResult;
  switch (outcome?.kind) {
    case undefined:
      result = { ok: false, refusal: 'invalid' };
      break;
    case 'completed':
      result =
        outcome.summary === undefined
          ? await actions.complete(outcome.result)
          : await actions.complete(outcome.result, outcome.summary);
      break;
    case 'failed':
      result = await actions.fail(outcome.failure);
      break;
    case 'cancelled':
      if (actions.confirmCancellation === undefined) return;
      result =
        outcome.reason === undefined
          ? await actions.confirmCancellation()
          : await actions.confirmCancellation(outcome.reason);
      break;
  }
  if (!result.ok && result.refusal === 'invalid') await actions.fail(REFUSAL_FAILURE);
}

/** One task as one tools/call. */
/** Whether the task was cancelled or settled before its tools/call could be sent. */
function endedBeforeTheCall(actions: TaskActions): boolean {
  return actions.settled.aborted || actions.cancellation.aborted;
}

class McpCall {
  readonly #session: McpSession;
  readonly #actions: TaskActions;
  readonly #token = `task-${randomUUID()}`;
  readonly #abort = new AbortController();
  /** Resolves with the tool's outcome after a cancellation, or undefined when none can come. */
  #lateOutcome: (outcome: BridgeOutcome | undefined) => void = () => undefined;
  readonly #afterCancel = new Promise<BridgeOutcome | undefined>((resolve) => {
    this.#lateOutcome = resolve;
  });

  constructor(session: McpSession, actions: TaskActions) {
    this.#session = session;
    this.#actions = actions;
  }

  /** notifications/cancelled for the call (once): the caller's cancellation, or the task settled. */
  #cancel(reason: string): void {
    if (!this.#abort.signal.aborted) this.#abort.abort(reason);
  }

  async run(invocation: ToolInvocation, log: (line: string) => void): Promise<void> {
    const actions = this.#actions;
    const onCancel = (): void => {
      this.#cancel(CANCEL_REASON);
    };
    const onSettled = (): void => {
      this.#cancel(SETTLED_CANCEL_REASON);
      this.#lateOutcome(undefined);
    };
    // Cancelled or settled before the call went out: the server never sees it (the SDK refuses
    // to send a request whose signal has aborted), so no outcome of its can come, and returning
    // lets the engine settle a cancelling task as cancelled.
    if (endedBeforeTheCall(actions)) return;
    actions.cancellation.addEventListener('abort', onCancel, { once: true });
    actions.settled.addEventListener('abort', onSettled, { once: true });
    try {
      const answer = await this.#session.callTool(
        invocation.tool,
        invocation.arguments,
        this.#token,
        {
          progress: (params) => {
            const payload = progressOf(bridgePart(params._meta)) ?? plainProgress(params);
            if (payload !== undefined) void actions.progress(payload);
          },
          elicit: (params) => this.#elicit(params),
          outcome: (outcome) => {
            this.#lateOutcome(outcome);
          },
          lateAnswer: (late) => {
            this.#lateOutcome(outcomeOfAnswer(late));
          },
          closed: () => {
            this.#lateOutcome(undefined);
          },
        },
        this.#abort.signal,
      );
      switch (answer.kind) {
        case 'result':
          await settleWith(actions, completedOf(answer.result));
          return;
        case 'error': {
          const outcome = outcomeOfAnswer(answer);
          if (outcome !== undefined) {
            await settleWith(actions, outcome);
            return;
          }
          // Not an outcome of the tool: the engine's runtime-fault handling decides.
          log(`mcp: tools/call ${invocation.tool} answered JSON-RPC error ${String(answer.code)}`);
          return;
        }
        case 'closed':
          await actions.fail(SERVER_GONE);
          return;
        case 'aborted': {
          if (actions.settled.aborted || !this.#session.bridge) return;
          // Cancellation is advisory: the tool's own outcome follows, as the outcome notification,
          // or as the response the server sent before it saw the cancellation (the session hands
          // it over although the SDK stopped waiting). When none can come (settled, the session
          // closed), returning lets the engine settle a task that is still cancelling as cancelled.
          const outcome = await Promise.race([
            this.#afterCancel,
            untilAborted(actions.settled).then(() => undefined),
          ]);
          if (outcome !== undefined) await settleWith(actions, outcome);
          return;
        }
      }
    } finally {
      actions.cancellation.removeEventListener('abort', onCancel);
      actions.settled.removeEventListener('abort', onSettled);
      this.#session.forget(this.#token);
    }
  }

  async #elicit(params: ElicitRequest['params']): Promise<ElicitResult> {
    const actions = this.#actions;
    if (params.mode === 'url') return { action: 'decline' };
    const part = bridgePart(params._meta);
    const inputSchema = isJsonObject(part?.['inputSchema'])
      ? part['inputSchema']
      : (params.requestedSchema as unknown as JsonObject);
    const expiresAt = part?.['expiresAt'];
    const outcome = await actions.requestInput({
      question: params.message,
      inputSchema,
      ...(typeof expiresAt === 'string' ? { expiresAt } : {}),
    });
    if (typeof outcome === 'string')
      return { action: 'decline', _meta: { [TASK_BRIDGE]: { refusal: outcome } } };
    switch (outcome.kind) {
      case 'answered': {
        const content = formContent(outcome.input);
        return {
          action: 'accept',
          ...(content === undefined ? {} : { content }),
          _meta: { [TASK_BRIDGE]: { input: outcome.input } },
        };
      }
      case 'expired':
        return { action: 'cancel', _meta: { [TASK_BRIDGE]: { outcome: 'expired' } } };
      case 'settled': {
        const superseded = actions.cancellation.aborted && !actions.settled.aborted;
        // The cancellation goes out first, so the server sees why its request ended.
        if (superseded) this.#cancel(CANCEL_REASON);
        return {
          action: 'cancel',
          _meta: { [TASK_BRIDGE]: { outcome: superseded ? 'superseded' : 'settled' } },
        };
      }
    }
  }
}

export interface McpRuntimeOptions {
  readonly pool: McpSessionPool;
  /** Log lines (no payloads: #privacy). */
  readonly log?: (line: string) => void;
}

export class McpRuntime implements ToolRuntime {
  readonly name = MCP_RUNTIME_NAME;
  readonly #pool: McpSessionPool;
  readonly #log: (line: string) => void;

  constructor(options: McpRuntimeOptions) {
    this.#pool = options.pool;
    this.#log = options.log ?? (() => undefined);
  }

  async execute(invocation: ToolInvocation, actions: TaskActions): Promise<void> {
    let session: McpSession;
    try {
      session = await this.#pool.acquire();
    } catch {
      await actions.fail(SERVER_UNREACHABLE);
      return;
    }
    try {
      await new McpCall(session, actions).run(invocation, this.#log);
    } finally {
      this.#pool.release(session);
    }
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
