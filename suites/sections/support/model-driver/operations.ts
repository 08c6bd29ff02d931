/**
 * The operations the model driver sends, as plain data (so a counterexample prints as steps that
 * can be read and replayed), what each becomes on the wire, and what the model says about it.
 * Only operations decided at admission: an invocation is sent only when the model says it is
 * refused (authorization, an unknown tool or version, a stale manifest hash), so no task starts.
 */
import type { Element } from '@xmpp/xml';
import { canonicalDocument } from '../../../../protocol/json/canonical.ts';
import { HASH_ALGO_SHA256 } from '../../../../protocol/namespaces.ts';
import {
  buildDiscoInfoRequest,
  buildDiscoItemsRequest,
  buildInvoke,
  buildManifestRequest,
  buildSchemaRequest,
  buildSearchRequest,
  provisioningRequest,
  type ProvisioningRequest,
  type RsmRequest,
} from '../../../../protocol/stanza/index.ts';
import type { RateLimitedRequest } from '../../../../protocol/rate-limits.ts';
import {
  administration,
  directoryItems,
  endpointInfo,
  endpointItems,
  expectation,
  invocation,
  manifestRetrieval,
  schemaRetrieval,
  searchPage,
  selfRegistration,
  toolCollectionItems,
  type AdminOperation,
  type Alternative,
  type Expectation,
  type ModelWorld,
  type Principal,
} from '../../../model/index.ts';
import { minimalManifest } from '../manifests.ts';
import type { PageKind } from './judge.ts';
import type { DrivenRole } from './run-world.ts';

export type ModelOperation =
  | { readonly kind: 'directory'; readonly node?: string; readonly rsm?: RsmRequest }
  | { readonly kind: 'endpoint-info'; readonly jid: string; readonly node?: string }
  | { readonly kind: 'endpoint-items'; readonly jid: string }
  | {
      readonly kind: 'collection-items';
      readonly jid: string;
      readonly node: string;
      readonly rsm?: RsmRequest;
    }
  | { readonly kind: 'manifest'; readonly jid: string; readonly version?: string }
  | {
      readonly kind: 'schema';
      readonly jid: string;
      readonly tool: string;
      readonly version: string;
      readonly direction: 'input' | 'output';
      readonly manifestHash: string;
    }
  | {
      readonly kind: 'invoke';
      readonly jid: string;
      readonly tool: string;
      readonly version: string;
      readonly manifestHash: string;
    }
  | { readonly kind: 'search'; readonly nick: string; readonly rsm?: RsmRequest }
  /** A <register/> outside the administrative path: a minimal manifest claiming `jid` (#registration-flow). */
  | { readonly kind: 'self-register'; readonly jid: string; readonly version: string }
  | {
      readonly kind: 'admin';
      /** register: a minimal manifest claiming `jid` and `version` (sent only where all outcomes are refusals). */
      readonly request: AdminOperation;
      readonly jid: string;
      readonly version?: string;
      readonly manifestHash?: string;
    };

export interface ModelStep {
  readonly role: DrivenRole;
  readonly operation: ModelOperation;
}

export interface WireRequest {
  readonly to: string;
  readonly type: 'get' | 'set';
  readonly payload: Element;
}

const withRsm = <T extends object>(base: T, rsm: RsmRequest | undefined): T & { rsm?: RsmRequest } =>
  rsm === undefined ? base : { ...base, rsm };

/** The IQ an operation is sent as; `requestId` keeps invocations apart (#idempotency). */
export function wireRequestOf(operation: ModelOperation, gateway: string, requestId: string): WireRequest {
  switch (operation.kind) {
    case 'directory':
      return {
        to: gateway,
        type: 'get',
        payload: buildDiscoItemsRequest(
          withRsm(operation.node === undefined ? {} : { node: operation.node }, operation.rsm),
        ),
      };
    case 'endpoint-info':
      return {
        to: operation.jid,
        type: 'get',
        payload: buildDiscoInfoRequest(operation.node === undefined ? {} : { node: operation.node }),
      };
    case 'endpoint-items':
      return { to: operation.jid, type: 'get', payload: buildDiscoItemsRequest({}) };
    case 'collection-items':
      return {
        to: operation.jid,
        type: 'get',
        payload: buildDiscoItemsRequest(withRsm({ node: operation.node }, operation.rsm)),
      };
    case 'manifest':
      return {
        to: operation.jid,
        type: 'get',
        payload: buildManifestRequest(operation.version === undefined ? {} : { version: operation.version }),
      };
    case 'schema':
      return {
        to: operation.jid,
        type: 'get',
        payload: buildSchemaRequest({
          tool: operation.tool,
          version: operation.version,
          direction: operation.direction,
          manifestHash: { algo: HASH_ALGO_SHA256, value: operation.manifestHash },
        }),
      };
    case 'invoke':
      return {
        to: operation.jid,
        type: 'set',
        payload: buildInvoke({
          requestId,
          tool: operation.tool,
          apiVersion: operation.version,
          manifestHash: { algo: HASH_ALGO_SHA256, value: operation.manifestHash },
          argumentsJson: '{}',
        }),
      };
    case 'admin':
      return { to: gateway, ...adminRequestOf(operation) };
    case 'self-register':
      return {
        to: gateway,
        ...provisioningRequest.register(registeredManifestOf(operation.jid, operation.version)),
      };
    case 'search':
      return {
        to: gateway,
        type: 'set',
        payload: buildSearchRequest({
          kind: 'legacy',
          fields: operation.nick === '' ? {} : { nick: operation.nick },
          ...(operation.rsm === undefined ? {} : { rsm: operation.rsm }),
        }),
      };
  }
}

