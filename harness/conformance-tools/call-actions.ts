/**
 * TaskActions over one MCP tools/call (docs/conformance-tools.md, "Over MCP"): the conformance
 * script interpreter runs against these exactly as it runs against the reference gateway's task
 * engine, and each action becomes MCP messages to the client (the bridge hosting the tools):
 *
 * - progress → notifications/progress on the call's progressToken (percent as progress of 100,
 *   the exact payload in `_meta[TASK_BRIDGE].progress`); without a progressToken it is refused;
 * - requestInput → elicitation/create (form mode; the exact inputSchema, the expiry and the
 *   call's progressToken in `_meta[TASK_BRIDGE]`); refused when the client cannot elicit;
 * - complete, fail, confirmCancellation → the call's answer: a CallToolResult, or a JSON-RPC
 *   error carrying the failure or the cancellation in `error.data[TASK_BRIDGE]`. Once the call
 *   is answered or the client cancelled it (MCP forbids a response then), an outcome is an
 *   OUTCOME_NOTIFICATION, sent only to a client that declared the extension;
 * - `cancellation` aborts when the client sends notifications/cancelled for the call, `settled`
 *   when the outcome went out (this side cannot see whether the bridge committed it: a bridge
 *   that refuses it settles the task itself), when notifications/cancelled says the task settled,
 *   or when the connection closes.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ElicitRequestFormParamsSchema,
  type ElicitResult,
  type Notification,
  type ProgressToken,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { ProgressPayload, TaskFailure, ToolResult } from '../../protocol/events/payload-types.ts';
import type { JsonObject } from '../../protocol/json/json-value.ts';
import {
  OUTCOME_NOTIFICATION,
  SETTLED_CANCEL_REASON,
  TASK_BRIDGE,
  bridgePart,
  elicitationEndOf,
  elicitationRefusalOf,
  outcomeToWire,
  type BridgeOutcome,
} from '../../protocol/mcp-task-bridge.ts';
import type {
  ActionRefusal,
  ActionResult,
  InputOutcome,
  InputRequest,
  TaskActions,
} from '../../protocol/tool-actions.ts';

// eslint-disable-next-line @typescript-eslint/no-deprecated -- see server.ts: the low-level Server
export type ConformanceServer = Server;

/** Elicitations wait for the task, not for the SDK's 60 s default (setTimeout's largest delay). */
const NO_TIMEOUT_MS = 2 ** 31 - 1;
const OK: ActionResult = Object.freeze({ ok: true });
const SETTLED: ActionResult = Object.freeze({ ok: false, refusal: 'settled' });

/** A requestedSchema MCP clients accept when the script's own schema is not one (nested, non-object, …). */
const OPEN_FORM: JsonObject = Object.freeze({ type: 'object', properties: {} });

export interface CallContext {
  readonly server: ConformanceServer;
  readonly requestId: RequestId;
  readonly progressToken: ProgressToken | undefined;
  /** Aborted by the SDK when the client cancels the call (its reason is the notification's). */
  readonly requestSignal: AbortSignal;
  /** Whether the client declared the task-bridge extension. */
  readonly bridge: boolean;
}

/** The script's input schema as MCP's restricted form schema, when it is one. */
function requestedSchemaOf(inputSchema: JsonObject): JsonObject {
  const parsed = ElicitRequestFormParamsSchema.shape.requestedSchema.safeParse(inputSchema);
  return parsed.success ? (parsed.data as JsonObject) : OPEN_FORM;
}

export class McpCallActions implements TaskActions {
  readonly #context: CallContext;
  readonly #cancellation = new AbortController();
  readonly #settled = new AbortController();
  /** The call's answer, once an outcome was given while the request was open (or undefined at the end). */
  readonly answer: Promise<BridgeOutcome | undefined>;
  #resolveAnswer: (outcome: BridgeOutcome | undefined) => void = () => undefined;
  #answered = false;
  #outcomes = 0;
  #progressCount = 0;

  constructor(context: CallContext) {
    this.#context = context;
    this.answer = new Promise((resolve) => {
      this.#resolveAnswer = resolve;
    });
    const onAbort = (): void => {
      if (context.requestSignal.reason === SETTLED_CANCEL_REASON) this.#settle();
      else this.#cancellation.abort();
    };
    if (context.requestSignal.aborted) onAbort();
    else context.requestSignal.addEventListener('abort', onAbort, { once: true });
  }

  get cancellation(): AbortSignal {
    return this.#cancellation.signal;
  }

  get settled(): AbortSignal {
    return this.#settled.signal;
  }

  /** The script ended: a call still unanswered gets no outcome (the bridge's runtime-fault handling decides). */
  finish(): void {
    this.#answered = true;
    this.#resolveAnswer(undefined);
  }

  /** The connection closed: nothing can be reported any more. */
  abandon(): void {
    this.#settle();
    this.finish();
  }

