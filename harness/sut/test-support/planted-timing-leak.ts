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
import type { SourceVariantSpec } from '../source-variant.ts';

/** A source variant with the one-line `change` the verdict proofs print. */
export interface PlantedVariant extends SourceVariantSpec {
  readonly change: string;
}

export function plantedTimingLeak(delayMicros: number): PlantedVariant {
  if (!Number.isInteger(delayMicros) || delayMicros < 1)
    throw new RangeError('the delay is a positive number of µs');
  const call = 'plantedDelay();';
  const importLine = (path: string): string => `import { plantedDelay } from '${path}';\n`;
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
    patches: [
      {
        file: 'reference-gateway/catalog/store-catalog.ts',
        find: "import { buildManifestRecord } from './manifest-record.ts';\n",
        replace: `import { buildManifestRecord } from './manifest-record.ts';\n${importLine('../planted-delay.ts')}`,
      },
      {
        file: 'reference-gateway/catalog/store-catalog.ts',
        find: `    const visible = endpoint !== undefined && this.#policy().canSee(requester, endpoint);
    if (stored === undefined || !visible) return undefined;
    return { jid: stored.jid, active: this.#record(stored) };`,
        replace: `    const visible = endpoint !== undefined && this.#policy().canSee(requester, endpoint);
    if (stored !== undefined && !visible) ${call}
    if (stored === undefined || !visible) return undefined;
    return { jid: stored.jid, active: this.#record(stored) };`,
      },
      {
        file: 'reference-gateway/catalog/store-catalog.ts',
        find: `    const visible = endpoint !== undefined && this.#policy().canSee(requester, endpoint);
    if (stored === undefined || !visible) return undefined;
    return this.#record(stored);`,
        replace: `    const visible = endpoint !== undefined && this.#policy().canSee(requester, endpoint);
    if (stored !== undefined && !visible) ${call}
    if (stored === undefined || !visible) return undefined;
    return this.#record(stored);`,
      },
      {
        file: 'reference-gateway/tasks/task-access.ts',
        find: "import type { EngineContext } from './engine-context.ts';\n",
        replace: `import type { EngineContext } from './engine-context.ts';\n${importLine('../planted-delay.ts')}`,
      },
      {
        file: 'reference-gateway/tasks/task-access.ts',
        find: '  return owner && addressed && retained ? task : undefined;',
        replace: `  if (task !== undefined && !(owner && addressed && retained)) ${call}
  return owner && addressed && retained ? task : undefined;`,
      },
      {
        file: 'reference-gateway/catalog/catalog.ts',
        find: '  visibleEndpoints(requester: Requester): readonly VisibleEndpoint[];',
        replace:
          '  visibleEndpoints(requester: Requester, hiddenMatch?: (endpoint: VisibleEndpoint) => boolean): readonly VisibleEndpoint[];',
      },
      {
        file: 'reference-gateway/catalog/store-catalog.ts',
        find: `  visibleEndpoints(requester: Requester): readonly VisibleEndpoint[] {
    const policy = this.#policy();`,
        replace: `  visibleEndpoints(requester: Requester, hiddenMatch?: (endpoint: VisibleEndpoint) => boolean): readonly VisibleEndpoint[] {
    const policy = this.#policy();
    if (hiddenMatch !== undefined) {
      for (const stored of this.#store.registrations.activeVersions()) {
        if (!policy.canSee(requester, stored.jid) && hiddenMatch({ jid: stored.jid, active: this.#record(stored) })) ${call}
      }
    }`,
      },
      {
        file: 'reference-gateway/discovery/search.ts',
        find: '  const matches = byJidOctets(catalog.visibleEndpoints(requester)).filter(searchMatcher(criteria));',
        replace:
          '  const matches = byJidOctets(catalog.visibleEndpoints(requester, searchMatcher(criteria))).filter(searchMatcher(criteria));',
      },
    ],
  };
}
