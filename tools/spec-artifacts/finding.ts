/** The record every artifact rule emits; the CLI and tests read nothing else. */

/**
 * - 'ok': the rule held.
 * - 'spec-defect': the rule failed where spec-positions §A already records the spec as
 *   self-contradictory; reported, never fatal.
 * - 'fail': anything else that does not hold; the check fails.
 */
export type Severity = 'ok' | 'spec-defect' | 'fail';

export type RuleId =
  /** The spec itself is well-formed XEP XML (undeclared XEP entities aside). */
  | 'spec-xml'
  /** A normative <code> block we copy exists exactly once in the spec. */
  | 'spec-block'
  /** A committed artifact equals its spec block after whitespace normalization. */
  | 'artifact-match'
  /** A committed artifact is well-formed in its own format (strict JSON, XML, compilable XSD). */
  | 'artifact-syntax'
  /** An XML example is well-formed (several stanzas are wrapped in one root). */
  | 'example-xml'
  /** A direct agent-api / agent-task payload of an example validates against our XSDs. */
  | 'example-xsd'
  /** A JSON example or JSON-bearing element passes the strict I-JSON parse. */
  | 'example-json'
  /** A <hash/> equals SHA-256 over the canonical bytes of the JSON it covers. */
  | 'hash-self'
  /** Hash vectors pinned in spec-positions (#1) reproduce from the spec's JSON. */
  | 'hash-vector'
  /** No two distinct manifests in the spec claim the same immutable (jid, version). */
  | 'manifest-identity'
  /** A pinned manifest hash selects a manifest from the spec consistent with its context. */
  | 'manifest-pin'
  /** A pinned schema hash is the hash of that tool's schema in a manifest of that version. */
  | 'schema-pin'
  /** A <task-result/> carries the same object as the terminal event (#event-json-schemas). */
  | 'task-result-payload'
  /** A recorded spec defect that no longer reproduces: the baseline needs updating. */
  | 'stale-known-defect';

export interface Finding {
  readonly severity: Severity;
  readonly rule: RuleId;
  /** A committed file path, `example "caption"`, or `spec`. */
  readonly artifact: string;
  /** What within the artifact was checked; stable, so known defects can name it. */
  readonly subject: string;
  readonly details: string;
  readonly anchor?: string;
  readonly specLine?: number;
  /** spec-positions.md position number, for spec-defect findings. */
  readonly position?: number;
}

export const SPEC_ARTIFACT = 'spec';

export function exampleArtifact(caption: string): string {
  return `example "${caption}"`;
}

/** Where a finding about a spec block points. */
export function blockLocation(
  block: { readonly anchor: string | null; readonly line: number },
  lineInBlock = 1,
): Pick<Finding, 'anchor' | 'specLine'> {
  const specLine = block.line + lineInBlock - 1;
  return block.anchor === null ? { specLine } : { anchor: block.anchor, specLine };
}
