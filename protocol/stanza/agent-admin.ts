/**
 * Registration and Administrative Provisioning elements of urn:xmpp:agent-api:0
 * (#registration-flow, #schema-agent-api): register/registered, activate/active,
 * deactivate/deactivated, registration-status/registration, remove-version, remove-endpoint
 * and removed. JIDs are carried as opaque strings; preparing and comparing them is the
 * caller's job (interp-25).
 */
import { xml } from '@xmpp/xml';
import type { Element } from '@xmpp/xml';
import { MEDIA_TYPE_JSON, NS, NS_AGENT_API } from '../namespaces.ts';
import {
  checkAttributes,
  expectElement,
  expectEmpty,
  expectMediaType,
  lexAttribute,
  lexOptionalAttribute,
  only,
  readSequence,
  requiredAttribute,
} from './element-reader.ts';
import { booleanText, legalText, lexForBuild } from './element-writer.ts';
import type { BuildTarget } from './element-writer.ts';
import { buildHash, parseHash } from './hash.ts';
import type { Hash } from './hash.ts';
import { buildJsonElement, readJsonText } from './json-text.ts';
import { lexBoolean, lexVersion } from './lexical.ts';

const api = (local: string): BuildTarget => ({ local, ns: NS_AGENT_API });

export interface RegisterRequest {
  /** The manifest as sent: any JSON formatting; the gateway canonicalizes it (#registration-flow). */
  readonly manifestJson: string;
}

export interface VersionedHash {
  readonly jid: string;
  readonly version: string;
  readonly hash: Hash;
}

/** <registered/> and <activate/> carry the same fields. */
export type Registered = VersionedHash;
export type Activate = VersionedHash;

export interface EndpointVersion {
  readonly jid: string;
  readonly version: string;
}

/** <active/> and <remove-version/>. */
export type Active = EndpointVersion;
export type RemoveVersion = EndpointVersion;

/** <deactivate/>, <deactivated/>, <registration-status/> and <remove-endpoint/> (endpointOperation). */
export interface EndpointOperation {
  readonly jid: string;
}

export interface Removed {
  readonly jid: string;
  /** Present for a removed version; absent when the whole endpoint was removed. */
  readonly version?: string;
}

export interface RegistrationVersion {
  readonly id: string;
  readonly active: boolean;
  readonly removable: boolean;
  readonly hash: Hash;
}

export interface Registration {
  readonly jid: string;
  readonly versions: readonly RegistrationVersion[];
}

function jidAttribute(target: BuildTarget, jid: string): string {
  return legalText(target, jid, 'jid');
}

// <register><manifest media-type='application/json'>JSON</manifest></register>

export function parseRegister(element: Element): RegisterRequest {
  expectElement(element, 'register', NS_AGENT_API);
  checkAttributes(element, []);
  const [manifests] = readSequence(element, [{ local: 'manifest', ns: NS_AGENT_API }]);
  const manifest = only(manifests);
  checkAttributes(manifest, ['media-type']);
  expectMediaType(manifest, MEDIA_TYPE_JSON);
  return { manifestJson: readJsonText(manifest) };
}

export function buildRegister(request: RegisterRequest): Element {
  return xml(
    'register',
    { xmlns: NS_AGENT_API },
    buildJsonElement(api('manifest'), { 'media-type': MEDIA_TYPE_JSON }, request.manifestJson),
  );
}

// <registered jid version><hash/></registered> and <activate jid version><hash/></activate>

function parseVersionedHash(element: Element, local: 'registered' | 'activate'): VersionedHash {
  expectElement(element, local, NS_AGENT_API);
  checkAttributes(element, ['jid', 'version']);
  const jid = requiredAttribute(element, 'jid');
  const version = lexAttribute(element, 'version', lexVersion);
  const [hashes] = readSequence(element, [{ local: 'hash', ns: NS.hashes }]);
  return { jid, version, hash: parseHash(only(hashes)) };
}

function buildVersionedHash(local: 'registered' | 'activate', value: VersionedHash): Element {
  const target = api(local);
  return xml(
    local,
    {
      xmlns: NS_AGENT_API,
      jid: jidAttribute(target, value.jid),
      version: lexForBuild(target, 'version', value.version, lexVersion),
    },
    buildHash(value.hash),
  );
}

export const parseRegistered = (element: Element): Registered => parseVersionedHash(element, 'registered');
export const buildRegistered = (value: Registered): Element => buildVersionedHash('registered', value);
export const parseActivate = (element: Element): Activate => parseVersionedHash(element, 'activate');
export const buildActivate = (value: Activate): Element => buildVersionedHash('activate', value);

// <active jid version/> and <remove-version jid version/>

