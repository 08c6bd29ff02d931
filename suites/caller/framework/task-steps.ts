/**
 * A called task, the scene of most event cases: the caller under test lists the fake target's
 * one tool, the suite calls it over MCP, the target admits the invoke, and the case then speaks
 * to the caller through lifecycle events. Results are told apart by marker strings, so a caller
 * that maps the result object (a bridge may) is judged on whose content it shows, not on its
 * shape.
 */
import type { CallerSession, ToolCall } from '../../../harness/caller-under-test/index.ts';
import type { FakeTask, FakeTargetWorld, RecordedStanza } from '../../../harness/fake-target/index.ts';
import type { JsonObject, JsonValue } from '../../../protocol/json/json-value.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import type { CallerCaseContext, StartSessionOptions } from './caller-context.ts';
import { callerWaitMs, listedTool, oneToolWorld } from './caller-steps.ts';
import { MCP_PARTY } from './mcp-tap.ts';

export interface CalledTask {
  readonly session: CallerSession;
  readonly call: ToolCall;
  readonly invoke: RecordedStanza;
  readonly task: FakeTask;
  readonly jid: string;
}

export interface CalledTaskOptions extends StartSessionOptions {
  /** Changes to the one-tool world (replay window, features…). */
  readonly endpoint?: Partial<Omit<FakeTargetWorld['endpoints'][number], 'jid'>>;
  /** The MCP client's own wait for the call (default: the case's limit decides). */
  readonly callTimeoutMs?: number;
}

/** A marker unique to this case run, from its seeded random: `tag-xxxxxxxx`. */
export function marker(context: CallerCaseContext, tag: string): string {
  return `${tag}-${context.random.string('abcdefghijklmnopqrstuvwxyz0123456789', 10)}`;
}

export async function startCalledTask(
  context: CallerCaseContext,
  localpart: string,
  options: CalledTaskOptions = {},
): Promise<CalledTask> {
  const { world, jid, tool } = oneToolWorld(context, localpart, 'task.run', options.endpoint);
  const session = await context.startSession(world, {
    ...(options.pins === undefined ? {} : { pins: options.pins }),
    ...(options.timeoutSeconds === undefined ? {} : { timeoutSeconds: options.timeoutSeconds }),
    ...(options.target === undefined ? {} : { target: options.target }),
  });
  return await callListedTool(context, session, jid, tool, options.callTimeoutMs);
}

/** Calls the tool the session's caller lists for `jid`'s `tool` again: another task, same caller. */
export async function callListedTool(
  context: CallerCaseContext,
  session: CallerSession,
  jid: string,
  tool: string,
  callTimeoutMs?: number,
): Promise<CalledTask> {
  const listed = await listedTool(session, jid, tool);
  const invokes = session.target.stream({ kind: 'invoke' });
  const call = session.caller.driver.call(
    listed.name,
    { input: marker(context, 'input') },
    callTimeoutMs === undefined ? {} : { timeoutMs: callTimeoutMs },
  );
  const invoke = await invokes.next(callerWaitMs(context));
  const task = session.target.taskOf(invoke);
  context.note(`the caller invoked ${jid}; the fake target admitted task ${task.taskId}`);
  return { session, call, invoke, task, jid };
}

/** A completed payload whose result text is `text`. */
export function completedWith(text: string): JsonObject {
  return { result: { content: [{ type: 'text', text }] } };
}

/** Sends the task's real, valid completion and waits for the call's MCP outcome, as JSON text. */
export async function settleAndRead(
  context: CallerCaseContext,
  called: CalledTask,
  text: string,
): Promise<string> {
  await called.session.target.sendEvent(called.task, { type: 'completed', payload: completedWith(text) });
  try {
    return JSON.stringify(await called.call.done);
  } catch (error) {
    throw new CannotTell(
      `the caller did not answer the call once the task completed validly (${error instanceof Error ? error.message : String(error)}): what it made of the earlier messages cannot be read from its answer`,
    );
  }
}

/** Every MCP message the caller under test sent the suite so far, as JSON text. */
export function mcpReceived(context: CallerCaseContext): string[] {
  return context.transcript.entries
    .filter((entry) => entry.jid === MCP_PARTY && entry.direction === 'received' && entry.xml !== undefined)
    .map((entry) => entry.xml ?? '');
}

/** The received MCP messages that contain `text`. */
export function mcpMessagesShowing(context: CallerCaseContext, text: string): string[] {
  return mcpReceived(context).filter((message) => message.includes(text));
}

export type { JsonValue };