  #settle(): void {
    this.#settled.abort();
  }

  /**
   * The bridge said (an input request ended 'superseded') that it accepted a cancellation: it has
   * stopped waiting for the response, even while its notifications/cancelled is still on the way.
   */
  #abandonedByBridge = false;

  /** The response may still be sent: not answered, not cancelled by the client. */
  get #open(): boolean {
    // A response the client no longer waits for is dropped by its SDK: the outcome would be lost
    // and the task never settle; it goes as the outcome notification instead.
    return !this.#answered && !this.#context.requestSignal.aborted && !this.#abandonedByBridge;
  }

  /** Sends on the call's own stream while it has one (Streamable HTTP), else on the session's. */
  async #notify(notification: Notification): Promise<void> {
    const { server, requestId } = this.#context;
    try {
      await server.notification(notification, this.#open ? { relatedRequestId: requestId } : {});
    } catch {
      await server.notification(notification).catch(() => undefined);
    }
  }

  async progress(update: ProgressPayload): Promise<ActionResult> {
    const { progressToken } = this.#context;
    if (progressToken === undefined) return { ok: false, refusal: 'invalid' };
    this.#progressCount += 1;
    await this.#notify({
      method: 'notifications/progress',
      params: {
        progressToken,
        progress: update.percent ?? this.#progressCount,
        ...(update.percent === undefined ? {} : { total: 100 }),
        ...(update.message === undefined ? {} : { message: update.message }),
        _meta: { [TASK_BRIDGE]: { progress: update as JsonObject } },
      },
    });
    return OK;
  }

  async requestInput(request: InputRequest): Promise<InputOutcome | ActionRefusal> {
    const { server, requestId, progressToken } = this.#context;
    if (server.getClientCapabilities()?.elicitation === undefined) return 'invalid';
    const bridge: JsonObject = {
      ...(progressToken === undefined ? {} : { call: progressToken }),
      inputSchema: request.inputSchema,
      ...(request.expiresAt === undefined ? {} : { expiresAt: request.expiresAt }),
    };
    let result: ElicitResult;
    try {
      result = await server.elicitInput(
        {
          mode: 'form',
          message: request.question,
          requestedSchema: requestedSchemaOf(request.inputSchema) as never,
          _meta: { [TASK_BRIDGE]: bridge },
        },
        { ...(this.#open ? { relatedRequestId: requestId } : {}), timeout: NO_TIMEOUT_MS },
      );
    } catch {
      return this.settled.aborted ? { kind: 'settled' } : 'invalid';
    }
    return this.#inputOutcome(result);
  }

  #inputOutcome(result: ElicitResult): InputOutcome | ActionRefusal {
    const part = bridgePart(result._meta);
    if (result.action === 'accept') {
      const input = part !== undefined && Object.hasOwn(part, 'input') ? part['input'] : result.content;
      return { kind: 'answered', input: (input ?? {}) as JsonObject };
    }
    const refusal = elicitationRefusalOf(part);
    if (refusal !== undefined) return refusal;
    switch (elicitationEndOf(part)) {
      case 'expired':
        return { kind: 'expired' };
      case 'superseded':
        // The bridge ended the request because it accepted a cancellation; its
        // notifications/cancelled may still be on its way.
        this.#abandonedByBridge = true;
        this.#cancellation.abort();
        return { kind: 'settled' };
      case 'settled':
        this.#settle();
        return { kind: 'settled' };
      case undefined:
        // A plain MCP client: the person declined or dismissed the form.
        return { kind: 'settled' };
    }
  }

  complete(result: ToolResult, summary?: string): Promise<ActionResult> {
    return this.#outcome(
      summary === undefined ? { kind: 'completed', result } : { kind: 'completed', result, summary },
    );
  }

  fail(failure: TaskFailure): Promise<ActionResult> {
    return this.#outcome({ kind: 'failed', failure });
  }

  confirmCancellation(reason?: string): Promise<ActionResult> {
    return this.#outcome(reason === undefined ? { kind: 'cancelled' } : { kind: 'cancelled', reason });
  }

  async #outcome(outcome: BridgeOutcome): Promise<ActionResult> {
    this.#outcomes += 1;
    const first = this.#outcomes === 1;
    if (first && this.#open) {
      this.#answered = true;
      this.#resolveAnswer(outcome);
      this.#settle();
      // The SDK writes the response in the microtasks after the handler returns; late output
      // (the steps after a cancel) must not overtake it, or the bridge would take it for output
      // of a running task.
      await new Promise((resolve) => setImmediate(resolve));
      return OK;
    }
    const { bridge, progressToken } = this.#context;
    if (bridge && progressToken !== undefined) {
      await this.#notify({
        method: OUTCOME_NOTIFICATION,
        params: { progressToken, outcome: outcomeToWire(outcome) },
      });
    }
    if (!first) return SETTLED;
    this.#settle();
    return OK;
  }
}
