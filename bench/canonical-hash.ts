/**
 * bench/canonical-hash: strict I-JSON parse + RFC 8785 canonicalization + SHA-256 of a ~1 MB
 * manifest, against plain JSON.parse + JSON.stringify of the same bytes in the same run.
 */
import { createHash } from 'node:crypto';
import { canonicalDocument } from '../protocol/json/canonical.ts';
import { parseStrictJson } from '../protocol/json/strict-json.ts';
import { measure, type Measurement } from './measure.ts';
import { syntheticManifest } from './synthetic-manifest.ts';

export interface CanonicalHashReport {
  readonly documentBytes: number;
  readonly strict: Measurement;
  readonly plain: Measurement;
  readonly ratio: number;
}

export function benchCanonicalHash(targetBytes = 1_000_000): CanonicalHashReport {
  // Pretty-printed with shuffled-looking key order, as a registrant would send it.
  const source = Buffer.from(JSON.stringify(syntheticManifest(targetBytes), null, 2), 'utf8');
  const strict = measure('strict parse + canonicalize + sha-256', () => {
    canonicalDocument(parseStrictJson(source, { maxBytes: source.length }));
  });
  const plain = measure('JSON.parse + JSON.stringify + sha-256', () => {
    const text = JSON.stringify(JSON.parse(source.toString('utf8')));
    createHash('sha256').update(text).digest('base64');
  });
  return { documentBytes: source.length, strict, plain, ratio: strict.medianMs / plain.medianMs };
}

export function printCanonicalHash(report: CanonicalHashReport): void {
  const line = (m: Measurement): string =>
    `  ${m.label.padEnd(40)} median ${m.medianMs.toFixed(2)} ms  (min ${m.minMs.toFixed(2)}, ${m.runs} runs)`;
  process.stdout.write(
    [
      `canonical-hash: ${(report.documentBytes / 1e6).toFixed(2)} MB manifest`,
      line(report.strict),
      line(report.plain),
      `  ratio strict/plain: ${report.ratio.toFixed(2)}×`,
      '',
    ].join('\n'),
  );
}
