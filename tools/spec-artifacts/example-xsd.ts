/**
 * Rule (b), schema half: every direct payload in the examples validates against our XSDs,
 * all in one xmllint run.
 */
import { XmllintRunError } from '../../protocol/xsd/xmllint-batch.ts';
import { XsdValidator, type XsdResult, type XsdSchemaTexts } from '../../protocol/xsd/validator.ts';
import type { Payload } from './example-documents.ts';
import { blockLocation, exampleArtifact, type Finding } from './finding.ts';

export async function checkPayloadSchemas(
  payloads: readonly Payload[],
  xsdTexts: XsdSchemaTexts,
  xsdSources: { readonly agentApi: string; readonly agentTask: string },
): Promise<Finding[]> {
  let results: XsdResult[];
  try {
    results = await new XsdValidator({ schemas: xsdTexts }).validateAll(
      payloads.map((payload) => payload.source),
    );
  } catch (error) {
    if (!(error instanceof XmllintRunError)) throw error;
    return [
      {
        severity: 'fail',
        rule: 'artifact-syntax',
        artifact: `${xsdSources.agentApi} + ${xsdSources.agentTask}`,
        subject: 'xsd',
        details: error.message,
      },
    ];
  }
  return payloads.map((payload, index): Finding => {
    const result = results[index];
    const base = {
      rule: 'example-xsd',
      artifact: exampleArtifact(payload.example.caption),
      subject: `<${payload.element.localName}/> at example line ${payload.line}`,
    } as const;
    if (result?.valid === true) {
      return {
        ...base,
        severity: 'ok',
        details: `valid against ${result.schema}.xsd`,
        ...blockLocation(payload.example, payload.line),
      };
    }
    const errors = result?.errors ?? [{ line: null, message: 'no result' }];
    const firstLine = errors[0]?.line ?? 1;
    return {
      ...base,
      severity: 'fail',
      details: `${result?.failure ?? 'invalid'}: ${errors.map((error) => error.message).join(' | ')}`,
      ...blockLocation(payload.example, payload.line + firstLine - 1),
    };
  });
}