/** The manifest text an admin `register` step sends. */
export function registeredManifestOf(jid: string, version: string): string {
  return JSON.stringify(minimalManifest(jid, version));
}

function adminRequestOf(operation: ModelOperation & { kind: 'admin' }): ProvisioningRequest {
  const { jid, version = '', manifestHash = '' } = operation;
  switch (operation.request) {
    case 'register':
      return provisioningRequest.register(registeredManifestOf(jid, version));
    case 'activate':
      return provisioningRequest.activate(jid, version, { algo: HASH_ALGO_SHA256, value: manifestHash });
    case 'deactivate':
      return provisioningRequest.deactivate(jid);
    case 'registration-status':
      return provisioningRequest.registrationStatus(jid);
    case 'remove-version':
      return provisioningRequest.removeVersion(jid, version);
    case 'remove-endpoint':
      return provisioningRequest.removeEndpoint(jid);
  }
}

export function pageKindOf(operation: ModelOperation): PageKind {
  if (operation.kind === 'search') return 'search';
  return operation.kind === 'collection-items' || operation.kind === 'endpoint-items' ? 'nodes' : 'jids';
}

function distinctAlternatives(alternatives: readonly Alternative[]): Alternative[] {
  const seen = new Map<string, Alternative>();
  for (const alternative of alternatives) {
    const key = JSON.stringify(alternative.answer);
    const known = seen.get(key);
    if (known === undefined || (known.verdict === 'warn' && alternative.verdict === 'pass'))
      seen.set(key, alternative);
  }
  return [...seen.values()];
}

/**
 * The model's answers to an invocation whose arguments (`{}`) may or may not validate against the
 * tool's schema: the suite does not judge arguments, the target does (rules.target-validates-
 * arguments), so both readings are allowed.
 */
function invocationEither(
  world: ModelWorld,
  principal: Principal,
  operation: ModelOperation & { kind: 'invoke' },
): Expectation {
  const request = {
    jid: operation.jid,
    tool: operation.tool,
    version: operation.version,
    manifestHash: operation.manifestHash,
  };
  const valid = invocation(world, principal, { ...request, argumentsValid: true });
  const invalid = invocation(world, principal, { ...request, argumentsValid: false });
  return expectation({
    operation: valid.operation,
    requirements: [...new Set([...valid.requirements, ...invalid.requirements])],
    interpretations: [...new Set([...valid.interpretations, ...invalid.interpretations])],
    alternatives: distinctAlternatives([...valid.alternatives, ...invalid.alternatives]),
    sameAsNonexistent: valid.sameAsNonexistent && invalid.sameAsNonexistent,
    unauthorized: valid.unauthorized,
  });
}

/** Whether the model lets this operation start a task (the driver never sends such a one). */
export function mayAdmit(expected: Expectation): boolean {
  return expected.alternatives.some(
    (alternative) =>
      alternative.answer.kind === 'accepted' || alternative.answer.kind === 'accepted-then-failed',
  );
}

/** What the model accepts for the operation; `matched`: a search's matched set, once paged through. */
export function expectationOf(
  world: ModelWorld,
  principal: Principal,
  operation: ModelOperation,
  matched?: readonly string[],
): Expectation {
  switch (operation.kind) {
    case 'directory':
      return directoryItems(world, principal, {
        ...(operation.node === undefined ? {} : { node: operation.node }),
        ...(operation.rsm === undefined ? {} : { rsm: operation.rsm }),
      });
    case 'endpoint-info':
      return endpointInfo(world, principal, operation.jid, operation.node);
    case 'endpoint-items':
      return endpointItems(world, principal, operation.jid);
    case 'collection-items':
      return toolCollectionItems(world, principal, operation.jid, operation.node, operation.rsm);
    case 'manifest':
      return manifestRetrieval(world, principal, operation.jid, operation.version);
    case 'schema':
      return schemaRetrieval(world, principal, operation);
    case 'invoke':
      return invocationEither(world, principal, operation);
    case 'admin':
      if (operation.request === 'register') {
        const version = operation.version ?? '';
        const { hash } = canonicalDocument(minimalManifest(operation.jid, version));
        return administration(world, principal, {
          operation: 'register',
          jid: operation.jid,
          version,
          hash: hash.value,
          manifestValid: true,
        });
      }
      return administration(world, principal, {
        operation: operation.request,
        jid: operation.jid,
        ...(operation.version === undefined ? {} : { version: operation.version }),
        ...(operation.manifestHash === undefined ? {} : { hash: operation.manifestHash }),
      });
    case 'self-register':
      return selfRegistration(world, principal, operation.jid);
    case 'search':
      return searchPage(world, principal, {
        nick: operation.nick,
        ...(operation.rsm === undefined ? {} : { rsm: operation.rsm }),
        ...(matched === undefined ? {} : { matched }),
      });
  }
}

/** The same operation addressed to `jid` instead: the nonexistent twin a hidden object is compared with. */
export function retargeted(operation: ModelOperation, jid: string): ModelOperation | undefined {
  return 'jid' in operation ? { ...operation, jid } : undefined;
}

/**
 * Which RateLimitedRequest bucket an operation draws on (#security); undefined for the
 * administrative operations other than <register/>, which #security does not name.
 */
export function surfaceOf(operation: ModelOperation): RateLimitedRequest | undefined {
  switch (operation.kind) {
    case 'admin':
      return operation.request === 'register' ? 'registration' : undefined;
    case 'self-register':
      return 'registration';
    case 'search':
      return 'search';
    case 'manifest':
    case 'schema':
      return 'metadata';
    case 'invoke':
      return 'invocation';
    default:
      return 'discovery';
  }
}
