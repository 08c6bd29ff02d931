/**
 * Why a case is inapplicable to a gateway the harness does not launch: it needs what only the
 * harness holds around a launched gateway (`behind`: its component link, fault proxies, servers).
 * One wording for every such case, which reports and the external-gateway example look for.
 */
export function launchedOnly(behind: string): string {
  return `needs a gateway the harness launches, behind ${behind}: give the SUT file a "launch" command (docs/sut.md) and run it on the native or container federation`;
}
