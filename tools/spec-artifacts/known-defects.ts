/**
 * The baseline of known spec defects (spec-positions.md §A) that this check can observe.
 * A failure matching an entry becomes 'spec-defect' with the position number. An entry that
 * matches no failure is itself a failure ('stale-known-defect'): the spec changed, and the
 * baseline must follow, so a fixed defect never keeps hiding a real regression.
 */
import { interpretationId } from '../../protocol/interpretations.ts';
import { exampleArtifact, SPEC_ARTIFACT, type Finding, type RuleId } from './finding.ts';

export interface KnownSpecDefect {
  /** Position number in spec-positions.md. */
  readonly position: number;
  readonly slug: string;
  readonly rule: RuleId;
  readonly artifact: string;
  readonly subject: string;
}

const TOOL_PIN = 'tool forecast.get';

export const KNOWN_SPEC_DEFECTS: readonly KnownSpecDefect[] = [
  // #1: two manifests share weather@agents.example 1.4.0; the examples pin the minimal one
  // (no tools, no description) while describing and invoking forecast.get.
  {
    position: 1,
    slug: 'ex-manifest-hash',
    rule: 'manifest-identity',
    artifact: SPEC_ARTIFACT,
    subject: 'weather@agents.example 1.4.0',
  },
  {
    position: 1,
    slug: 'ex-manifest-hash',
    rule: 'manifest-pin',
    artifact: exampleArtifact('Endpoint service discovery information'),
    subject: 'urn:xmpp:agent-endpoint-info:0 manifest_hash_value: description',
  },
  {
    position: 1,
    slug: 'ex-manifest-hash',
    rule: 'manifest-pin',
    artifact: exampleArtifact('Client retrieves a tool input schema'),
    subject: `<schema-request/> hash: ${TOOL_PIN}`,
  },
  {
    position: 1,
    slug: 'ex-manifest-hash',
    rule: 'manifest-pin',
    artifact: exampleArtifact('Client retrieves a tool input schema'),
    subject: `<schema/> manifest-hash: ${TOOL_PIN}`,
  },
  {
    position: 1,
    slug: 'ex-manifest-hash',
    rule: 'manifest-pin',
    artifact: exampleArtifact('Caller invokes a remote tool'),
    subject: `<invoke/> manifest-hash: ${TOOL_PIN}`,
  },
  {
    position: 1,
    slug: 'ex-manifest-hash',
    rule: 'manifest-pin',
    artifact: exampleArtifact('Federated discovery, durable acceptance, and completion'),
    subject: `<invoke/> manifest-hash: ${TOOL_PIN}`,
  },
  // #3: the completed task-result leaves out the event's "summary".
  {
    position: 3,
    slug: 'ex-task-result-summary',
    rule: 'task-result-payload',
    artifact: exampleArtifact('Caller retrieves the retained terminal result'),
    subject: 'task task-7f2a9c41d8804e96bb478af6453c0371 revision 4',
  },
];

const matches = (defect: KnownSpecDefect, finding: Finding): boolean =>
  finding.rule === defect.rule && finding.artifact === defect.artifact && finding.subject === defect.subject;

export function classifyKnownDefects(
  findings: readonly Finding[],
  defects: readonly KnownSpecDefect[],
): Finding[] {
  const seen = new Set<KnownSpecDefect>();
  const classified = findings.map((finding): Finding => {
    if (finding.severity !== 'fail') return finding;
    const defect = defects.find((candidate) => matches(candidate, finding));
    if (defect === undefined) return finding;
    seen.add(defect);
    return { ...finding, severity: 'spec-defect', position: defect.position };
  });
  for (const defect of defects) {
    if (seen.has(defect)) continue;
    classified.push({
      severity: 'fail',
      rule: 'stale-known-defect',
      artifact: defect.artifact,
      subject: `${defect.rule}: ${defect.subject}`,
      details: `${interpretationId(defect.position)} (${defect.slug}) is recorded as a known defect but no longer occurs; update the baseline`,
      position: defect.position,
    });
  }
  return classified;
}
