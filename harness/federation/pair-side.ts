// A pair topology (`pair: true`) carries two gateways under test, one per server. Everything that
// starts or probes "the gateway" reads `federation.component`; the second gateway's view of the
// same federation is this one, whose component link is server A's.
import type { Account, AccountRequest, ComponentLink, Federation, ServerRole } from './server-provider.ts';

export type PairSide = 'a' | 'b';

/** The component link of the gateway on `side`: B's is the ordinary one, A's the pair's. */
export function pairComponentOf(federation: Federation, side: PairSide): ComponentLink {
  if (side === 'b') return federation.component;
  const link = federation.pairComponent;
  if (link === undefined) {
    throw new Error('this federation has no second gateway component (start it with pair: true)');
  }
  return link;
}

/**
 * The federation as seen by the gateway on `side`: the same servers, links and accounts, with
 * `component` being that gateway's link. The view delegates (a provider's handle keeps private
 * state, so it cannot be copied).
 */
export function federationForSide(federation: Federation, side: PairSide): Federation {
  const component = pairComponentOf(federation, side);
  if (side === 'b') return federation;
  const { targetComponent } = federation;
  return {
    ...(targetComponent === undefined ? {} : { targetComponent }),
    get provider() {
      return federation.provider;
    },
    get domains() {
      return federation.domains;
    },
    get servers() {
      return federation.servers;
    },
    component,
    get pairComponent() {
      return federation.pairComponent;
    },
    get links() {
      return federation.links;
    },
    get caCertPath() {
      return federation.caCertPath;
    },
    get runDir() {
      return federation.runDir;
    },
    get accounts() {
      return federation.accounts;
    },
    get timings() {
      return federation.timings;
    },
    get stopped() {
      return federation.stopped;
    },
    createAccount: (request: AccountRequest): Promise<Account> => federation.createAccount(request),
    account: (jid: string): Account => federation.account(jid),
    server: (role: ServerRole) => federation.server(role),
    stop: () => federation.stop(),
  };
}
