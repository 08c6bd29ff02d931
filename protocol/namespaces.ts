/**
 * Every namespace, feature var, identity, FORM_TYPE and discovery node the spec defines
 * (#namespaces, #registrar), plus the foreign namespaces our codecs speak.
 */

/** XML namespaces registered by the spec (#registrar-namespaces). */
export const NS_AGENT_API = 'urn:xmpp:agent-api:0';
export const NS_AGENT_TASK = 'urn:xmpp:agent-task:0';

/** Fixed feature vars (#registrar-features). */
export const FEATURE = {
  directory: 'urn:xmpp:agent-directory:0',
  endpoint: 'urn:xmpp:agent-endpoint:0',
  tool: 'urn:xmpp:agent-tool:0',
  manifest: 'urn:xmpp:agent-api:0#manifest',
  schema: 'urn:xmpp:agent-api:0#schema',
  selfRegister: 'urn:xmpp:agent-api:0#self-register',
  admin: 'urn:xmpp:agent-api:0#admin',
  task: 'urn:xmpp:agent-task:0',
  taskProgress: 'urn:xmpp:agent-task:0#progress',
  taskCancel: 'urn:xmpp:agent-task:0#cancel',
  taskInput: 'urn:xmpp:agent-task:0#input',
} as const;
export type AgentFeature = (typeof FEATURE)[keyof typeof FEATURE];
export const ALL_AGENT_FEATURES: readonly AgentFeature[] = Object.values(FEATURE);

/** The fixed directory node; the same string is the directory feature var (#list-agents). */
export const NODE_DIRECTORY = 'urn:xmpp:agent-directory:0';
/** Derived-node bases (#registrar-nodes); see tool-node.ts for the grammar. */
export const NODE_BASE_TOOL_COLLECTION = 'urn:xmpp:agent-tools:0';
export const NODE_BASE_TOOL = 'urn:xmpp:agent-tool:0';

/** FORM_TYPE values (#registrar-formtypes, #search). */
export const FORM_TYPE = {
  endpointInfo: 'urn:xmpp:agent-endpoint-info:0',
  toolInfo: 'urn:xmpp:agent-tool-info:0',
  search: 'jabber:iq:search',
} as const;

/** Service-discovery identities, all in category "automation" (#registrar-identities). */
export const IDENTITY_CATEGORY = 'automation';
export const IDENTITY_TYPE = {
  gateway: 'agent-gateway',
  directory: 'agent-directory',
  endpoint: 'agent-endpoint',
  toolCollection: 'agent-tool-collection',
  tool: 'agent-tool',
} as const;
export type AgentIdentityType = (typeof IDENTITY_TYPE)[keyof typeof IDENTITY_TYPE];

/** Media types fixed by the XML Schemas (#json-encoding, #schemas). */
export const MEDIA_TYPE_JSON = 'application/json';
export const MEDIA_TYPE_SCHEMA_JSON = 'application/schema+json';

/** Hash algorithm: version 0 requires sha-256 (#endpoint-info, #registration-flow). */
export const HASH_ALGO_SHA256 = 'sha-256';

/** Foreign namespaces used by the protocol's stanzas. */
export const NS = {
  client: 'jabber:client',
  component: 'jabber:component:accept',
  stanzas: 'urn:ietf:params:xml:ns:xmpp-stanzas',
  discoInfo: 'http://jabber.org/protocol/disco#info',
  discoItems: 'http://jabber.org/protocol/disco#items',
  rsm: 'http://jabber.org/protocol/rsm',
  dataForms: 'jabber:x:data',
  search: 'jabber:iq:search',
  hashes: 'urn:xmpp:hashes:2',
  ping: 'urn:xmpp:ping',
  hints: 'urn:xmpp:hints',
  vcardTemp: 'vcard-temp',
} as const;

/** Reserved unqualified task failure codes (#errors, #registrar-failure-codes). */
export const RESERVED_FAILURE_CODES = ['deadline-expired', 'internal-error', 'unavailable'] as const;
export type ReservedFailureCode = (typeof RESERVED_FAILURE_CODES)[number];
