/**
 * The manifest of a call-out endpoint (docs/caller.md, "A gateway whose own agents call out"):
 * one tool (CALL_OUT_TOOL, the documented call-out tool), whose input is exactly the documented object and whose
 * structured output is `{ state, taskId, result }`. Built in code because the endpoint's JID
 * (the manifest's agent.jid) comes from the gateway config.
 */
import type { JsonObject } from '../../../protocol/json/json-value.ts';

export const CALL_OUT_TOOL = 'conformance.call-out';
export const CALL_OUT_VERSION = '1.0.0';

/** The states the output can report: the remote terminal ones, or unknown after a local wait. */
export const CALL_OUT_STATES = ['completed', 'failed', 'cancelled', 'unknown'] as const;

/** Longest local wait a call may ask for: a day (the conformance task's own deadline still applies). */
export const MAX_WAIT_SECONDS = 86_400;

export const CALL_OUT_INPUT_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    target: {
      description: 'The bare JID of the endpoint to call.',
      type: 'string',
      pattern: '^[^@/\\s]+@[^@/\\s]+$',
      maxLength: 3071,
    },
    tool: { description: 'The tool to invoke.', type: 'string', minLength: 1, maxLength: 1024 },
    version: {
      description: 'Pin this API version; absent: the version active when the call starts.',
      type: 'string',
      minLength: 1,
      maxLength: 1024,
    },
    arguments: { description: "The tool's arguments.", type: 'object' },
    timeoutSeconds: {
      description: 'How long to wait for the remote task to settle; reaching it ends the wait only.',
      type: 'number',
      exclusiveMinimum: 0,
      maximum: MAX_WAIT_SECONDS,
    },
  },
  required: ['target', 'tool', 'arguments'],
  additionalProperties: false,
};

export const CALL_OUT_OUTPUT_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    state: { type: 'string', enum: [...CALL_OUT_STATES] },
    taskId: { type: ['string', 'null'] },
    result: { type: ['object', 'null'] },
  },
  required: ['state', 'taskId', 'result'],
  additionalProperties: false,
};

export function callOutManifest(jid: string): JsonObject {
  return {
    manifestSpecVersion: '0',
    agent: {
      jid,
      name: 'call-out',
      title: 'Conformance Call-out',
      description:
        'Makes this gateway call a remote endpoint as a caller, so a conformance suite can judge it as one. Contract: docs/caller.md.',
      version: CALL_OUT_VERSION,
      vendor: 'agentconf',
    },
    tools: [
      {
        name: CALL_OUT_TOOL,
        title: 'Call a Remote Tool',
        description:
          'Invokes tool at target with arguments, as this gateway, and completes once the remote task settled with { state, taskId, result }.',
        inputSchema: CALL_OUT_INPUT_SCHEMA,
        outputSchema: CALL_OUT_OUTPUT_SCHEMA,
        annotations: {
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: false,
          openWorldHint: true,
        },
        'urn:xmpp:agent-api:0': {
          supportsProgress: true,
          supportsCancellation: true,
          supportsInput: true,
          tags: ['conformance'],
        },
      },
    ],
  };
}
