/**
 * The normative XSDs (#schema-agent-api, #schema-agent-task) as one xmllint schema set.
 * xmllint accepts a single --schema, so a namespace-less driver schema imports both; the
 * namespaces are disjoint and neither schema references the other, so validating against
 * the union is the same as validating each root against its own schema.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { XMLFileInfo } from 'xmllint-wasm';
import { NS_AGENT_API, NS_AGENT_TASK } from '../namespaces.ts';

export interface XsdSchemaTexts {
  readonly agentApi: string;
  readonly agentTask: string;
}

export interface SchemaBundle {
  readonly driver: XMLFileInfo;
  readonly imports: readonly XMLFileInfo[];
}

/** The committed copies (checked against the spec by `npm run artifacts:check`). */
export const COMMITTED_XSD_DIR = resolve(import.meta.dirname, '..', '..', 'xsd');
export const XSD_FILE_NAMES = { agentApi: 'agent-api.xsd', agentTask: 'agent-task.xsd' } as const;

let committed: XsdSchemaTexts | undefined;

/** Reads the committed XSDs once per process. */
export function committedSchemaTexts(): XsdSchemaTexts {
  committed ??= {
    agentApi: readFileSync(resolve(COMMITTED_XSD_DIR, XSD_FILE_NAMES.agentApi), 'utf8'),
    agentTask: readFileSync(resolve(COMMITTED_XSD_DIR, XSD_FILE_NAMES.agentTask), 'utf8'),
  };
  return committed;
}

const DRIVER_FILE_NAME = 'agentconf-driver.xsd';

export function bundleSchemas(texts: XsdSchemaTexts): SchemaBundle {
  const driver = [
    `<?xml version='1.0' encoding='UTF-8'?>`,
    `<xs:schema xmlns:xs='http://www.w3.org/2001/XMLSchema'>`,
    `  <xs:import namespace='${NS_AGENT_API}' schemaLocation='${XSD_FILE_NAMES.agentApi}'/>`,
    `  <xs:import namespace='${NS_AGENT_TASK}' schemaLocation='${XSD_FILE_NAMES.agentTask}'/>`,
    `</xs:schema>`,
    '',
  ].join('\n');
  return {
    driver: { fileName: DRIVER_FILE_NAME, contents: driver },
    imports: [
      { fileName: XSD_FILE_NAMES.agentApi, contents: texts.agentApi },
      { fileName: XSD_FILE_NAMES.agentTask, contents: texts.agentTask },
    ],
  };
}
