/**
 * An input request as MCP form elicitation (#interactive-input, #mcp-mapping: not a transparent
 * elicitation tunnel). A schema that MCP's restricted elicitation subset carries exactly is sent
 * as is; any other is asked as one JSON text field, so nothing of the schema is silently
 * dropped. The exact request rides in `_meta`. Pure.
 */
import { ElicitRequestFormParamsSchema } from '@modelcontextprotocol/sdk/types.js';
import type { InputRequiredPayload } from '../../protocol/events/index.ts';
import { canonicalJson } from '../../protocol/json/canonical.ts';
import type { JsonObject, JsonValue } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { NS_AGENT_TASK } from '../../protocol/namespaces.ts';

export const INPUT_META_KEY = `${NS_AGENT_TASK}/input`;
/** The one property of a wrapped schema. */
export const JSON_TEXT_FIELD = 'json';

export interface ElicitationPlan {
  /** The elicitation/create params. */
  readonly params: JsonObject;
  /** Whether the answer is one JSON text to parse (the schema could not be carried exactly). */
  readonly wrapped: boolean;
}

/** Whether MCP's elicitation schema carries `schema` without dropping or changing anything. */
function exactlyRepresentable(schema: JsonObject): boolean {
  const probe = { message: 'probe', requestedSchema: schema };
  const parsed = ElicitRequestFormParamsSchema.safeParse(probe);
  return (
    parsed.success &&
    canonicalJson(parsed.data.requestedSchema as unknown as JsonValue) === canonicalJson(schema)
  );
}

export function elicitationPlan(
  request: InputRequiredPayload,
  taskId: string,
  refusedBefore: boolean,
): ElicitationPlan {
  const wrapped = !exactlyRepresentable(request.inputSchema);
  const requestedSchema: JsonObject = wrapped
    ? {
        type: 'object',
        properties: {
          [JSON_TEXT_FIELD]: {
            type: 'string',
            title: 'Answer (JSON)',
            description: `A JSON text valid against this JSON Schema: ${canonicalJson(request.inputSchema)}`,
          },
        },
        required: [JSON_TEXT_FIELD],
      }
    : request.inputSchema;
  const message = refusedBefore
    ? `${request.question}\n(The previous answer was refused by the agent; please answer again.)`
    : request.question;
  return {
    wrapped,
    params: {
      mode: 'form',
      message,
      requestedSchema,
      _meta: { [INPUT_META_KEY]: { taskId, ...(request as unknown as JsonObject) } },
    },
  };
}

/** The input value from an accepted elicitation's content; throws when a wrapped answer is no JSON. */
export function inputOf(plan: ElicitationPlan, content: Record<string, unknown> | undefined): JsonValue {
  const answer = (content ?? {}) as JsonObject;
  if (!plan.wrapped) return answer;
  const text = answer[JSON_TEXT_FIELD];
  if (typeof text !== 'string') throw new Error(`the answer has no "${JSON_TEXT_FIELD}" text`);
  return parseStrictJson(text);
}
