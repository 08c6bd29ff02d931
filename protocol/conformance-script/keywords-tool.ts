/**
 * The `schema.keywords` tool (docs/conformance-tools.md): its inputSchema is the test. Each member
 * uses a JSON Schema 2020-12 keyword whose meaning differs from earlier drafts (a $ref beside
 * other keywords, $anchor, $dynamicRef and $dynamicAnchor, format as an annotation), so what the
 * gateway admits shows whether it validates arguments as 2020-12 does (#schemas,
 * rules.target-validates-arguments). The tool itself only completes at once with the arguments
 * it was given: its host never validates them again.
 */
import type { ToolResult } from '../events/payload-types.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { TaskActions } from '../tool-actions.ts';
import { REFUSAL_FAILURE } from './failures.ts';

export const KEYWORDS_TOOL = 'schema.keywords';

/** The completion: the admitted arguments, unchanged, as structuredContent. */
export function keywordsResult(args: JsonValue): ToolResult {
  return { content: [], structuredContent: { arguments: args } };
}

export async function runKeywords(args: JsonValue, actions: TaskActions): Promise<void> {
  const result = await actions.complete(keywordsResult(args));
  if (!result.ok && result.refusal === 'invalid') await actions.fail(REFUSAL_FAILURE);
}
