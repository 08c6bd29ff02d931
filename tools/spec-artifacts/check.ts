/**
 * The spec-artifact check: committed artifacts against the spec's normative blocks, and the
 * spec's examples against our XSDs, our strict JSON parser and our canonical hashing.
 * Failures that spec-positions §A already records as spec defects are downgraded to
 * 'spec-defect'; anything else that does not hold is a 'fail'.
 */
import { checkCommittedArtifacts } from './artifact-rules.ts';
import { readExamples } from './example-documents.ts';
import { collectPins } from './example-pins.ts';
import { checkPayloadSchemas } from './example-xsd.ts';
import { extractSpec, type SpecContents } from './extract.ts';
import { SPEC_ARTIFACT, type Finding } from './finding.ts';
import { checkHashes } from './hash-rules.ts';
import { HASH_VECTORS, type HashVector } from './hash-vectors.ts';
import { classifyKnownDefects, KNOWN_SPEC_DEFECTS, type KnownSpecDefect } from './known-defects.ts';
import { readCommittedArtifacts, type CommittedArtifacts } from './spec-artifacts.ts';
import { checkTaskResults } from './task-result-rules.ts';
import { XmlSyntaxError } from '../../protocol/xml/xml-syntax-error.ts';

export interface CheckOptions {
  /** The defect baseline; the spec-positions §A entries by default. */
  readonly knownDefects?: readonly KnownSpecDefect[];
  /** Independent hash vectors; those of interp-01 by default. */
  readonly hashVectors?: readonly HashVector[];
}

/** Checks a spec text against artifact texts supplied by the caller (tests use this). */
export async function checkArtifactTexts(
  specText: string,
  committed: CommittedArtifacts,
  options: CheckOptions = {},
): Promise<Finding[]> {
  let spec: SpecContents;
  try {
    spec = extractSpec(specText);
  } catch (error) {
    if (!(error instanceof XmlSyntaxError)) throw error;
    return [
      {
        severity: 'fail',
        rule: 'spec-xml',
        artifact: SPEC_ARTIFACT,
        subject: 'document',
        details: error.message,
        specLine: error.line,
      },
    ];
  }
  const artifacts = checkCommittedArtifacts(spec, committed);
  const material = readExamples(spec.examples);
  const schemaFindings =
    artifacts.xsdTexts === undefined
      ? []
      : await checkPayloadSchemas(material.payloads, artifacts.xsdTexts, artifacts.xsdSources);
  const findings = [
    ...artifacts.findings,
    ...material.findings,
    ...schemaFindings,
    ...checkHashes(material, collectPins(material), options.hashVectors ?? HASH_VECTORS),
    ...checkTaskResults(material.jsonSites),
  ];
  return classifyKnownDefects(findings, options.knownDefects ?? KNOWN_SPEC_DEFECTS);
}

/** Checks a spec text against the artifacts committed under `repoRoot`. */
export function checkArtifacts(
  specText: string,
  repoRoot: string,
  options: CheckOptions = {},
): Promise<Finding[]> {
  return checkArtifactTexts(specText, readCommittedArtifacts(repoRoot), options);
}

/** The spec's version, for report headers; null when the spec cannot be read. */
export function specVersion(specText: string): string | null {
  try {
    return extractSpec(specText).version;
  } catch {
    return null;
  }
}
