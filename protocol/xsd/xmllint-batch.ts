/**
 * One xmllint-wasm run over many documents. Each run spawns a worker and compiles the wasm
 * module (tens of milliseconds); each extra document costs a fraction of a millisecond, so
 * callers batch. xmllint prints one verdict line per file ("NAME validates" / "NAME fails to
 * validate") and prefixes every diagnostic with "NAME:LINE:", which is how results are
 * attributed to documents; context lines without that prefix (source excerpts, carets) are
 * dropped.
 */
import { validateXML, memoryPages, type XMLValidationResult } from 'xmllint-wasm';
import type { SchemaBundle } from './schema-bundle.ts';
import type { XsdError, XsdResult, XsdSchemaId } from './xsd-result.ts';

export interface RoutedDocument {
  readonly xml: string;
  readonly schema: XsdSchemaId;
}

/** The schemas themselves are broken, or xmllint failed in a way no document explains. */
export class XmllintRunError extends Error {
  override readonly name = 'XmllintRunError';
}

// Generous: the wasm heap grows on demand, this only caps it. Batches are bounded by the caller.
const MAX_MEMORY_PAGES = 512 * memoryPages.MiB;

const fileName = (index: number): string => `doc-${index}.xml`;
const DIAGNOSTIC = /^doc-(\d+)\.xml:(\d+): (.*)$/;
const VERDICT = /^doc-(\d+)\.xml (validates|fails to validate)$/;
const WELL_FORMEDNESS = /\b(parser|namespace) error\b/;
const WARNING = /\bwarning\b/;

export async function validateBatch(
  documents: readonly RoutedDocument[],
  bundle: SchemaBundle,
): Promise<XsdResult[]> {
  if (documents.length === 0) return [];
  let stderr: string;
  try {
    const result: XMLValidationResult = await validateXML({
      xml: documents.map((document, index) => ({ fileName: fileName(index), contents: document.xml })),
      schema: [bundle.driver],
      preload: bundle.imports,
      maxMemoryPages: MAX_MEMORY_PAGES,
    });
    stderr = result.rawOutput;
  } catch (error) {
    // xmllint-wasm rejects on exit codes it does not map to "invalid" (e.g. some parse
    // failures); the diagnostics are still per file, so recover them when they explain it.
    stderr = rejectionOutput(error);
  }
  return attribute(stderr, documents);
}

function rejectionOutput(error: unknown): string {
  if (!(error instanceof Error) || typeof (error as Error & { code?: unknown }).code !== 'number') throw error;
  if (error.message.includes('failed to compile')) {
    throw new XmllintRunError(`the XML Schemas failed to compile:\n${excerpt(error.message)}`);
  }
  return error.message;
}

interface Tally {
  verdict: 'validates' | 'fails to validate' | undefined;
  notWellFormed: boolean;
  readonly errors: XsdError[];
}

function attribute(stderr: string, documents: readonly RoutedDocument[]): XsdResult[] {
  const tallies: Tally[] = documents.map(() => ({ verdict: undefined, notWellFormed: false, errors: [] }));
  for (const line of stderr.split('\n')) {
    const verdict = VERDICT.exec(line);
    if (verdict !== null) {
      const tally = tallies[Number(verdict[1])];
      if (tally !== undefined) tally.verdict = verdict[2] === 'validates' ? 'validates' : 'fails to validate';
      continue;
    }
    const diagnostic = DIAGNOSTIC.exec(line);
    if (diagnostic === null) continue;
    const tally = tallies[Number(diagnostic[1])];
    const message = diagnostic[3] ?? '';
    if (tally === undefined || (WARNING.test(message) && !message.includes('error'))) continue;
    if (WELL_FORMEDNESS.test(message)) tally.notWellFormed = true;
    tally.errors.push({ line: Number(diagnostic[2]), message });
  }
  return tallies.map((tally, index): XsdResult => {
    const document = documents[index];
    if (document === undefined) throw new XmllintRunError('document index out of range');
    if (tally.verdict === 'validates' && tally.errors.length === 0) return { valid: true, schema: document.schema };
    if (tally.notWellFormed) return { valid: false, failure: 'not-well-formed', errors: tally.errors };
    if (tally.verdict === 'fails to validate' || tally.errors.length > 0) {
      return { valid: false, failure: 'invalid', errors: tally.errors };
    }
    throw new XmllintRunError(`xmllint gave no verdict for ${fileName(index)}:\n${excerpt(stderr)}`);
  });
}

function excerpt(text: string): string {
  return text.length <= 2000 ? text : `${text.slice(0, 2000)}…`;
}
