import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import registrySchema from '../../fixtures/schemas/requirement-registry.schema.json' with { type: 'json' };
import { PROFILE_IDS } from '../../protocol/profiles.ts';
import { createConfigAjv } from '../../protocol/json/config-problems.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { REPO_ROOT, SPEC_PATH, sharedAvailable } from '../../protocol/test-support/shared-paths.ts';
import {
  committedRegistry,
  loadRegistry,
  REGISTRY_PATH,
  RegistryError,
  registryFromJson,
  requirement,
  UnknownRequirementError,
} from './registry.ts';
import { extractSentences } from './spec-sentences.ts';

const committedJson = parseStrictJson(readFileSync(REGISTRY_PATH)) as {
  requirements: Record<string, unknown>[];
};
const validate = createConfigAjv().compile(registrySchema);

const scratch = mkdtempSync(join(tmpdir(), 'agentconf-registry-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** A one-entry registry document; `entry` overrides members of the entry. */
function tinyRegistry(...entries: Record<string, unknown>[]): Record<string, unknown> {
  return {
    spec: { title: 'T', version: '0.0.5' },
    fingerprint: 'sha-256, 12 hex digits',
    fixtures: { 'access-policy': 'a world with hidden endpoints' },
    requirements: entries.map((entry) => ({
      id: 'list-agents.octet-order',
      anchor: 'list-agents',
      level: 'MUST',
      profiles: ['core-directory'],
      role: 'gateway',
      summary: 'Directory items come in byte order of their JIDs.',
      testability: 'black-box',
      sources: [{ anchor: 'list-agents', sentence: '0123456789ab' }],
      ...entry,
    })),
  };
}

function violationsOf(document: Record<string, unknown>): string[] {
  try {
    registryFromJson(document as JsonValue, 'test');
  } catch (error) {
    if (error instanceof RegistryError) return error.violations.map((v) => `${v.path}: ${v.message}`);
    throw error;
  }
  return [];
}

describe('the committed registry', () => {
  it('validates against fixtures/schemas/requirement-registry.schema.json', () => {
    const valid = validate(committedJson);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('loads, with unique IDs that start with their anchor', () => {
    const registry = committedRegistry();
    expect(registry.requirements.length).toBeGreaterThan(200);
    const ids = registry.requirements.map((entry) => entry.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const entry of registry.requirements) expect(entry.id.startsWith(`${entry.anchor}.`)).toBe(true);
  });

  it('uses the profile IDs of protocol/profiles.ts', () => {
    const items = registrySchema.$defs.requirement.properties.profiles.items.enum;
    expect(items).toEqual([...PROFILE_IDS]);
  });

  it('defers nothing: Human Messaging is testable, and what is not says why (issue 16)', () => {
    const messaging = committedRegistry().requirements.filter((entry) =>
      entry.profiles.includes('human-messaging'),
    );
    expect(messaging.length).toBeGreaterThan(10);
    expect(
      messaging.filter((entry) => entry.level === 'MUST' && entry.testability.kind !== 'not-testable').length,
    ).toBeGreaterThan(5);
    for (const entry of committedRegistry().requirements) {
      if (entry.testability.kind !== 'not-testable') continue;
      expect(entry.testability.reason, entry.id).not.toBe('');
      expect(entry.testability.reason, entry.id).not.toMatch(/deferred/i);
    }
  });

  it('names only interpretations that docs/interpretations.md defines', () => {
    const doc = readFileSync(resolve(REPO_ROOT, 'docs', 'interpretations.md'), 'utf8');
    const defined = new Set([...doc.matchAll(/^## (interp-\d{2})\b/gm)].map((match) => match[1]));
    expect([...defined].sort()).toEqual(
      Array.from({ length: 46 }, (_, i) => `interp-${String(i + 1).padStart(2, '0')}`),
    );
    const cited = new Set(committedRegistry().requirements.flatMap((entry) => entry.interpretations));
    for (const id of cited) expect(defined.has(id), id).toBe(true);
  });
});

describe('requirement lookup', () => {
  it('returns a registered requirement', () => {
    expect(requirement('list-agents.octet-order')).toMatchObject({
      anchor: 'list-agents',
      level: 'MUST',
      profiles: ['core-directory'],
      testability: { kind: 'black-box' },
    });
  });

  it('throws for an unknown ID, suggesting the closest one', () => {
    expect(() => requirement('list-agents.octet-ordr')).toThrow(UnknownRequirementError);
    expect(() => requirement('list-agents.octet-ordr')).toThrow('did you mean "list-agents.octet-order"');
    expect(() => requirement('nothing.like-it-at-all')).toThrow(
      /^unknown requirement ID "nothing.like-it-at-all": /,
    );
  });

  it('selects the requirements of a claim, including the profiles it builds on', () => {
    const registry = committedRegistry();
    const interactive = new Set(registry.forClaim(['interactive-tasks']).map((entry) => entry.id));
    expect(interactive.has('list-agents.octet-order')).toBe(true); // core-directory
    expect(interactive.has('interactive-input.identical-replay')).toBe(true);
    expect(interactive.has('search.legacy-nick')).toBe(false);
    expect(interactive.has('registration-flow.admin-operations')).toBe(false);
    const directory = new Set(registry.forClaim(['core-directory']).map((entry) => entry.id));
    expect(directory.has('invocation.replay-same-task')).toBe(false);
  });
});

describe('registry validation', () => {
  it('accepts a minimal document', () => {
    expect(violationsOf(tinyRegistry({}))).toEqual([]);
  });

  it('requires fixtures for needs-fixture and a reason for not-testable, and nothing else', () => {
    expect(violationsOf(tinyRegistry({ testability: 'needs-fixture' }))).toEqual([
      '/requirements/0/fixtures: "fixtures" is required: a needs-fixture requirement names its fixtures',
    ]);
    expect(violationsOf(tinyRegistry({ testability: 'not-testable' }))).toEqual([
      '/requirements/0/reason: "reason" is required: a not-testable requirement says why',
    ]);
    expect(violationsOf(tinyRegistry({ reason: 'because it cannot be seen' }))).not.toEqual([]);
  });

  it('refuses bad IDs, levels, profiles, roles and fingerprints', () => {
    expect(
      violationsOf(
        tinyRegistry({
          id: 'List_Agents',
          level: 'SHALL',
          profiles: ['core'],
          role: 'client',
          sources: [{ anchor: 'list-agents', sentence: 'XYZ' }],
          interpretations: ['interp-1'],
        }),
      ),
    ).toEqual([
      '/requirements/0/id: must match ^[a-z0-9]+(?:-[a-z0-9]+)*\\.[a-z0-9]+(?:-[a-z0-9]+)*$',
      '/requirements/0/level: "SHALL" is not one of "MUST", "SHOULD", "MAY"',
      '/requirements/0/profiles/0: "core" is not one of "core-directory", "jabber-search", "tool-discovery", "task-execution", "interactive-tasks", "self-registration", "admin-provisioning", "human-messaging"',
      '/requirements/0/role: "client" is not one of "gateway", "caller", "both", "server"',
      '/requirements/0/sources/0/sentence: must match ^[0-9a-f]{12}$',
      '/requirements/0/interpretations/0: must match ^interp-[0-9]{2}$',
    ]);
  });

  it('refuses duplicate IDs, IDs outside their anchor, repeated sources and undeclared fixtures', () => {
    const source = { anchor: 'list-agents', sentence: '0123456789ab' };
    expect(
      violationsOf(
        tinyRegistry(
          {},
          { summary: 'The same ID a second time, which must be refused.' },
          { id: 'search.octet-order', sources: [source, source] },
          { id: 'list-agents.visible', testability: 'needs-fixture', fixtures: ['hidden-world'] },
        ),
      ),
    ).toEqual([
      '/requirements/1/id: "list-agents.octet-order" is also the ID of /requirements/0',
      '/requirements/2/id: "search.octet-order" must start with its anchor "list-agents."',
      '/requirements/2/sources/1: cites list-agents#0123456789ab twice',
      '/requirements/3/fixtures/0: fixture "hidden-world" is not declared in /fixtures',
    ]);
  });

  it('reports JSON syntax errors and duplicate members with their position', () => {
    const path = join(scratch, 'broken.json');
    writeFileSync(path, '{"spec": {}, "spec": {}}');
    expect(() => loadRegistry(path)).toThrow(RegistryError);
    expect(() => loadRegistry(path)).toThrow(/line 1, column/);
  });
});

/** Shared word runs of this length between a summary and its cited sentences mean copied prose. */
const COPIED_RUN = 7;

function wordRuns(text: string): Set<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}_:#.@/-]+/gu) ?? [];
  const runs = new Set<string>();
  for (let i = 0; i + COPIED_RUN <= words.length; i++) runs.add(words.slice(i, i + COPIED_RUN).join(' '));
  return runs;
}

describe.skipIf(!sharedAvailable(SPEC_PATH, 'registry summaries against the spec text'))(
  'summaries against the spec',
  () => {
    it(`never repeat ${COPIED_RUN} consecutive words of a cited sentence`, () => {
      const sentences = extractSentences(readFileSync(SPEC_PATH, 'utf8')).sentences;
      const text = new Map(
        sentences.map((sentence) => [`${sentence.anchor}#${sentence.fingerprint}`, sentence.text]),
      );
      const copied: string[] = [];
      for (const entry of committedRegistry().requirements) {
        const summaryRuns = wordRuns(entry.summary);
        for (const source of entry.sources) {
          const cited = text.get(`${source.anchor}#${source.sentence}`) ?? '';
          for (const run of wordRuns(cited)) if (summaryRuns.has(run)) copied.push(`${entry.id}: "${run}"`);
        }
      }
      expect(copied).toEqual([]);
    });
  },
);
