/**
 * The Administrative Provisioning requests of #registration-flow as a client sends them: for
 * each operation of the spec's table, the IQ type and the child element. <register/> is also
 * what a self-registrant sends for its own bare JID. Sending them is harness/'s job
 * (ProvisioningClient); this module only pairs each operation with its wire shape.
 */
import type { Element } from '@xmpp/xml';
import {
  buildActivate,
  buildDeactivate,
  buildRegister,
  buildRegistrationStatus,
  buildRemoveEndpoint,
  buildRemoveVersion,
} from './agent-admin.ts';
import type { Hash } from './hash.ts';

export interface ProvisioningRequest {
  /** registration-status only reads, so it is the one get; every other operation changes state. */
  readonly type: 'get' | 'set';
  readonly payload: Element;
}

export const provisioningRequest = {
  register: (manifestJson: string): ProvisioningRequest => ({
    type: 'set',
    payload: buildRegister({ manifestJson }),
  }),
  activate: (jid: string, version: string, hash: Hash): ProvisioningRequest => ({
    type: 'set',
    payload: buildActivate({ jid, version, hash }),
  }),
  deactivate: (jid: string): ProvisioningRequest => ({ type: 'set', payload: buildDeactivate({ jid }) }),
  registrationStatus: (jid: string): ProvisioningRequest => ({
    type: 'get',
    payload: buildRegistrationStatus({ jid }),
  }),
  removeVersion: (jid: string, version: string): ProvisioningRequest => ({
    type: 'set',
    payload: buildRemoveVersion({ jid, version }),
  }),
  removeEndpoint: (jid: string): ProvisioningRequest => ({
    type: 'set',
    payload: buildRemoveEndpoint({ jid }),
  }),
} as const;
