/**
 * A progress event as an MCP progress notification (#mcp-mapping: progress notification ↔
 * progress event). MCP wants a strictly increasing `progress`; the XMPP percent need only be
 * nondecreasing and may be absent, so the revision (always increasing) is the progress and the
 * members present become the message. The exact payload rides in `_meta`. Pure.
 */
import type { ProgressPayload } from '../../protocol/events/index.ts';
import type { JsonObject } from '../../protocol/json/json-value.ts';
import { NS_AGENT_TASK } from '../../protocol/namespaces.ts';

export const PROGRESS_META_KEY = `${NS_AGENT_TASK}/progress`;

function messageOf(payload: ProgressPayload): string | undefined {
  const parts = [
    payload.percent === undefined ? undefined : `${String(payload.percent)}%`,
    payload.stage === undefined
      ? undefined
      : payload.message === undefined
        ? payload.stage
        : `${payload.stage}:`,
    payload.message,
  ].filter((part): part is string => part !== undefined);
  return parts.length === 0 ? undefined : parts.join(' ');
}

export function progressNotificationParams(
  progressToken: string | number,
  payload: ProgressPayload,
  revision: number,
  taskId: string,
): JsonObject {
  const message = messageOf(payload);
  return {
    progressToken,
    progress: revision,
    ...(message === undefined ? {} : { message }),
    _meta: { [PROGRESS_META_KEY]: { taskId, revision, payload: payload as unknown as JsonObject } },
  };
}
