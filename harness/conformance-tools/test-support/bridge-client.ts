/**
 * A minimal MCP client speaking the task-bridge extension, for the conformance-tools tests:
 * it records every progress notification, elicitation and outcome notification per call, and
 * answers elicitations with what the test says.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ElicitRequestSchema,
  ProgressNotificationSchema,
  ResultSchema,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject, JsonValue } from '../../../protocol/json/json-value.ts';
import { TASK_BRIDGE, TASK_BRIDGE_CAPABILITY } from '../../../protocol/mcp-task-bridge.ts';

export type ElicitParams = ElicitRequest['params'];

export interface CallRecord {
  readonly token: string;
  readonly progress: JsonObject[];
  readonly elicitations: ElicitParams[];
  readonly outcomes: JsonObject[];
}

export interface BridgeClient {
  readonly client: Client;
  /** Answers the next elicitations, in order (default: decline). */
  answer: (params: ElicitParams) => ElicitResult | Promise<ElicitResult>;
  /** Starts a tools/call; `done` settles with the JSON-RPC result or rejects with the error. */
  call(
    name: string,
    args: JsonValue,
    signal?: AbortSignal,
  ): { readonly record: CallRecord; readonly done: Promise<JsonObject> };
  close(): Promise<void>;
}

export async function connectBridgeClient(
  transport: Transport,
  options: { readonly bridge?: boolean } = {},
): Promise<BridgeClient> {
  const client = new Client(
    { name: 'test-bridge', version: '1' },
    {
      capabilities: {
        elicitation: { form: {} },
        ...(options.bridge === false ? {} : { experimental: { [TASK_BRIDGE]: TASK_BRIDGE_CAPABILITY } }),
      },
    },
  );
  const calls = new Map<string, CallRecord>();
  let sequence = 0;
  const byToken = (token: unknown): CallRecord | undefined =>
    typeof token === 'string' ? calls.get(token) : undefined;
  const bridgeClient: BridgeClient = {
    client,
    answer: () => ({ action: 'decline' }),
    call(name, args, signal) {
      sequence += 1;
      const token = `call-${String(sequence)}`;
      const record: CallRecord = { token, progress: [], elicitations: [], outcomes: [] };
      calls.set(token, record);
      const done = client.request(
        {
          method: 'tools/call',
          params: { name, arguments: args as Record<string, unknown>, _meta: { progressToken: token } },
        },
        ResultSchema,
        { timeout: 60_000, ...(signal === undefined ? {} : { signal }) },
      ) as Promise<JsonObject>;
      done.catch(() => undefined);
      return { record, done };
    },
    close: () => client.close(),
  };
  client.setNotificationHandler(ProgressNotificationSchema, (notification) => {
    byToken(notification.params.progressToken)?.progress.push(notification.params as JsonObject);
  });
  client.fallbackNotificationHandler = (notification) => {
    const params = (notification.params ?? {}) as JsonObject;
    byToken(params['progressToken'])?.outcomes.push(params);
    return Promise.resolve();
  };
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const part = (request.params._meta?.[TASK_BRIDGE] ?? {}) as JsonObject;
    byToken(part['call'])?.elicitations.push(request.params);
    return bridgeClient.answer(request.params);
  });
  await client.connect(transport);
  return bridgeClient;
}

/** Resolves once `predicate` holds, polling every few milliseconds (fails after `timeoutMs`). */
export async function until(predicate: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
