/**
 * Steps the MCP-bridge cases share: worlds whose tools carry every MCP member (or none), a call
 * whose end is watched without waiting on it, and the comparisons the bridge rules of
 * #mcp-mapping ask for (a member kept exactly, an absent one kept absent).
 */
import { isDeepStrictEqual } from 'node:util';

import type { CallerSession, ToolCall } from '../../../harness/caller-under-test/index.ts';
import type { FakeTask, RecordedStanza } from '../../../harness/fake-target/index.ts';
import { simpleManifest, type FakeTargetWorld } from '../../../harness/fake-target/index.ts';
import type { JsonObject, JsonValue } from '../../../protocol/json/json-value.ts';
import type { CallerCaseContext } from '../framework/caller-context.ts';

/** The MCP Tool members a manifest tool shares with MCP (#manifest), besides name and inputSchema. */
export const CARRIED_MEMBERS = ['title', 'description', 'outputSchema', 'annotations', 'execution'] as const;

/** One endpoint with a tool that has every MCP member and one that has none but its input schema. */
export function memberWorld(context: CallerCaseContext): {
  world: FakeTargetWorld;
  jid: string;
  tools: JsonObject[];
} {
  const jid = `members@${context.targetDomain}`;
  const marker = context.random.string('abcdefghijklmnopqrstuvwxyz', 8);
  const full: JsonObject = {
    name: 'report.full',
    title: `Full ${marker}`,
    description: 'A tool with every MCP member set.',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string', maxLength: 40 } },
      required: ['city'],
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] },
    annotations: { title: `Annotated ${marker}`, readOnlyHint: true, openWorldHint: false },
    execution: { taskSupport: 'optional' },
    _meta: { 'com.example/marker': { value: marker, list: [1, 2, 3] } },
  };
  const bare: JsonObject = { name: 'report.bare', inputSchema: { type: 'object' } };
  return {
    jid,
    tools: [full, bare],
    world: { endpoints: [{ jid, manifests: [simpleManifest(jid, '1.0.0', [full, bare] as never)] }] },
  };
}

/** A world whose one endpoint has `count` tools, enough for the bridge to page tools/list. */
export function largeWorld(
  context: CallerCaseContext,
  count: number,
): { world: FakeTargetWorld; names: string[] } {
  const jid = `many@${context.targetDomain}`;
  const names = Array.from({ length: count }, (_, index) => `tool.${String(index).padStart(3, '0')}`);
  return {
    names,
    world: {
      endpoints: [
        {
          jid,
          manifests: [
            simpleManifest(
              jid,
              '1.0.0',
              names.map((name) => ({ name })),
            ),
          ],
        },
      ],
    },
  };
}

export function objectMember(value: JsonValue | undefined): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
}

/** The members of `expected` the listed (or returned) object does not carry exactly, absence included. */
export function memberDifferences(
  expected: JsonObject,
  received: JsonObject,
  members: readonly string[],
): string[] {
  return members.flatMap((member) => {
    const want = expected[member];
    const got = received[member];
    if (want === undefined)
      return got === undefined ? [] : [`${member}: absent expected, ${JSON.stringify(got)} listed`];
    return isDeepStrictEqual(want, got)
      ? []
      : [`${member}: ${JSON.stringify(want)} expected, ${JSON.stringify(got)} listed`];
  });
}

/** `_meta` keys of the XMPP side that the MCP side lost or changed (keys the bridge adds are its own). */
export function metaDifferences(expected: JsonObject, received: JsonObject): string[] {
  const want = objectMember(expected['_meta']) ?? {};
  const got = objectMember(received['_meta']) ?? {};
  return Object.keys(want).flatMap((key) =>
    isDeepStrictEqual(want[key], got[key])
      ? []
      : [`_meta["${key}"]: ${JSON.stringify(want[key])} expected, ${JSON.stringify(got[key])} received`],
  );
}

/** How a call ended, once it has: the result, or the JSON-RPC error. */
export type CallEnd =
  | { readonly kind: 'result'; readonly result: JsonObject }
  | { readonly kind: 'error'; readonly message: string; readonly code?: number; readonly data?: unknown };

/** Watches a call's end without awaiting it: `end` is undefined while the call is open. */
export function watchCall(call: ToolCall): {
  readonly end: () => CallEnd | undefined;
  readonly ended: Promise<CallEnd>;
} {
  let end: CallEnd | undefined;
  const ended = call.done.then(
    (result): CallEnd => (end = { kind: 'result', result }),
    (error: unknown): CallEnd => {
      const { message, code, data } = error as { message?: string; code?: number; data?: unknown };
      end = {
        kind: 'error',
        message: message ?? String(error),
        ...(typeof code === 'number' ? { code } : {}),
        ...(data === undefined ? {} : { data }),
      };
      return end;
    },
  );
  return { end: () => end, ended };
}

/** Resolves with the call's end, or with undefined when `ms` pass first (the call must stay open). */
export async function endWithin(ended: Promise<CallEnd>, ms: number): Promise<CallEnd | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      resolve(undefined);
    }, ms);
  });
  try {
    return await Promise.race([ended, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Starts a call, returns it with the invoke it caused and the task the fake target admitted. */
export async function callAndAdmit(
  session: CallerSession,
  name: string,
  args: JsonValue,
  waitMs: number,
): Promise<{ call: ToolCall; invoke: RecordedStanza; task: FakeTask }> {
  const invokes = session.target.stream({ kind: 'invoke', from: session.account.jid });
  const call = session.caller.driver.call(name, args, { timeoutMs: 10 * waitMs });
  const invoke = await invokes.next(waitMs);
  return { call, invoke, task: session.target.taskOf(invoke) };
}

export function describeEnd(end: CallEnd | undefined): string {
  if (end === undefined) return 'the call still open';
  return end.kind === 'result'
    ? `the result ${JSON.stringify(end.result)}`
    : `the JSON-RPC error ${String(end.code ?? '?')} "${end.message}"${end.data === undefined ? '' : ` data ${JSON.stringify(end.data)}`}`;
}
