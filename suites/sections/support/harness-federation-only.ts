/**
 * Why a case that acts on the gateway's surroundings cannot tell: it needs what only the harness's
 * own federation holds (`behind`: the fault proxy its component link runs through, its s2s
 * proxies, its servers), and an external federation (--provider external) has none of it. Never
 * inapplicable: the requirement it decides would be left untested while the profile passed. The
 * gateway itself may be launched or not: one the harness does not start connects through the same
 * proxy, and what needs its process (a kill, a storage fault) names the SUT file's command it lacks
 * (runner/external-sut-control.ts). One wording for every such case, which reports look for.
 */
export function harnessFederationOnly(behind: string): string {
  return `cannot act on the gateway's surroundings: needs ${behind}, which only the harness's own federation has (native or container, not --provider external; docs/sut.md)`;
}
