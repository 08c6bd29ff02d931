/**
 * Payloads a case sends through the fake target that are tedious to write by hand. Valid by the
 * lifecycle schema (#event-json-schemas) unless the case edits them.
 */
import type { JsonObject } from '../../protocol/json/json-value.ts';

/**
 * A completed payload whose JSON text is at least `minBytes` UTF-8 bytes: one text content item
 * of ASCII filler, for a result over a caller's documented limits (#json-encoding).
 */
export function completedPayloadOfSize(minBytes: number): JsonObject {
  const skeleton = JSON.stringify({ result: { content: [{ type: 'text', text: '' }] } });
  const filler = 'x'.repeat(Math.max(0, minBytes - skeleton.length));
  return { result: { content: [{ type: 'text', text: filler }] } };
}
