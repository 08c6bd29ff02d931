/**
 * The requirement registry (requirements.json): every normative statement of the spec with a
 * stable ID. Suites name the requirements a case checks through `requirement(id)`, which throws
 * for an ID the registry does not hold, so a typo or a requirement dropped from the registry
 * fails when the suite module loads instead of silently checking nothing.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  closestName,
  configValidator,
  formatViolation,
  schemaViolations,
  type ConfigViolation,
} from '../../protocol/json/config-problems.ts';
import { JsonRejection } from '../../protocol/json/json-rejection.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { withImpliedProfiles, type ProfileId } from '../../protocol/profiles.ts';
import registrySchema from '../../fixtures/schemas/requirement-registry.schema.json' with { type: 'json' };
import type { AssessmentId } from './assessments.ts';
import type { RequirementLevel } from './spec-sentences.ts';

export type { RequirementLevel };
export type RequirementRole = 'gateway' | 'caller' | 'both' | 'server';

export type Testability =
  | { readonly kind: 'black-box' }
  | { readonly kind: 'needs-fixture'; readonly fixtures: readonly string[] }
  | { readonly kind: 'not-testable'; readonly reason: string };

/** A spec sentence by section anchor and fingerprint (spec-sentences.ts). */
export interface SentenceLocator {
  readonly anchor: string;
  readonly sentence: string;
}

export interface Requirement {
  readonly id: string;
  readonly anchor: string;
  readonly level: RequirementLevel;
  readonly profiles: readonly ProfileId[];
  readonly role: RequirementRole;
  readonly summary: string;
  readonly testability: Testability;
  readonly sources: readonly SentenceLocator[];
  /** IDs of docs/interpretations.md entries (interp-NN); empty when none applies. */
  readonly interpretations: readonly string[];
  /**
   * The assessments (not spec profiles) caller cases decide it for; empty for a requirement the
   * gateway cases decide. One with assessments counts toward no profile's verdict.
   */
  readonly assessments: readonly AssessmentId[];
  /**
   * Cites sentences of a section the spec marks informative (#mcp-mapping): no profile, an
   * assessment only.
   */
  readonly informativeSource: boolean;
}

export interface Registry {
  /** Where the registry was read from. */
  readonly source: string;
  readonly specVersion: string;
  /** Fixture ID → what it provides. */
  readonly fixtures: ReadonlyMap<string, string>;
  readonly requirements: readonly Requirement[];
  /** The requirement with this ID; throws UnknownRequirementError otherwise. */
  requirement(id: string): Requirement;
  /** The requirements a claim of these profiles covers, including the profiles they build on. */
  forClaim(claimed: readonly ProfileId[]): Requirement[];
}

