/**
 * `npm run registry:ids`: writes requirement-ids.ts, the `RequirementId` union of every ID in
 * requirements.json, so that a case citing an ID the registry does not hold fails to compile.
 * requirement-ids.test.ts fails while the written module and the registry disagree.
 * Run directly (bin/run-ts.js) it is the command; imported (tests) it only exports the builder.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadRegistry } from './registry.ts';

export const REQUIREMENT_IDS_PATH = resolve(import.meta.dirname, 'requirement-ids.ts');
export const REGENERATE_COMMAND = 'npm run registry:ids';

/** The source of requirement-ids.ts for these registry IDs, formatted as prettier would. */
export function requirementIdsModule(ids: readonly string[]): string {
  return [
    `// Generated from suites/registry/requirements.json by \`${REGENERATE_COMMAND}\`: do not edit by hand.`,
    '',
    '/** Every requirement ID of the registry, in code point order. */',
    'export const REQUIREMENT_IDS = [',
    ...ids.toSorted().map((id) => `  '${id}',`),
    '] as const;',
    '',
    '/** An ID requirements.json holds: a case citing any other string does not compile. */',
    'export type RequirementId = (typeof REQUIREMENT_IDS)[number];',
    '',
  ].join('\n');
}

const invokedPath = process.argv[1];
if (invokedPath !== undefined && import.meta.url === pathToFileURL(invokedPath).href) {
  const ids = loadRegistry().requirements.map((entry) => entry.id);
  writeFileSync(REQUIREMENT_IDS_PATH, requirementIdsModule(ids));
  process.stdout.write(`wrote ${String(ids.length)} requirement IDs to ${REQUIREMENT_IDS_PATH}\n`);
}
