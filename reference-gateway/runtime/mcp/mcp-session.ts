/**
 * One MCP client session to an MCP-hosted endpoint's server (#mcp-mapping): the official SDK's
 * Client on a stdio or Streamable HTTP transport, with the server→client traffic of each
 * tools/call routed to that call. MCP has no way to say which call a server-initiated message
 * belongs to; progress notifications carry the call's progressToken, and a server that speaks
 * the task-bridge extension (protocol/mcp-task-bridge.ts) names the call in its elicitations and
 * outcome notifications, so one session carries any number of calls. For any other server an
 * elicitation can only belong to the session's one call, so the pool (mcp-session-pool.ts) gives
 * each concurrent call a session of its own.
 *
 * Raw results: tools/list and tools/call are read with the SDK's loose ResultSchema, not its
 * typed ones, which would drop members of tools (preserved in the manifest) and validate
 * structuredContent against the outputSchema (the task engine's job, with its own refusal).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  ElicitRequest,
  ElicitResult,
  JSONRPCMessage,
  ProgressNotification,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../protocol/json/json-value.ts';
import {
  OUTCOME_NOTIFICATION,
  TASK_BRIDGE,
  TASK_BRIDGE_CAPABILITY,
  bridgePart,
  declaresTaskBridge,
  outcomeFromWire,
  type BridgeOutcome,
} from '../../../protocol/mcp-task-bridge.ts';
import type { McpServerSpec } from '../../config/mcp-endpoints.ts';
import type * as McpSdk from './mcp-sdk.ts';

type Sdk = typeof McpSdk;

let sdkLoading: Promise<Sdk> | undefined;

/** Loaded by the first session that opens (mcp-sdk.ts), once per process. */
function loadSdk(): Promise<Sdk> {
  sdkLoading ??= import('./mcp-sdk.ts');
  return sdkLoading;
}

/** The server→client traffic of one tools/call. */
export interface CallRoute {
  progress(params: ProgressNotification['params']): void;
  elicit(params: ElicitRequest['params']): Promise<ElicitResult>;
  outcome(outcome: BridgeOutcome): void;
  /**
   * The response to a call whose signal had aborted: the server answered before it saw the
   * cancellation, and the SDK, which stopped waiting, would drop it.
   */
  lateAnswer(answer: ResponseAnswer): void;
  /** The session closed under the call. */
  closed(): void;
}

/** A JSON-RPC response to a tools/call. */
export type ResponseAnswer =
  | { readonly kind: 'result'; readonly result: JsonObject }
  | { readonly kind: 'error'; readonly code: number; readonly data: unknown };

/** How a tools/call ended, as the session saw it. */
export type CallAnswer =
  | ResponseAnswer
  /** The call's signal aborted: the SDK sent notifications/cancelled and stopped waiting. */
  | { readonly kind: 'aborted' }
  | { readonly kind: 'closed' };

/** Calls wait for their task (whose deadline the engine enforces), not for the SDK's 60 s default. */
const NO_TIMEOUT_MS = 2 ** 31 - 1;

export type TransportFactory = (spec: McpServerSpec) => Transport;

function defaultTransportOf(sdk: Sdk): TransportFactory {
  return (spec) =>
    spec.kind === 'http'
      ? new sdk.StreamableHTTPClientTransport(new URL(spec.url))
      : new sdk.StdioClientTransport({
          command: spec.command,
          args: [...spec.args],
          ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
          env: { ...sdk.getDefaultEnvironment(), ...spec.env },
          // The server's log lines join the gateway's own stderr.
          stderr: 'inherit',
        });
}

export interface McpSessionOptions {
  readonly clientInfo: { readonly name: string; readonly version: string };
  readonly transport?: TransportFactory;
  /** Connecting (start, initialize) must finish within this. */
  readonly timeoutMs: number;
}

