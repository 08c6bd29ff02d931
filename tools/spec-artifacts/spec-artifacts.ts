/**
 * The normative artifacts we commit, each the verbatim content of one captioned spec <code>
 * block: the XSDs (#schema), the manifest and event JSON Schemas (#manifest,
 * #event-json-schemas) and the XEP-0068 FORM_TYPE registrations (#registrar-formtypes).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export type ArtifactFormat = 'xsd' | 'json-schema' | 'form-registration';

export interface SpecArtifact {
  /** Path relative to the repository root. */
  readonly path: string;
  readonly caption: string;
  readonly format: ArtifactFormat;
}

export const XSD_AGENT_API_PATH = 'xsd/agent-api.xsd';
export const XSD_AGENT_TASK_PATH = 'xsd/agent-task.xsd';

export const SPEC_ARTIFACTS: readonly SpecArtifact[] = [
  { path: XSD_AGENT_API_PATH, caption: 'Schema for urn:xmpp:agent-api:0', format: 'xsd' },
  { path: XSD_AGENT_TASK_PATH, caption: 'Schema for urn:xmpp:agent-task:0', format: 'xsd' },
  {
    path: 'fixtures/schemas/manifest.schema.json',
    caption: 'Normative agent manifest JSON Schema',
    format: 'json-schema',
  },
  {
    path: 'fixtures/schemas/event.schema.json',
    caption: 'Normative task event payload JSON Schema',
    format: 'json-schema',
  },
  {
    path: 'fixtures/forms/endpoint-info.form.xml',
    caption: 'Endpoint information form registration',
    format: 'form-registration',
  },
  {
    path: 'fixtures/forms/tool-info.form.xml',
    caption: 'Tool information form registration',
    format: 'form-registration',
  },
];

/** Artifact path → committed text. A path without an entry is absent from the tree. */
export type CommittedArtifacts = ReadonlyMap<string, string>;

/** Reads whichever artifacts exist under a repository root. */
export function readCommittedArtifacts(repoRoot: string): Map<string, string> {
  const committed = new Map<string, string>();
  for (const artifact of SPEC_ARTIFACTS) {
    try {
      committed.set(artifact.path, readFileSync(resolve(repoRoot, artifact.path), 'utf8'));
    } catch (error) {
      if (!(error instanceof Error && 'code' in error && error.code === 'ENOENT')) throw error;
    }
  }
  return committed;
}
