/**
 * The planted timing leak (issue 14 item 2): a test-only copy of the reference gateway whose
 * lookups of an object that exists but may not be answered spin for `delayMicros` before giving
 * the same answer a nonexistent object gets. Hidden endpoints and versions (every discovery and
 * metadata surface goes through the catalog's visibleEndpoint/visibleVersion), searches whose
 * criteria match an endpoint hidden from the requester (the variant matches the hidden ones too,
 * where the reference gateway filters the visible set before matching), and task IDs that name
 * another caller's, another endpoint's or an expired task.
 *
 * The delay is a busy wait on process.hrtime, not a timer: a timer cannot wait less than a
 * millisecond, and the point is to find how small a difference the timing cases can see
 * (bench/timing-calibration.ts; docs/timing.md). Built per delay as a source variant
 * (harness/sut/source-variant.ts), never a switch in the gateway.
 */
import { readPatchFile } from '../patch-file.ts';
import type { SourceVariantSpec } from '../source-variant.ts';

/** A source variant with the one-line `change` the verdict proofs print. */
export interface PlantedVariant extends SourceVariantSpec {
  readonly change: string;
}

export function plantedTimingLeak(delayMicros: number): PlantedVariant {
  if (!Number.isInteger(delayMicros) || delayMicros < 1)
    throw new RangeError('the delay is a positive number of µs');
  return {
    name: `planted-timing-leak-${String(delayMicros)}us`,
    change: `lookups of hidden endpoints and versions, searches matching a hidden endpoint, and lookups of task IDs the caller may not use spin ${String(delayMicros)} µs before the usual answer`,
    addFiles: {
      'reference-gateway/planted-delay.ts': `// Variant planted-timing-leak: a busy wait the reference gateway does not have.
const DELAY_NS = ${String(delayMicros)}n * 1000n;

export function plantedDelay(): void {
  const until = process.hrtime.bigint() + DELAY_NS;
  while (process.hrtime.bigint() < until) {
    // spin
  }
}
`,
    },
    patches: readPatchFile('harness/sut/test-support/patches/planted-timing-leak.patch'),
  };
}
