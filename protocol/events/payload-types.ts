/**
 * Typed views of lifecycle payloads that passed validation (#event-json-schemas, #events).
 * They are the validated JSON objects themselves; members the schema leaves open (tool-result
 * content, structured content, metadata, error details) stay untyped JSON.
 */
import type { JsonObject, JsonValue } from '../json/json-value.ts';
import type { EventType } from '../task-states.ts';

export interface StatusPayload {
  readonly state: 'running' | 'input_required' | 'cancelling';
  readonly updatedAt: string;
}

export interface ProgressPayload {
  readonly percent?: number;
  readonly stage?: string;
  readonly message?: string;
}

export interface InputRequiredPayload {
  readonly requestId: string;
  readonly question: string;
  readonly inputSchema: JsonObject;
  readonly createdAt: string;
  readonly expiresAt?: string;
}

/** The complete tool result envelope, preserved as a whole from MCP's CallToolResult (#events). */
export interface ToolResult {
  readonly content: readonly JsonObject[];
  readonly structuredContent?: JsonValue;
  readonly isError?: boolean;
  readonly _meta?: JsonObject;
}

export interface CompletedPayload {
  readonly result: ToolResult;
  readonly summary?: string;
}

export interface TaskFailure {
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
  readonly details?: JsonObject;
}

export interface FailedPayload {
  readonly error: TaskFailure;
}

export interface CancelledPayload {
  readonly reason?: string;
}

export interface EventPayloads {
  readonly status: StatusPayload;
  readonly progress: ProgressPayload;
  readonly input_required: InputRequiredPayload;
  readonly completed: CompletedPayload;
  readonly failed: FailedPayload;
  readonly cancelled: CancelledPayload;
}

export type EventPayload<T extends EventType = EventType> = EventPayloads[T];