async function withTimeout<T>(work: Promise<T>, ms: number, what: string, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`${what} took longer than ${String(ms)} ms`));
    }, ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export class McpSession {
  readonly client: Client;
  readonly #routes = new Map<string, CallRoute>();
  /** The JSON-RPC ID each running call's tools/call went out under, by progressToken. */
  readonly #requestIds = new Map<string, RequestId>();
  /** Calls whose signal aborted before their response came, by JSON-RPC ID. */
  readonly #abandoned = new Map<RequestId, string>();
  #protocolVersion: string | undefined;
  #closed = false;
  readonly #onClose: (() => void)[] = [];
  readonly #sdk: Sdk;

  private constructor(client: Client, sdk: Sdk) {
    this.client = client;
    this.#sdk = sdk;
  }

  static async open(spec: McpServerSpec, options: McpSessionOptions): Promise<McpSession> {
    const sdk = await loadSdk();
    const client = new sdk.Client(options.clientInfo, {
      capabilities: { elicitation: { form: {} }, experimental: { [TASK_BRIDGE]: TASK_BRIDGE_CAPABILITY } },
    });
    const session = new McpSession(client, sdk);
    const transport = (options.transport ?? defaultTransportOf(sdk))(spec);
    // The negotiated MCP revision (the manifest's mcpProtocolVersion): the Client hands it to the
    // transport's optional setProtocolVersion and keeps no copy of its own.
    const forward = transport.setProtocolVersion?.bind(transport);
    transport.setProtocolVersion = (version) => {
      session.#protocolVersion = version;
      forward?.(version);
    };
    session.#listen();
    const send = transport.send.bind(transport);
    transport.send = (message, sendOptions) => {
      session.#sending(message);
      return send(message, sendOptions);
    };
    await withTimeout(client.connect(transport), options.timeoutMs, 'connecting to the MCP server', () => {
      void client.close();
    });
    // Set by connect: the Client's own reader, which drops a response it stopped waiting for.
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (!session.#tookLateAnswer(message)) deliver?.(message, extra);
    };
    return session;
  }

  /** Notes the JSON-RPC ID of each tools/call as it goes out (the SDK does not expose it). */
  #sending(message: JSONRPCMessage): void {
    // The method first: the schema check runs only for the calls themselves.
    if (!('method' in message) || message.method !== 'tools/call' || !this.#sdk.isJSONRPCRequest(message))
      return;
    const token = message.params?._meta?.progressToken;
    if (typeof token === 'string' && this.#routes.has(token)) this.#requestIds.set(token, message.id);
  }

  /** Routes the response of a call abandoned by the SDK to its call; false for anything else. */
  #tookLateAnswer(message: JSONRPCMessage): boolean {
    // Every inbound message passes here: the ID lookup first, the schema checks only for a hit.
    const id = 'id' in message ? message.id : undefined;
    const token = id === undefined ? undefined : this.#abandoned.get(id);
    if (id === undefined || token === undefined) return false;
    let answer: ResponseAnswer;
    if (this.#sdk.isJSONRPCResultResponse(message))
      answer = { kind: 'result', result: message.result as JsonObject };
    else if (this.#sdk.isJSONRPCErrorResponse(message))
      answer = { kind: 'error', code: message.error.code, data: message.error.data };
    else return false;
    this.#abandoned.delete(id);
    const route = this.#routes.get(token);
    this.#routes.delete(token);
    route?.lateAnswer(answer);
    return true;
  }

  #listen(): void {
    const { client } = this;
    client.onclose = () => {
      this.#closed = true;
      for (const route of this.#routes.values()) route.closed();
      for (const listener of this.#onClose) listener();
    };
    client.onerror = () => undefined;
    client.setNotificationHandler(this.#sdk.ProgressNotificationSchema, (notification) => {
      this.#route(notification.params.progressToken)?.progress(notification.params);
    });
    client.fallbackNotificationHandler = (notification) => {
      const params = notification.params;
      if (notification.method === OUTCOME_NOTIFICATION && params !== undefined) {
        const outcome = outcomeFromWire(params['outcome']);
        const token = params['progressToken'];
        const route = this.#route(token);
        if (outcome !== undefined && route !== undefined) {
          // The call has its outcome: what follows for it is late output, discarded here. This
          // runs before the handlers of later messages, so none of them reaches the task.
          this.#routes.delete(token as string);
          route.outcome(outcome);
        }
      }
      return Promise.resolve();
    };
    client.setRequestHandler(this.#sdk.ElicitRequestSchema, (request) => {
      const call = bridgePart(request.params._meta)?.['call'];
      // A request that names no call can only be the session's one call's; one that names a
      // call this session no longer routes is late output of that call.
      const only = this.#routes.size === 1 ? [...this.#routes.values()][0] : undefined;
      const route = call === undefined ? only : this.#route(call);
      if (route === undefined) {
        throw new this.#sdk.McpError(
          this.#sdk.ErrorCode.InvalidParams,
          'no running tools/call this input request belongs to',
        );
      }
      return route.elicit(request.params);
    });
  }

  #route(token: unknown): CallRoute | undefined {
    return typeof token === 'string' ? this.#routes.get(token) : undefined;
  }

  /** Whether the server declared the task-bridge extension. */
  get bridge(): boolean {
    return declaresTaskBridge(this.client.getServerCapabilities());
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Calls on this session now. */
  get calls(): number {
    return this.#routes.size;
  }

  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  onClose(listener: () => void): void {
    this.#onClose.push(listener);
  }

  /** Every tool of tools/list as the server sent it, following nextCursor (MCP cursors stay here). */
  async listTools(): Promise<JsonObject[]> {
    const tools: JsonObject[] = [];
    let cursor: string | undefined;
    do {
      const page = (await this.client.request(
        { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
        this.#sdk.ResultSchema,
      )) as JsonObject;
      const listed = page['tools'];
      if (!Array.isArray(listed)) throw new Error('tools/list answered without a tools array');
      tools.push(...listed.filter((tool) => isJsonObject(tool)));
      const next = page['nextCursor'];
      cursor = typeof next === 'string' ? next : undefined;
    } while (cursor !== undefined);
    return tools;
  }

  /** One tools/call; the route gets its progress, elicitations and late outcomes meanwhile. */
  async callTool(
    name: string,
    args: JsonValue,
    token: string,
    route: CallRoute,
    signal: AbortSignal,
  ): Promise<CallAnswer> {
    if (this.#closed) return { kind: 'closed' };
    this.#routes.set(token, route);
    // The SDK forgets the request when the signal aborts: a response already on its way is then
    // the call's outcome, and only this session can still take it (#tookLateAnswer).
    const onAbort = (): void => {
      const id = this.#requestIds.get(token);
      if (id !== undefined) this.#abandoned.set(id, token);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      // The route goes as soon as the answer is in (the first job after the SDK resolves, before
      // the handlers of any later message): what the server sends for the call afterwards is
      // late output. After a cancellation (aborted) it stays until the outcome notification.
      const result = (await this.client.request(
        {
          method: 'tools/call',
          params: { name, arguments: args as Record<string, unknown>, _meta: { progressToken: token } },
        },
        this.#sdk.ResultSchema,
        { signal, timeout: NO_TIMEOUT_MS },
      )) as JsonObject;
      this.#routes.delete(token);
      return { kind: 'result', result };
    } catch (error) {
      if (signal.aborted) return { kind: 'aborted' };
      this.#routes.delete(token);
      const { McpError, ErrorCode } = this.#sdk;
      if (
        this.closed ||
        (error instanceof McpError && error.code === (ErrorCode.ConnectionClosed as number))
      ) {
        return { kind: 'closed' };
      }
      if (error instanceof McpError) return { kind: 'error', code: error.code, data: error.data };
      return { kind: 'error', code: ErrorCode.InternalError, data: undefined };
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#requestIds.delete(token);
    }
  }

  /** Stops routing a call: what the server sends for it from now on is discarded. */
  forget(token: string): void {
    this.#routes.delete(token);
    for (const [id, abandoned] of this.#abandoned) if (abandoned === token) this.#abandoned.delete(id);
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
  }
}
