/**
 * Rules (a): every committed artifact is present, equals its spec block after whitespace
 * normalization, and is well-formed in its own format. Also decides which XSD texts the
 * example checks validate against.
 */
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { isJsonObject } from '../../protocol/json/json-value.ts';
import type { XsdSchemaTexts } from '../../protocol/xsd/validator.ts';
import { describeDifference, firstDifference } from './artifact-text.ts';
import { codeBlocksCaptioned, type SpecBlock, type SpecContents } from './extract.ts';
import { blockLocation, SPEC_ARTIFACT, type Finding } from './finding.ts';
import {
  SPEC_ARTIFACTS,
  XSD_AGENT_API_PATH,
  XSD_AGENT_TASK_PATH,
  type CommittedArtifacts,
  type SpecArtifact,
} from './spec-artifacts.ts';
import { readXml } from '../../protocol/xml/read-xml.ts';

export interface ArtifactRulesResult {
  readonly findings: Finding[];
  /**
   * XSDs for the example checks: the committed files when present and well-formed (they are
   * what the suites use), otherwise the spec's blocks; undefined when neither exists.
   */
  readonly xsdTexts: XsdSchemaTexts | undefined;
  /** Artifact path for each XSD actually used, so compile failures can be attributed. */
  readonly xsdSources: { readonly agentApi: string; readonly agentTask: string };
}

export function checkCommittedArtifacts(
  spec: SpecContents,
  committed: CommittedArtifacts,
): ArtifactRulesResult {
  const findings: Finding[] = [];
  const usable = new Map<string, string>();
  const specTexts = new Map<string, string>();
  for (const artifact of SPEC_ARTIFACTS) {
    const block = uniqueBlock(spec, artifact, findings);
    if (block !== undefined) specTexts.set(artifact.path, block.text);
    const text = committed.get(artifact.path);
    if (text === undefined) {
      findings.push({
        severity: 'fail',
        rule: 'artifact-match',
        artifact: artifact.path,
        subject: 'file',
        details: `missing; it must hold the content of the spec block "${artifact.caption}"`,
      });
      continue;
    }
    if (block !== undefined) findings.push(compare(artifact, block, text));
    const syntax = syntaxProblem(artifact, text);
    findings.push({
      severity: syntax === undefined ? 'ok' : 'fail',
      rule: 'artifact-syntax',
      artifact: artifact.path,
      subject: artifact.format,
      details: syntax ?? `well-formed ${artifact.format}`,
    });
    if (syntax === undefined) usable.set(artifact.path, text);
  }
  const pick = (path: string): { text: string; source: string } | undefined => {
    const own = usable.get(path);
    if (own !== undefined) return { text: own, source: path };
    // The XEP puts the XML declaration right after <![CDATA[; tolerate a newline there.
    const fromSpec = specTexts.get(path)?.trimStart();
    return fromSpec === undefined ? undefined : { text: fromSpec, source: `spec block for ${path}` };
  };
  const api = pick(XSD_AGENT_API_PATH);
  const task = pick(XSD_AGENT_TASK_PATH);
  return {
    findings,
    xsdTexts:
      api !== undefined && task !== undefined ? { agentApi: api.text, agentTask: task.text } : undefined,
    xsdSources: {
      agentApi: api?.source ?? XSD_AGENT_API_PATH,
      agentTask: task?.source ?? XSD_AGENT_TASK_PATH,
    },
  };
}

function uniqueBlock(spec: SpecContents, artifact: SpecArtifact, findings: Finding[]): SpecBlock | undefined {
  const blocks = codeBlocksCaptioned(spec, artifact.caption);
  const [block] = blocks;
  if (blocks.length === 1 && block !== undefined) {
    findings.push({
      severity: 'ok',
      rule: 'spec-block',
      artifact: SPEC_ARTIFACT,
      subject: artifact.caption,
      details: `found once`,
      ...blockLocation(block),
    });
    return block;
  }
  findings.push({
    severity: 'fail',
    rule: 'spec-block',
    artifact: SPEC_ARTIFACT,
    subject: artifact.caption,
    details:
      blocks.length === 0
        ? `no <code> block captioned "${artifact.caption}" (source of ${artifact.path})`
        : `${blocks.length} <code> blocks captioned "${artifact.caption}"; cannot tell which ${artifact.path} copies`,
  });
  return undefined;
}

function compare(artifact: SpecArtifact, block: SpecBlock, text: string): Finding {
  const difference = firstDifference(block.text, text);
  if (difference === undefined) {
    return {
      severity: 'ok',
      rule: 'artifact-match',
      artifact: artifact.path,
      subject: 'content',
      details: `matches spec block "${artifact.caption}"`,
      ...blockLocation(block),
    };
  }
  // Normalized line n sits at spec line block.line + (blank lines stripped before it) + n - 1.
  const leadingBlank = block.text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .findIndex((line) => line.trim() !== '');
  return {
    severity: 'fail',
    rule: 'artifact-match',
    artifact: artifact.path,
    subject: 'content',
    details: `differs from spec block "${artifact.caption}": ${describeDifference(difference)}`,
    ...blockLocation(block, Math.max(leadingBlank, 0) + difference.line),
  };
}

function syntaxProblem(artifact: SpecArtifact, text: string): string | undefined {
  try {
    if (artifact.format === 'json-schema') {
      if (!isJsonObject(parseStrictJson(text))) return 'a JSON Schema document must be a JSON object';
      return undefined;
    }
    const { root } = readXml(text);
    const expected = artifact.format === 'xsd' ? 'schema' : 'form_type';
    if (root.localName !== expected) return `root element is <${root.name}>, expected <${expected}>`;
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
