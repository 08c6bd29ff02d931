/**
 * The documented resource limits of the strict JSON parse (#json-encoding requires limits on
 * byte length, nesting depth, string length, array and object member count, and parsing
 * time). Exceeding one is a `limit-*` rejection, which a gateway answers with
 * <resource-constraint/>. Deployments may lower or raise each one; the protocol maxima in the
 * manifest schema (#manifest) are enforced later, by schema validation.
 */

export interface JsonLimits {
  /** UTF-8 bytes of the whole JSON text (for string input: the bytes its UTF-8 encoding takes). */
  readonly maxBytes: number;
  /** Open arrays and objects at once: `[]` has depth 1, a bare scalar depth 0. */
  readonly maxDepth: number;
  /** UTF-16 code units of one string after unescaping; member names count as strings too. */
  readonly maxStringLength: number;
  readonly maxObjectMembers: number;
  readonly maxArrayElements: number;
  /** Every value in the document, containers included, member names not. */
  readonly maxValues: number;
}

/**
 * Why these numbers:
 * - maxBytes 1 MiB: a large manifest with thousands of tools fits; it also bounds parsing
 *   time, because the parse does work linear in the byte count.
 * - maxDepth 64: manifests and schemas nest a handful of levels, while JSON Schema validators
 *   and JSON.stringify downstream recurse on the call stack, so depth must stay small even
 *   though this parser itself is iterative.
 * - maxStringLength 64 Ki code units: above the longest manifest string the schema allows
 *   (8192) with room for argument text, yet small enough to bound regex `pattern` work.
 * - maxObjectMembers 16 Ki, maxArrayElements 64 Ki, maxValues 256 Ki: far above realistic
 *   manifests (the schema caps tools at 4096), while capping the memory a 1 MiB text of
 *   tiny values (`[0,0,0,...]`) could make the parse allocate.
 */
export const DEFAULT_JSON_LIMITS: JsonLimits = Object.freeze({
  maxBytes: 1_048_576,
  maxDepth: 64,
  maxStringLength: 65_536,
  maxObjectMembers: 16_384,
  maxArrayElements: 65_536,
  maxValues: 262_144,
});

/** Fills in defaults; a limit must be a non-negative integer or Infinity (no limit). */
export function resolveJsonLimits(overrides: Partial<JsonLimits> = {}): JsonLimits {
  const limits: JsonLimits = { ...DEFAULT_JSON_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(limits) as [string, number][]) {
    const valid = value === Number.POSITIVE_INFINITY || (Number.isInteger(value) && value >= 0);
    if (!valid) throw new RangeError(`JSON limit ${name} must be a non-negative integer, got ${value}`);
  }
  return limits;
}
