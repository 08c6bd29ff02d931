/**
 * The Administrative Provisioning and self-registration rows of the gateway's IQ table
 * (#registration-flow): one row per operation, each the same path — addressed to the gateway
 * JID, parse, ask Provisioning, build the result — with the operation's IQ type, codec and
 * result builder as data. Mutations are IQ set, <registration-status/> is IQ get; the other
 * type has no row, so it is service-unavailable like any IQ nobody handles.
 */
import type { Element } from '@xmpp/xml';
import { NS_AGENT_API } from '../../protocol/namespaces.ts';
import {
  StanzaParseError,
  buildActive,
  buildDeactivated,
  buildRegistered,
  buildRegistration,
  buildRemoved,
  parseActivate,
  parseDeactivate,
  parseRegister,
  parseRegistrationStatus,
  parseRemoveEndpoint,
  parseRemoveVersion,
} from '../../protocol/stanza/index.ts';
import type { Requester } from '../catalog/catalog.ts';
import { FAULT, type StanzaFault } from '../iq/faults.ts';
import { UNHANDLED, type IqReply, type IqRoute, type IqType } from '../iq/iq-table.ts';
import { answer, refuse } from '../iq/outcome.ts';
import type { Provisioning } from './provisioning.ts';
import { refuse as refuseRegistration, type Outcome } from './registration-fault.ts';

export interface AdminRouteContext {
  readonly provisioning: Provisioning;
  /** Whether non-admins on local domains may self-register (decides the refusal of unparsable <register/>). */
  readonly selfRegistration: boolean;
}

interface AdminOperation<Request, Value> {
  readonly element: string;
  readonly type: IqType;
  readonly parse: (payload: Element) => Request;
  readonly run: (sender: Requester, request: Request) => Outcome<Value> | Promise<Outcome<Value>>;
  readonly build: (value: Value) => Element;
  /** The answer to a payload that breaks its grammar (default: adminOnlyMalformed). */
  readonly malformed?: (sender: Requester) => StanzaFault;
}

function parsedOrUndefined<T>(parse: (element: Element) => T, payload: Element): T | undefined {
  try {
    return parse(payload);
  } catch (error) {
    if (error instanceof StanzaParseError) return undefined;
    throw error;
  }
}

function route<Request, Value>(
  operation: AdminOperation<Request, Value>,
  provisioning: Provisioning,
): IqRoute {
  // security.admin-authentication: a non-admin learns nothing, not even whether its request
  // was well-formed (interp-24).
  const adminOnlyMalformed = (sender: Requester): StanzaFault =>
    provisioning.isAdmin(sender) ? FAULT.badRequest : FAULT.forbidden;
  const malformed = operation.malformed ?? adminOnlyMalformed;
  return {
    type: operation.type,
    ns: NS_AGENT_API,
    element: operation.element,
    handle: async ({ addressee, requester, payload }): Promise<IqReply | typeof UNHANDLED> => {
      // addressing.gateway-domain-jid: provisioning is the gateway's own service; an endpoint
      // (or a full JID) offers none of it.
      if (addressee.kind !== 'gateway') return UNHANDLED;
      const request = parsedOrUndefined(operation.parse, payload);
      if (request === undefined) return refuse(malformed(requester));
      const outcome = await operation.run(requester, request);
      // Condition and type only: a registration fault's reason and violations never leave.
      return outcome.ok
        ? answer(operation.build(outcome.value))
        : refuse({ condition: outcome.fault.condition, type: outcome.fault.type });
    },
  };
}

// registration-flow.admin-operations: one row per provisioning operation.
export function adminRoutes({ provisioning, selfRegistration }: AdminRouteContext): IqRoute[] {
  const row = <Request, Value>(operation: AdminOperation<Request, Value>) => route(operation, provisioning);
  return [
    row({
      element: 'register',
      type: 'set',
      parse: parseRegister,
      run: (sender, request) => provisioning.register(sender, request.manifestJson),
      build: (result) => buildRegistered(result.registered),
      // Authorization is decided before the payload's grammar for everyone but those it could
      // authorize (registration-flow.federation-grants-nothing).
      malformed: (sender) => {
        if (provisioning.isAdmin(sender) || provisioning.maySelfRegister(sender)) return FAULT.badRequest;
        return refuseRegistration(selfRegistration ? 'not-local-sender' : 'self-registration-unavailable')
          .fault;
      },
    }),
    row({
      element: 'activate',
      type: 'set',
      parse: parseActivate,
      run: (sender, request) => provisioning.activate(sender, request),
      build: buildActive,
    }),
    row({
      element: 'deactivate',
      type: 'set',
      parse: parseDeactivate,
      run: (sender, request) => provisioning.deactivate(sender, request),
      build: buildDeactivated,
    }),
    row({
      element: 'registration-status',
      type: 'get',
      parse: parseRegistrationStatus,
      run: (sender, request) => provisioning.registrationStatus(sender, request),
      build: buildRegistration,
    }),
    row({
      element: 'remove-version',
      type: 'set',
      parse: parseRemoveVersion,
      run: (sender, request) => provisioning.removeVersion(sender, request),
      build: buildRemoved,
    }),
    row({
      element: 'remove-endpoint',
      type: 'set',
      parse: parseRemoveEndpoint,
      run: (sender, request) => provisioning.removeEndpoint(sender, request),
      build: buildRemoved,
    }),
  ];
}
