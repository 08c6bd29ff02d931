/**
 * Case outcomes, named as in the W3C Evaluation and Report Language (EARL 1.0) so reports map
 * one to one: earl:passed, earl:failed, earl:cantTell, earl:inapplicable, earl:untested.
 */
export const OUTCOMES = ['passed', 'failed', 'cantTell', 'inapplicable', 'untested'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** RFC 2119 strength of the requirement a case checks. */
export const LEVELS = ['MUST', 'SHOULD', 'MAY'] as const;
export type Level = (typeof LEVELS)[number];

/** The items of stronger requirements first (MUST, SHOULD, MAY), in their order otherwise. */
export function mustFirst<T extends { readonly case: { readonly level: Level } }>(items: readonly T[]): T[] {
  return items.toSorted((a, b) => LEVELS.indexOf(a.case.level) - LEVELS.indexOf(b.case.level));
}
