/** The domains of the federation topology (the same for every provider). */
export const FEDERATION_DOMAINS = {
  /** Server A: remote callers, reaching the gateway across s2s. */
  remote: 'example.com',
  /** Server B: local callers, on the gateway's own server. */
  local: 'server.example',
  /** Server B: the gateway under test, connected as a XEP-0114 component. */
  component: 'agents.example',
  /** Optional third server: a peer nobody configured, for deny-by-default tests. */
  hostile: 'hostile.example',
  /**
   * Server B: the harness's scriptable fake target (harness/fake-target/), a second XEP-0114
   * component that a caller under test on server A reaches across s2s.
   */
  target: 'target.example',
} as const;

/**
 * Server A, only in a pair topology (`pair: true`): the second gateway under test of an interop
 * run, a XEP-0114 component on the other server, so that each gateway reaches the other across
 * s2s (docs/interop.md).
 */
export const PAIR_COMPONENT_DOMAIN = 'agents.example.com';

/** The same roles in every federation; an external one may give them other names. */
export interface FederationDomains {
  readonly remote: string;
  readonly local: string;
  readonly component: string;
  readonly hostile: string;
  readonly target: string;
  /** The second gateway's component domain, where the federation has one (a pair topology). */
  readonly pairComponent?: string;
}
