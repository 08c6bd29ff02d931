/** Validates a junit.xml against the committed xsd/third-party/junit.xsd with xmllint-wasm. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateXML } from 'xmllint-wasm';
import { REPO_ROOT } from '../../../harness/repo-root.ts';

const JUNIT_XSD = readFileSync(join(REPO_ROOT, 'xsd', 'third-party', 'junit.xsd'), 'utf8');

/** xmllint's verdict, with its output for the assertion message. */
export async function validateJunit(xml: string): Promise<{ valid: boolean; output: string }> {
  try {
    const result = await validateXML({
      xml: [{ fileName: 'junit.xml', contents: xml }],
      schema: [{ fileName: 'junit.xsd', contents: JUNIT_XSD }],
    });
    return { valid: result.valid, output: result.rawOutput };
  } catch (error) {
    // xmllint-wasm rejects on some parse failures: that is an invalid document too.
    return { valid: false, output: String(error) };
  }
}
