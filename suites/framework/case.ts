/**
 * How a conformance case is declared: data next to the requirement it checks (requirement
 * IDs, profiles, level, a one-line statement in our words) and a `run` that drives the SUT
 * through the context and throws a verdict (verdicts.ts) unless the SUT conforms.
 */
import type { ProfileId } from '../../protocol/profiles.ts';
import { systemTool, type SystemToolId } from '../../harness/system-tools.ts';
import type { RequirementId } from '../registry/requirement-ids.ts';
import type { CaseContext } from './context.ts';
import type { Scenario } from './budget.ts';
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
  /** The adversarial scenario family the case belongs to (reports group and count them). */
  readonly scenario?: Scenario;
  /** Per-case time limit; the runner's default applies when absent. */
  readonly timeoutMs?: number;
  /**
   * System tools (harness/system-tools.ts) the case needs: the run installs them before the
   * gateway starts, and only a case that names one gets the capability it backs (libfiu: the
   * storage faults); without the tool the case cannot tell.
   */
  readonly needs?: readonly SystemToolId[];
  /**
   * The case may run beside other cases (`agentconf run --jobs N`): it changes nothing another
   * case reads on the gateway or the servers, and nothing another case does alongside it can
   * change its verdict. Only a permission: what the case otherwise declares (its scenario,
   * needs, profiles) can still make it run alone (runner/case-concurrency.ts). Without it the
   * case runs alone, for a case nobody said was safe beside others is not assumed to be.
   */
  readonly alongside?: boolean;
  readonly run: (context: CaseContext) => Promise<void>;
}

/** The cases of one spec section, in the order they run. */
export interface Suite {
  readonly section: string;
  readonly title: string;
  readonly cases: readonly ConformanceCase[];
}

/** A case ID: `<section anchor>.<kebab-case name>`. */
export type CaseId<Section extends string = string> = `${Section}.${string}`;

/**
 * A case as a suite file declares it: its ID written out in full (never assembled in code), so
 * an ID copied from a report greps to its declaration in one hop.
 */
export type CaseDeclaration<Section extends string = string> = Omit<ConformanceCase, 'section' | 'id'> & {
  readonly id: CaseId<Section>;
};

/** What a section declares for each of its cases unless the case says otherwise. */
export interface SuiteDefaults {
  /** Every case of the section may run alongside others (ConformanceCase.alongside). */
  readonly alongside?: boolean;
}

function isDefaults(given: SuiteDefaults | readonly unknown[]): given is SuiteDefaults {
  return !Array.isArray(given);
}

/**
 * Declares the cases of one section. Each ID must start with `<section>.` (the type says so for
 * a literal section) and go on in kebab-case; a malformed or duplicate ID is a programming error
 * caught at load time, not at report time.
 */
export function defineSuite<const Section extends string>(
  section: Section,
  title: string,
  declarations: readonly CaseDeclaration<NoInfer<Section>>[],
): Suite;
/** The same, with what the section declares for every case that does not say otherwise. */
export function defineSuite<const Section extends string>(
  section: Section,
  title: string,
  defaults: SuiteDefaults,
  declarations: readonly CaseDeclaration<NoInfer<Section>>[],
): Suite;
export function defineSuite<const Section extends string>(
  section: Section,
  title: string,
  defaultsOrDeclarations: SuiteDefaults | readonly CaseDeclaration<NoInfer<Section>>[],
  declared?: readonly CaseDeclaration<NoInfer<Section>>[],
): Suite {
  const declarations = isDefaults(defaultsOrDeclarations) ? (declared ?? []) : defaultsOrDeclarations;
  const defaults = isDefaults(defaultsOrDeclarations) ? defaultsOrDeclarations : {};
  const seen = new Set<string>();
  const cases = declarations.map((declaration) => {
    const { id } = declaration;
    if (!id.startsWith(`${section}.`) || !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(id.slice(section.length + 1))) {
      throw new Error(`case ID ${JSON.stringify(id)} in #${section} is not ${section}.<kebab-case name>`);
    }
    if (seen.has(id)) throw new Error(`case ID ${id} is declared twice in #${section}`);
    seen.add(id);
    for (const tool of declaration.needs ?? []) systemTool(tool);
    const alongside = declaration.alongside ?? defaults.alongside;
    return { ...declaration, section, ...(alongside === undefined ? {} : { alongside }) };
  });
  return { section, title, cases };
}
