/**
 * The one client of Administrative Provisioning (#registration-flow): the registration IQs one
 * caller sends to the gateway. The administrator sends all six; a self-registrant sends
 * <register/> for its own bare JID, and a non-admin sends any of them to be refused.
 *
 * Two ways to send, because callers judge replies differently: the named operations resolve
 * with the exchange, result and error alike (suites and tests assert on both, and on the exact
 * wire text); `call` resolves with the result's payload and rejects with StanzaErrorReply
 * (the run's fixture provisioning, which only needs to know what went wrong). Both go through
 * Caller.exchangeIq, so the stanza on the wire is the same either way.
 */
import type { Element } from '@xmpp/xml';
import type { Caller, IqExchange } from '../driver/index.ts';
import { provisioningRequest, type Hash, type ProvisioningRequest } from '../../protocol/stanza/index.ts';

export class ProvisioningClient {
  readonly caller: Caller;
  /** The gateway's JID: every provisioning IQ is addressed to the gateway, not to the endpoint. */
  readonly gateway: string;

  constructor(caller: Caller, gateway: string) {
    this.caller = caller;
    this.gateway = gateway;
  }

  register(manifestJson: string): Promise<IqExchange> {
    return this.exchange(provisioningRequest.register(manifestJson));
  }

  activate(jid: string, version: string, hash: Hash): Promise<IqExchange> {
    return this.exchange(provisioningRequest.activate(jid, version, hash));
  }

  deactivate(jid: string): Promise<IqExchange> {
    return this.exchange(provisioningRequest.deactivate(jid));
  }

  /** <registration-status/>. */
  status(jid: string): Promise<IqExchange> {
    return this.exchange(provisioningRequest.registrationStatus(jid));
  }

  removeVersion(jid: string, version: string): Promise<IqExchange> {
    return this.exchange(provisioningRequest.removeVersion(jid, version));
  }

  removeEndpoint(jid: string): Promise<IqExchange> {
    return this.exchange(provisioningRequest.removeEndpoint(jid));
  }

  /** Sends a request; resolves with the reply, result or error alike. */
  exchange(request: ProvisioningRequest): Promise<IqExchange> {
    return this.caller.exchangeIq(this.gateway, request.type, request.payload);
  }

  /**
   * Sends a request; resolves with the result's payload (undefined for an empty result) and
   * rejects with StanzaErrorReply for an error reply.
   */
  call(request: ProvisioningRequest): Promise<Element | undefined> {
    return this.caller.iq(this.gateway, request.type, request.payload);
  }
}
