/**
 * The interop scenarios of a pair run (issue 24), each judged in both directions: "A→B" means
 * gateway A's side calls and gateway B is the target. A scenario is judged by the suites' own
 * cases (by section or requirement), run against the target with its remote
 * callers on the caller side's server, so every request crosses s2s; or it needs the caller
 * side's call-out interface (docs/caller.md, "A gateway whose own agents call out"), which
 * makes the caller gateway, not the suite, the one that calls.
 */
export type InteropScenarioId =
  | 'discovery'
  | 'retrieval'
  | 'hidden-vs-missing'
  | 'invocation'
  | 'events'
  | 'recovery'
  | 'cancellation-input';

export interface InteropScenario {
  readonly id: InteropScenarioId;
  readonly title: string;
  /** Suite cases judging it on the target: those whose ID starts with one of these (a section)… */
  readonly sections?: readonly string[];
  /** …or that check one of these requirements. */
  readonly requirements?: readonly string[];
  /** Judged through the caller side's conformance call-out (the caller gateway invokes the target). */
  readonly callOut?: true;
}

export const INTEROP_SCENARIOS: readonly InteropScenario[] = [
  {
    id: 'discovery',
    title: "discovery of the other side's directory",
    sections: ['find-gateway.', 'gateway-info.', 'list-agents.', 'endpoint-info.'],
  },
  {
    id: 'retrieval',
    title: 'tool retrieval and hash pinning',
    // Not canonical-json: its spec-example case needs the spec's own manifest, which names
    // agents.example and so exists on gateway B only.
    sections: ['list-tools.', 'tool-info.', 'manifest-retrieval.'],
  },
  {
    id: 'hidden-vs-missing',
    title: 'hidden vs missing across the pair',
    requirements: ['errors.not-found-equivalence'],
  },
  { id: 'invocation', title: "invocation through the caller's call-out", callOut: true },
  { id: 'events', title: 'events across the pair', callOut: true },
  { id: 'recovery', title: 'recovery after a cut s2s link', callOut: true },
  { id: 'cancellation-input', title: 'cancellation and input across the pair', callOut: true },
];

/** Whether a case (by its ID and requirement IDs) judges the scenario. */
export function judgesScenario(
  scenario: InteropScenario,
  testCase: { readonly id: string; readonly requirements: readonly string[] },
): boolean {
  return (
    (scenario.sections ?? []).some((section) => testCase.id.startsWith(section)) ||
    (scenario.requirements ?? []).some((requirement) => testCase.requirements.includes(requirement))
  );
}
