/**
 * How a conformance case is declared: data next to the requirement it checks (requirement
 * IDs, profiles, level, a one-line statement in our words) and a `run` that drives the SUT
 * through the context and throws a verdict (verdicts.ts) unless the SUT conforms.
 */
import type { ProfileId } from '../../protocol/profiles.ts';
import type { RequirementId } from '../registry/requirement-ids.ts';
import type { CaseContext } from './context.ts';
import type { Level } from './outcome.ts';

export interface ConformanceCase {
  /** Stable, unique: `<section anchor>.<short-name>`; what --grep, baselines and reports use. */
  readonly id: string;
  /** The spec section anchor this case belongs to (one suite file per section). */
  readonly section: string;
  /** Registry IDs of the requirements checked; the first one is the case's primary requirement. */
  readonly requirements: readonly [RequirementId, ...RequirementId[]];
  /** Profiles whose verdict this case counts toward. */
  readonly profiles: readonly [ProfileId, ...ProfileId[]];
  readonly level: Level;
  /** What the SUT must do, in our words. */
  readonly statement: string;
  /**
   * Disco features the case exercises. When the SUT does not advertise one, the case is
   * inapplicable, unless a claimed profile makes the feature mandatory.
   */
  readonly features?: readonly string[];
  /** IDs of docs/interpretations.md entries the verdict depends on. */
  readonly interpretations?: readonly string[];
  /** Per-case time limit; the runner's default applies when absent. */
  readonly timeoutMs?: number;
  readonly run: (context: CaseContext) => Promise<void>;
}

/** The cases of one spec section, in the order they run. */
export interface Suite {
  readonly section: string;
  readonly title: string;
  readonly cases: readonly ConformanceCase[];
}

export type CaseDeclaration = Omit<ConformanceCase, 'section' | 'id'> & { readonly name: string };

/**
 * Declares the cases of one section; IDs become `<section>.<name>`. Duplicate names are a
 * programming error caught at load time, not at report time.
 */
export function defineSuite(section: string, title: string, declarations: readonly CaseDeclaration[]): Suite {
  const seen = new Set<string>();
  const cases = declarations.map(({ name, ...declaration }) => {
    if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(name)) {
      throw new Error(`case name ${JSON.stringify(name)} in #${section} is not kebab-case`);
    }
    if (seen.has(name)) throw new Error(`case name ${name} is declared twice in #${section}`);
    seen.add(name);
    return { ...declaration, id: `${section}.${name}`, section };
  });
  return { section, title, cases };
}
