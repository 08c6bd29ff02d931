/**
 * The MCP interface of a caller under test (docs/caller.md, "What the suite expects of the MCP
 * side"): the suite finds the tool the bridge lists for the remote tool by its `_meta` target and
 * calls it with tools/call; cancelling is MCP cancellation, input is an elicitation, progress a
 * notification. Pins and the local timeout are the bridge's config, written per session.
 */
import type { CallerSession } from '../../../harness/caller-under-test/index.ts';
import type { JsonValue } from '../../../protocol/json/json-value.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import type { CallerCall, CallerUnderTest, CallRequest, RelayedInput } from './caller-under-test.ts';
import { listedTool } from './caller-steps.ts';
import { MCP_PARTY } from './mcp-tap.ts';
import type { Transcript } from '../../../harness/driver/index.ts';

/** What the MCP implementation needs from its case scope. */
export interface McpScope {
  readonly transcript: Transcript;
  /** Resolves with the first MCP message matching (so far or within timeoutMs); rejects on timeout. */
  mcpMessage(match: (json: string) => boolean, what: string, timeoutMs: number): Promise<string>;
}

/** The session's config pins and timeoutSeconds: a call cannot ask for others over MCP. */
export interface McpSessionSettings {
  readonly pins?: Readonly<Record<string, string>>;
  readonly timeoutSeconds?: number;
}

function receivedMcp(transcript: Transcript): string[] {
  return transcript.entries
    .filter((entry) => entry.jid === MCP_PARTY && entry.direction === 'received' && entry.xml !== undefined)
    .map((entry) => entry.xml ?? '');
}

function isProgress(json: string): boolean {
  return json.includes('notifications/progress');
}

export function mcpCallerUnderTest(
  session: CallerSession,
  scope: McpScope,
  settings: McpSessionSettings,
): CallerUnderTest {
  const { driver } = session.caller;
  const nextInput = (timeoutMs: number): Promise<RelayedInput> =>
    new Promise((resolve, reject) => {
      let expired = false;
      const timer = setTimeout(() => {
        expired = true;
        reject(new CannotTell(`the caller sent no elicitation within ${String(timeoutMs)} ms`));
      }, timeoutMs);
      driver.answerElicitation(
        (params) =>
          new Promise((answered) => {
            if (expired) {
              answered({ action: 'decline' });
              return;
            }
            clearTimeout(timer);
            resolve({
              json: JSON.stringify(params),
              answer: (input: JsonValue) => {
                answered({ action: 'accept', content: input as Record<string, string> });
                return Promise.resolve();
              },
            });
          }),
      );
    });
  return {
    interface: 'mcp',
    relaysInput: () => Promise.resolve(true),
    async call(request: CallRequest): Promise<CallerCall> {
      const pinned = settings.pins?.[request.jid];
      if (request.version !== undefined && request.version !== pinned) {
        throw new Error(
          `an MCP caller pins ${request.jid} in its config: start the session with pins {"${request.jid}":"${request.version}"}`,
        );
      }
      if (request.timeoutSeconds !== undefined && request.timeoutSeconds !== settings.timeoutSeconds) {
        throw new Error('an MCP caller takes its timeoutSeconds from its config: start the session with it');
      }
      const listed = await listedTool(session, request.jid, request.tool);
      const call = driver.call(
        listed.name,
        request.arguments,
        request.waitMs === undefined ? {} : { timeoutMs: request.waitMs },
      );
      return {
        done: call.done,
        cancel: (reason) => {
          call.cancel(reason);
        },
        nextInput,
      };
    },
    reported: () => receivedMcp(scope.transcript),
    async reportedProgress(text, timeoutMs) {
      try {
        await scope.mcpMessage(
          (json) => isProgress(json) && json.includes(text),
          `a progress notification showing ${text}`,
          timeoutMs,
        );
        return true;
      } catch (error) {
        if (error instanceof Error && error.name === 'McpWaitTimeout') return false;
        throw error;
      }
    },
    progressShowing: (text) =>
      receivedMcp(scope.transcript).filter((json) => isProgress(json) && json.includes(text)),
  };
}
