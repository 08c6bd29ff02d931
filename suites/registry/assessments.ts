/**
 * The assessments of a caller under test (docs/caller.md): requirements that bind the caller are
 * judged by caller cases against the fake target and counted toward an assessment, not toward a
 * spec profile. Neither assessment is a conformance profile of the spec: #conformance defines
 * gateway profiles only, and the MCP Mapping section calls itself informative. Reports show them
 * beside the profiles, labelled so.
 */
export const ASSESSMENT_IDS = ['caller-side', 'mcp-bridge'] as const;
export type AssessmentId = (typeof ASSESSMENT_IDS)[number];

export const ASSESSMENT_TITLES: Readonly<Record<AssessmentId, string>> = {
  'caller-side': 'Caller side',
  'mcp-bridge': 'MCP bridge',
};

/** How every report labels an assessment beside the profiles. */
export const ASSESSMENT_LABEL = 'assessment, not a spec profile';
