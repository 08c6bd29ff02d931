/**
 * A called task, the scene of most event cases: the suite makes the caller under test call the
 * fake target's one tool (through the caller's declared interface: caller-under-test.ts), the
 * target admits the invoke, and the case then speaks to the caller through lifecycle events.
 * Results are told apart by marker strings, so a caller that maps the result object (a bridge
 * may; a gateway wraps it in its report) is judged on whose content it shows, not on its shape.
 */
import type { FakeTask, FakeTargetWorld, RecordedStanza } from '../../../harness/fake-target/index.ts';
import { bareJidOf } from '../../../protocol/jid/index.ts';
import type { JsonObject, JsonValue } from '../../../protocol/json/json-value.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import type { CallerCaseContext, CallerScene, StartSessionOptions } from './caller-context.ts';
import { callerWaitMs, oneToolWorld } from './caller-steps.ts';
import type { CallerCall } from './caller-under-test.ts';

export interface CalledTask {
  readonly session: CallerScene;
  readonly call: CallerCall;
  readonly invoke: RecordedStanza;
  readonly task: FakeTask;
  readonly jid: string;
  /** The bare JID the caller under test invoked from. */
  readonly callerJid: string;
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
  const session = await context.startCaller(world, {
    ...(options.pins === undefined ? {} : { pins: options.pins }),
    ...(options.timeoutSeconds === undefined ? {} : { timeoutSeconds: options.timeoutSeconds }),
    ...(options.target === undefined ? {} : { target: options.target }),
  });
  return await callTool(context, session, jid, tool, options.callTimeoutMs);
}

/** Makes the session's caller call `jid`'s `tool` again: another task, same caller. */
export async function callTool(
  context: CallerCaseContext,
  session: CallerScene,
  jid: string,
  tool: string,
  callTimeoutMs?: number,
): Promise<CalledTask> {
  const invokes = session.target.stream({ kind: 'invoke' });
  const call = await session.caller.call({
    jid,
    tool,
    arguments: { input: marker(context, 'input') },
    ...(callTimeoutMs === undefined ? {} : { waitMs: callTimeoutMs }),
  });
  const invoke = await invokes.next(callerWaitMs(context));
  const task = session.target.taskOf(invoke);
  context.note(`the caller invoked ${jid}; the fake target admitted task ${task.taskId}`);
  return {
    session,
    call,
    invoke,
    task,
    jid,
    callerJid: invoke.from === undefined ? '' : bareJidOf(invoke.from),
  };
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

/** What the caller under test reported to the suite so far that contains `text`. */
export function reportsShowing(session: CallerScene, text: string): string[] {
  return session.caller.reported().filter((message) => message.includes(text));
}

export type { JsonValue };
