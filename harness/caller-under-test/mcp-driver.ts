/**
 * The suite as the MCP client of a caller under test (an XMPP→MCP bridge; docs/caller.md),
 * through the official SDK: tools/list over every page, tools/call with progress notifications
 * collected, cancellation (notifications/cancelled, sent when the call's signal aborts), and
 * elicitation answered as the case scripts it. Results are kept as the JSON the bridge sent (the
 * SDK's own output-schema check is bypassed): the cases judge presence and absence of members.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ElicitRequestSchema,
  ResultSchema,
  type ElicitRequest,
  type ElicitResult,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';

import type { JsonObject, JsonValue } from '../../protocol/json/json-value.ts';
import { NS_AGENT_API } from '../../protocol/namespaces.ts';

/** The `_meta` key naming the remote tool behind an MCP tool (the contract with the bridge). */
export const TARGET_META_KEY = `${NS_AGENT_API}/target`;

export interface RemoteToolRef {
  readonly jid: string;
  readonly version: string;
  readonly tool: string;
}

/** A tool as tools/list returned it: the raw JSON, and the remote tool its `_meta` names. */
export interface ListedTool {
  readonly name: string;
  readonly json: JsonObject;
  readonly target?: RemoteToolRef;
}

export interface ToolListing {
  readonly tools: readonly ListedTool[];
  /** The nextCursor of each page, in order (absent on the last page). */
  readonly cursors: readonly string[];
}

export type ElicitParams = ElicitRequest['params'];

export interface ReceivedElicitation {
  readonly params: ElicitParams;
  readonly atMs: number;
}

export interface ReceivedProgress {
  readonly progress: Progress;
  readonly atMs: number;
}

/** One tools/call in flight or settled. */
export interface ToolCall {
  readonly name: string;
  readonly progress: readonly ReceivedProgress[];
  /** The JSON-RPC result as sent; rejects with the JSON-RPC error, a timeout or the cancellation. */
  readonly done: Promise<JsonObject>;
  /** Sends notifications/cancelled for this request (MCP cancellation) and stops waiting. */
  cancel(reason?: string): void;
}

export interface CallOptions {
  /** The client's own wait (default 60 s); progress does not reset it. */
  readonly timeoutMs?: number;
}

function remoteToolOf(json: JsonObject): RemoteToolRef | undefined {
  const meta = json['_meta'];
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return undefined;
  const target = meta[TARGET_META_KEY];
  if (typeof target !== 'object' || target === null || Array.isArray(target)) return undefined;
  const { jid, version, tool } = target;
  if (typeof jid !== 'string' || typeof version !== 'string' || typeof tool !== 'string') return undefined;
  return { jid, version, tool };
}

export class McpCallerDriver {
  readonly client: Client;
  /** Every elicitation the bridge sent, in order. */
  readonly elicitations: ReceivedElicitation[] = [];
  readonly #startedAt = performance.now();
  readonly #answers: ((params: ElicitParams) => ElicitResult | Promise<ElicitResult>)[] = [];

  private constructor(client: Client) {
    this.client = client;
  }

  /** Connects over `transport` as an MCP client that supports form elicitation. */
  static async connect(transport: Transport, name = 'agentconf'): Promise<McpCallerDriver> {
    const client = new Client({ name, version: '1' }, { capabilities: { elicitation: { form: {} } } });
    const driver = new McpCallerDriver(client);
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      driver.elicitations.push({ params: request.params, atMs: driver.#elapsed() });
      const answer = driver.#answers.shift();
      // Unscripted elicitations are declined: the case did not expect to be asked.
      return answer === undefined ? { action: 'decline' } : await answer(request.params);
    });
    await client.connect(transport);
    return driver;
  }

  #elapsed(): number {
    return performance.now() - this.#startedAt;
  }

  /** The next elicitation gets this answer (in order; unscripted ones are declined). */
  answerElicitation(
    answer: ElicitResult | ((params: ElicitParams) => ElicitResult | Promise<ElicitResult>),
  ): void {
    this.#answers.push(typeof answer === 'function' ? answer : () => answer);
  }

  /** tools/list over every page. */
  async listTools(options: { readonly maxPages?: number } = {}): Promise<ToolListing> {
    const maxPages = options.maxPages ?? 100;
    const tools: ListedTool[] = [];
    const cursors: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < maxPages; page += 1) {
      const result = (await this.client.request(
        { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
        ResultSchema,
      )) as JsonObject;
      const listed = result['tools'];
      if (!Array.isArray(listed))
        throw new Error(`tools/list returned no tools array: ${JSON.stringify(result)}`);
      for (const json of listed as JsonObject[]) {
        const target = remoteToolOf(json);
        const name = typeof json['name'] === 'string' ? json['name'] : '';
        tools.push({ name, json, ...(target === undefined ? {} : { target }) });
      }
      const next = result['nextCursor'];
      if (typeof next !== 'string') return { tools, cursors };
      cursors.push(next);
      cursor = next;
    }
    throw new Error(`tools/list still had a next page after ${maxPages} pages`);
  }

  /** The listed tool for a remote endpoint's tool, found by its `_meta` target, never by name. */
  async remoteTool(jid: string, tool: string, version?: string): Promise<ListedTool | undefined> {
    const { tools } = await this.listTools();
    return tools.find(
      (listed) =>
        listed.target?.jid === jid &&
        listed.target.tool === tool &&
        (version === undefined || listed.target.version === version),
    );
  }

  /** Starts a tools/call and collects its progress notifications. */
  call(name: string, args: JsonValue, options: CallOptions = {}): ToolCall {
    const progress: ReceivedProgress[] = [];
    const abort = new AbortController();
    const done = this.client.request(
      { method: 'tools/call', params: { name, arguments: args as Record<string, unknown> } },
      ResultSchema,
      {
        signal: abort.signal,
        timeout: options.timeoutMs ?? 60_000,
        onprogress: (update) => {
          progress.push({ progress: update, atMs: this.#elapsed() });
        },
      },
    ) as Promise<JsonObject>;
    // The case awaits `done` (or not, after a cancellation); an unobserved rejection is no failure.
    done.catch(() => undefined);
    return {
      name,
      progress,
      done,
      cancel: (reason) => {
        abort.abort(reason ?? 'cancelled by the suite');
      },
    };
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