function parseEndpointVersion(element: Element, local: 'active' | 'remove-version'): EndpointVersion {
  expectElement(element, local, NS_AGENT_API);
  checkAttributes(element, ['jid', 'version']);
  expectEmpty(element);
  return { jid: requiredAttribute(element, 'jid'), version: lexAttribute(element, 'version', lexVersion) };
}

function buildEndpointVersion(local: 'active' | 'remove-version', value: EndpointVersion): Element {
  const target = api(local);
  return xml(local, {
    xmlns: NS_AGENT_API,
    jid: jidAttribute(target, value.jid),
    version: lexForBuild(target, 'version', value.version, lexVersion),
  });
}

export const parseActive = (element: Element): Active => parseEndpointVersion(element, 'active');
export const buildActive = (value: Active): Element => buildEndpointVersion('active', value);
export const parseRemoveVersion = (element: Element): RemoveVersion =>
  parseEndpointVersion(element, 'remove-version');
export const buildRemoveVersion = (value: RemoveVersion): Element =>
  buildEndpointVersion('remove-version', value);

// endpointOperation: <deactivate/>, <deactivated/>, <registration-status/>, <remove-endpoint/>

export type EndpointOperationName = 'deactivate' | 'deactivated' | 'registration-status' | 'remove-endpoint';

export function parseEndpointOperation(element: Element, local: EndpointOperationName): EndpointOperation {
  expectElement(element, local, NS_AGENT_API);
  checkAttributes(element, ['jid']);
  expectEmpty(element);
  return { jid: requiredAttribute(element, 'jid') };
}

export function buildEndpointOperation(local: EndpointOperationName, value: EndpointOperation): Element {
  return xml(local, { xmlns: NS_AGENT_API, jid: jidAttribute(api(local), value.jid) });
}

export const parseDeactivate = (element: Element): EndpointOperation =>
  parseEndpointOperation(element, 'deactivate');
export const buildDeactivate = (value: EndpointOperation): Element =>
  buildEndpointOperation('deactivate', value);
export const parseDeactivated = (element: Element): EndpointOperation =>
  parseEndpointOperation(element, 'deactivated');
export const buildDeactivated = (value: EndpointOperation): Element =>
  buildEndpointOperation('deactivated', value);
export const parseRegistrationStatus = (element: Element): EndpointOperation =>
  parseEndpointOperation(element, 'registration-status');
export const buildRegistrationStatus = (value: EndpointOperation): Element =>
  buildEndpointOperation('registration-status', value);
export const parseRemoveEndpoint = (element: Element): EndpointOperation =>
  parseEndpointOperation(element, 'remove-endpoint');
export const buildRemoveEndpoint = (value: EndpointOperation): Element =>
  buildEndpointOperation('remove-endpoint', value);

// <removed jid version?/>

export function parseRemoved(element: Element): Removed {
  expectElement(element, 'removed', NS_AGENT_API);
  checkAttributes(element, ['jid', 'version']);
  expectEmpty(element);
  const jid = requiredAttribute(element, 'jid');
  const version = lexOptionalAttribute(element, 'version', lexVersion);
  return version === undefined ? { jid } : { jid, version };
}

export function buildRemoved(value: Removed): Element {
  const target = api('removed');
  return xml('removed', {
    xmlns: NS_AGENT_API,
    jid: jidAttribute(target, value.jid),
    version:
      value.version === undefined ? undefined : lexForBuild(target, 'version', value.version, lexVersion),
  });
}

// <registration jid><version id active removable><hash/></version>*</registration>

function parseRegistrationVersion(element: Element): RegistrationVersion {
  checkAttributes(element, ['id', 'active', 'removable']);
  const id = lexAttribute(element, 'id', lexVersion);
  const active = lexAttribute(element, 'active', lexBoolean);
  const removable = lexAttribute(element, 'removable', lexBoolean);
  const [hashes] = readSequence(element, [{ local: 'hash', ns: NS.hashes }]);
  return { id, active, removable, hash: parseHash(only(hashes)) };
}

export function parseRegistration(element: Element): Registration {
  expectElement(element, 'registration', NS_AGENT_API);
  checkAttributes(element, ['jid']);
  const jid = requiredAttribute(element, 'jid');
  const [versions = []] = readSequence(element, [
    { local: 'version', ns: NS_AGENT_API, min: 0, max: Number.POSITIVE_INFINITY },
  ]);
  return { jid, versions: versions.map(parseRegistrationVersion) };
}

export function buildRegistration(value: Registration): Element {
  const target = api('version');
  return xml(
    'registration',
    { xmlns: NS_AGENT_API, jid: jidAttribute(api('registration'), value.jid) },
    value.versions.map((version) =>
      xml(
        'version',
        {
          id: lexForBuild(target, 'id', version.id, lexVersion),
          active: booleanText(version.active),
          removable: booleanText(version.removable),
        },
        buildHash(version.hash),
      ),
    ),
  );
}
