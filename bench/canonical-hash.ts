/**
 * bench/canonical-hash: strict I-JSON parse + RFC 8785 canonicalization + SHA-256 of a ~1 MB
 * manifest (parseStrictCanonical, one call), against plain JSON.parse + JSON.stringify +
 * SHA-256 of the same bytes, side by side in the same run. Issue 25's goal: at most 1.5× plain.
 * Two more lines for context, not for the goal: the strict path as two calls (parseStrictJson,
 * then canonicalDocument), and JSON.parse with canonicalDocument (no strict checks).
 */
import { createHash } from 'node:crypto';
import { canonicalDocument } from '../protocol/json/canonical.ts';
import type { JsonValue } from '../protocol/json/json-value.ts';
import { parseStrictCanonical } from '../protocol/json/strict-canonical.ts';
import { parseStrictJson } from '../protocol/json/strict-json.ts';
import { measureSideBySide, type Measurement } from './measure.ts';
import { syntheticManifest } from './synthetic-manifest.ts';

export const CANONICAL_HASH_GOAL = 1.5;

export interface CanonicalHashReport {
  readonly documentBytes: number;
  readonly strict: Measurement;
  readonly plain: Measurement;
  readonly strictTwoCalls: Measurement;
  readonly plainCanonical: Measurement;
  /** strict / plain medians: the goal's ratio. */
  readonly ratio: number;
  readonly goalMet: boolean;
}

export function benchCanonicalHash(targetBytes = 1_000_000): CanonicalHashReport {
  // Pretty-printed with shuffled-looking key order, as a registrant would send it.
  const source = Buffer.from(JSON.stringify(syntheticManifest(targetBytes), null, 2), 'utf8');
  const limits = { maxBytes: source.length };
  const [strict, plain, strictTwoCalls, plainCanonical] = measureSideBySide([
    { label: 'strict parse + canonicalize + sha-256', run: () => parseStrictCanonical(source, limits) },
    {
      label: 'JSON.parse + JSON.stringify + sha-256',
      run: () => {
        const text = JSON.stringify(JSON.parse(source.toString('utf8')));
        createHash('sha256').update(text).digest('base64');
      },
    },
    {
      label: 'parseStrictJson, then canonicalDocument',
      run: () => canonicalDocument(parseStrictJson(source, limits)),
    },
    {
      label: 'JSON.parse, then canonicalDocument',
      run: () => canonicalDocument(JSON.parse(source.toString('utf8')) as JsonValue),
    },
  ]);
  if (
    strict === undefined ||
    plain === undefined ||
    strictTwoCalls === undefined ||
    plainCanonical === undefined
  ) {
    throw new Error('a measurement is missing');
  }
  const ratio = strict.medianMs / plain.medianMs;
  return {
    documentBytes: source.length,
    strict,
    plain,
    strictTwoCalls,
    plainCanonical,
    ratio,
    goalMet: ratio <= CANONICAL_HASH_GOAL,
  };
}

export function printCanonicalHash(report: CanonicalHashReport): void {
  const line = (m: Measurement): string =>
    `  ${m.label.padEnd(40)} median ${m.medianMs.toFixed(2)} ms  (min ${m.minMs.toFixed(2)}, ${m.runs} runs)`;
  const versus = (m: Measurement): string => `${(m.medianMs / report.plain.medianMs).toFixed(2)}×`;
  process.stdout.write(
    [
      `canonical-hash: ${(report.documentBytes / 1e6).toFixed(2)} MB manifest, measured side by side`,
      line(report.strict),
      line(report.plain),
      `  strict/plain: ${report.ratio.toFixed(2)}× (goal ≤ ${CANONICAL_HASH_GOAL}): ${report.goalMet ? 'met' : 'NOT met'}`,
      `  for context, against the same plain line:`,
      `${line(report.strictTwoCalls)}  ${versus(report.strictTwoCalls)}`,
      `${line(report.plainCanonical)}  ${versus(report.plainCanonical)}`,
      `  strict/(JSON.parse, then canonicalDocument): ${(report.strict.medianMs / report.plainCanonical.medianMs).toFixed(2)}×`,
      '',
    ].join('\n'),
  );
}