export class UnknownRequirementError extends Error {
  override readonly name = 'UnknownRequirementError';
  constructor(
    readonly id: string,
    suggestion: string | undefined,
  ) {
    super(
      `unknown requirement ID "${id}"${suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`}: ` +
        'every case must cite an entry of suites/registry/requirements.json',
    );
  }
}

export class RegistryError extends Error {
  override readonly name = 'RegistryError';
  constructor(
    readonly source: string,
    readonly violations: readonly ConfigViolation[],
  ) {
    super(
      [
        `${source}: ${violations.length} problem(s) in the requirement registry`,
        ...violations.map(formatViolation),
      ].join('\n  '),
    );
  }
}

export const REGISTRY_PATH = resolve(import.meta.dirname, 'requirements.json');

const validateRegistry = configValidator(registrySchema);

/** The shape the schema guarantees. */
interface RawRequirement {
  readonly id: string;
  readonly anchor: string;
  readonly level: RequirementLevel;
  readonly profiles: ProfileId[];
  readonly role: RequirementRole;
  readonly summary: string;
  readonly testability: Testability['kind'];
  readonly fixtures?: string[];
  readonly reason?: string;
  readonly sources: SentenceLocator[];
  readonly interpretations?: string[];
  readonly assessments?: AssessmentId[];
  readonly informativeSource?: true;
}

interface RawRegistry {
  readonly spec: { readonly version: string };
  readonly fixtures: Record<string, string>;
  readonly requirements: RawRequirement[];
}

/** Reads, validates and indexes a registry file; throws RegistryError listing every problem. */
export function loadRegistry(path: string = REGISTRY_PATH): Registry {
  let value: JsonValue;
  try {
    value = parseStrictJson(readFileSync(path));
  } catch (error) {
    if (!(error instanceof JsonRejection)) throw error;
    throw new RegistryError(path, [
      { path: '', message: error.message, line: error.line, column: error.column },
    ]);
  }
  return registryFromJson(value, path);
}

/** Validates and indexes an already parsed registry document. */
export function registryFromJson(value: JsonValue, source: string): Registry {
  const violations = schemaViolations(validateRegistry, value);
  if (violations.length > 0) throw new RegistryError(source, violations);
  const raw = value as unknown as RawRegistry;
  const consistency = consistencyViolations(raw);
  if (consistency.length > 0) throw new RegistryError(source, consistency);

  const requirements = raw.requirements.map(toRequirement);
  const byId = new Map(requirements.map((entry) => [entry.id, entry]));
  const ids = [...byId.keys()];
  return {
    source,
    specVersion: raw.spec.version,
    fixtures: new Map(Object.entries(raw.fixtures)),
    requirements,
    requirement(id: string): Requirement {
      const found = byId.get(id);
      if (found === undefined) throw new UnknownRequirementError(id, closestName(id, ids));
      return found;
    },
    forClaim(claimed: readonly ProfileId[]): Requirement[] {
      const covered = new Set(withImpliedProfiles(claimed));
      return requirements.filter((entry) => entry.profiles.some((profile) => covered.has(profile)));
    },
  };
}

/** What the schema cannot say: unique IDs and sources, ID prefix = anchor, declared fixtures only. */
function consistencyViolations(raw: RawRegistry): ConfigViolation[] {
  const violations: ConfigViolation[] = [];
  const seen = new Map<string, number>();
  raw.requirements.forEach((entry, index) => {
    const at = `/requirements/${index}`;
    const earlier = seen.get(entry.id);
    if (earlier !== undefined) {
      violations.push({
        path: `${at}/id`,
        message: `"${entry.id}" is also the ID of /requirements/${earlier}`,
      });
    }
    seen.set(entry.id, index);
    if (!entry.id.startsWith(`${entry.anchor}.`)) {
      violations.push({
        path: `${at}/id`,
        message: `"${entry.id}" must start with its anchor "${entry.anchor}."`,
      });
    }
    // Not a schema uniqueItems: strict-json objects have no prototype, which ajv's deep-equal needs.
    const cited = entry.sources.map((source) => `${source.anchor}#${source.sentence}`);
    cited.forEach((locator, position) => {
      if (cited.indexOf(locator) !== position) {
        violations.push({ path: `${at}/sources/${position}`, message: `cites ${locator} twice` });
      }
    });
    (entry.fixtures ?? []).forEach((fixture, position) => {
      if (!Object.hasOwn(raw.fixtures, fixture)) {
        violations.push({
          path: `${at}/fixtures/${position}`,
          message: `fixture "${fixture}" is not declared in /fixtures`,
        });
      }
    });
  });
  return violations;
}

function toRequirement(raw: RawRequirement): Requirement {
  const testability: Testability =
    raw.testability === 'needs-fixture'
      ? { kind: 'needs-fixture', fixtures: raw.fixtures ?? [] }
      : raw.testability === 'not-testable'
        ? { kind: 'not-testable', reason: raw.reason ?? '' }
        : { kind: 'black-box' };
  return {
    id: raw.id,
    anchor: raw.anchor,
    level: raw.level,
    profiles: raw.profiles,
    role: raw.role,
    summary: raw.summary,
    testability,
    sources: raw.sources,
    interpretations: raw.interpretations ?? [],
    assessments: raw.assessments ?? [],
    informativeSource: raw.informativeSource === true,
  };
}

let committed: Registry | undefined;

/** The committed registry, loaded once. */
export function committedRegistry(): Registry {
  committed ??= loadRegistry();
  return committed;
}

/**
 * The committed requirement with this ID, for suite cases: throws UnknownRequirementError (with
 * the closest known ID) when the registry has no such entry.
 */
export function requirement(id: string): Requirement {
  return committedRegistry().requirement(id);
}
