/**
 * How a caller-side case is declared (docs/caller.md): like a gateway case (suites/framework/
 * case.ts) — requirement IDs, level, a one-line statement — but counted toward an assessment
 * instead of a spec profile, and run against a caller under test that the case starts against
 * the fake target through its context (caller-context.ts).
 */
import type { RequirementId } from '../../registry/requirement-ids.ts';
import type { Level } from '../../framework/outcome.ts';
import type { CaseId } from '../../framework/case.ts';
import type { AssessmentId } from '../../registry/assessments.ts';
import type { CallerCaseContext } from './caller-context.ts';
import type { CaseInterfaces } from './caller-under-test.ts';

export { ASSESSMENT_IDS, ASSESSMENT_TITLES, type AssessmentId } from '../../registry/assessments.ts';

export interface CallerCase {
  /** `<section anchor>.<kebab name>`, unique across every suite, gateway ones included. */
  readonly id: string;
  readonly section: string;
  /** Registry IDs of the caller requirements checked; the first is the primary one. */
  readonly requirements: readonly [RequirementId, ...RequirementId[]];
  /** The assessments whose verdict this case counts toward. */
  readonly assessments: readonly [AssessmentId, ...AssessmentId[]];
  readonly level: Level;
  /**
   * The caller interfaces the case can judge through, and for each one it cannot, why: a case
   * that needs MCP itself does not apply to a gateway's call-out tool (docs/caller.md).
   */
  readonly interfaces: CaseInterfaces;
  /** What the caller must do, in our words. */
  readonly statement: string;
  /** docs/interpretations.md entries the verdict depends on. */
  readonly interpretations?: readonly string[];
  /** Per-case limit; the runner's default applies when absent. */
  readonly timeoutMs?: number;
  readonly run: (context: CallerCaseContext) => Promise<void>;
}

export interface CallerSuite {
  readonly section: string;
  readonly title: string;
  readonly cases: readonly CallerCase[];
}

export type CallerCaseDeclaration<Section extends string = string> = Omit<CallerCase, 'section' | 'id'> & {
  readonly id: CaseId<Section>;
};

/**
 * Declares the caller cases of one section. A malformed or repeated ID is a programming error
 * caught when the module loads (uniqueness across all suites: suites/caller/caller-suites.test.ts).
 */
export function defineCallerSuite<const Section extends string>(
  section: Section,
  title: string,
  declarations: readonly CallerCaseDeclaration<NoInfer<Section>>[],
): CallerSuite {
  const seen = new Set<string>();
  const cases = declarations.map((declaration) => {
    const { id } = declaration;
    if (!id.startsWith(`${section}.`) || !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(id.slice(section.length + 1))) {
      throw new Error(
        `caller case ID ${JSON.stringify(id)} in #${section} is not ${section}.<kebab-case name>`,
      );
    }
    if (seen.has(id)) throw new Error(`caller case ID ${id} is declared twice in #${section}`);
    seen.add(id);
    return { ...declaration, section };
  });
  return { section, title, cases };
}
