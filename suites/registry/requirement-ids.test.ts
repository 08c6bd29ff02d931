// The generated RequirementId union must list exactly the registry's IDs: a stale one would let
// a case cite a removed requirement, or refuse a newly registered one.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadRegistry } from './registry.ts';
import { REGENERATE_COMMAND, REQUIREMENT_IDS_PATH, requirementIdsModule } from './requirement-ids-cli.ts';

describe('requirement-ids.ts', () => {
  it('is up to date with requirements.json', () => {
    const ids = loadRegistry().requirements.map((entry) => entry.id);
    expect(
      readFileSync(REQUIREMENT_IDS_PATH, 'utf8'),
      `suites/registry/requirement-ids.ts is out of date with requirements.json: run \`${REGENERATE_COMMAND}\``,
    ).toBe(requirementIdsModule(ids));
  });
});
