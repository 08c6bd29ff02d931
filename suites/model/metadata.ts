/**
 * Manifest and schema retrieval (#manifest-retrieval, #schemas). Access is the discovery
 * visibility decision, nothing else: invocation permission alone retrieves nothing
 * (manifest-retrieval.invoke-permission-insufficient). Without a version the active manifest is
 * served; with one, that exact immutable version, active or not. A schema request must carry the
 * manifest hash of the version it names: another hash gets conflict (schemas.stale-hash-conflict).
 */
import { seenEndpoint } from './endpoint-discovery.ts';
import {
  error,
  expectation,
  notFound,
  pass,
  warn,
  type Alternative,
  type Expectation,
} from './expectation.ts';
import { activeVersionOf, versionOf, type ModelWorld, type Principal } from './world.ts';

const MANIFEST_REQUIREMENTS = [
  'manifest-retrieval.result-contents',
  'manifest-retrieval.canonical-bytes',
  'manifest-retrieval.same-access-as-discovery',
  'manifest-retrieval.invoke-permission-insufficient',
];

/** <manifest-request/> to an endpoint, for the active version or an exact one. */
export function manifestRetrieval(
  world: ModelWorld,
  principal: Principal,
  jid: string,
  version?: string,
): Expectation {
  const operation = `manifest of ${jid}${version === undefined ? '' : ` version ${version}`}`;
  const endpoint = seenEndpoint(world, principal, jid);
  if (endpoint === undefined) return notFound(operation, MANIFEST_REQUIREMENTS);
  if (version === undefined) {
    const active = activeVersionOf(endpoint);
    // A deactivated endpoint has no active version to serve (interp-23).
    if (active === undefined) return notFound(operation, MANIFEST_REQUIREMENTS, false);
    return expectation({
      operation,
      requirements: MANIFEST_REQUIREMENTS,
      alternatives: [
        pass({ kind: 'manifest', version: active.version, hash: active.hash, canonical: active.canonical }),
      ],
    });
  }
  const exact = versionOf(endpoint, version);
  if (exact === undefined) return notFound(operation, MANIFEST_REQUIREMENTS);
  const alternatives: Alternative[] = [
    pass({ kind: 'manifest', version: exact.version, hash: exact.hash, canonical: exact.canonical }),
  ];
  if (endpoint.active === undefined) {
    alternatives.push(
      warn(error('item-not-found'), 'a deactivated endpoint refused an exact version (interp-23)'),
    );
  }
  return expectation({
    operation,
    requirements: [...MANIFEST_REQUIREMENTS, 'rules.version-pinning'],
    interpretations: endpoint.active === undefined ? ['interp-23'] : [],
    alternatives,
  });
}

export interface SchemaRequest {
  readonly jid: string;
  readonly tool: string;
  readonly version: string;
  readonly direction: 'input' | 'output';
  /** The manifest hash the request carries (sha-256 Base64). */
  readonly manifestHash: string;
}

const SCHEMA_REQUIREMENTS = [
  'schemas.canonical-bytes',
  'schemas.stale-hash-conflict',
  'rules.uniform-visibility',
];

/**
 * <schema-request/>. Unknown version, tool, or a tool without an output schema: item-not-found.
 * A stale hash: conflict; a stale hash naming an unknown tool as well: either (interp-27, by the
 * same reasoning as for invocation: two faults, either error).
 */
export function schemaRetrieval(
  world: ModelWorld,
  principal: Principal,
  request: SchemaRequest,
): Expectation {
  const operation = `${request.direction} schema of ${request.tool} in ${request.jid} version ${request.version}`;
  const endpoint = seenEndpoint(world, principal, request.jid);
  const manifest = endpoint === undefined ? undefined : versionOf(endpoint, request.version);
  if (endpoint === undefined || manifest === undefined) return notFound(operation, SCHEMA_REQUIREMENTS);
  const tool = manifest.tools.find((candidate) => candidate.name === request.tool);
  const schemaHash = request.direction === 'input' ? tool?.inputSchemaHash : tool?.outputSchemaHash;
  const stale = request.manifestHash !== manifest.hash;
  if (schemaHash === undefined) {
    if (!stale) return notFound(operation, SCHEMA_REQUIREMENTS, false);
    return expectation({
      operation,
      requirements: SCHEMA_REQUIREMENTS,
      interpretations: ['interp-27'],
      alternatives: [pass(error('item-not-found')), pass(error('conflict'))],
    });
  }
  if (stale) {
    return expectation({
      operation,
      requirements: SCHEMA_REQUIREMENTS,
      alternatives: [pass(error('conflict'))],
    });
  }
  const alternatives: Alternative[] = [
    pass({
      kind: 'schema',
      tool: request.tool,
      version: request.version,
      direction: request.direction,
      manifestHash: manifest.hash,
      schemaHash,
    }),
  ];
  if (endpoint.active === undefined) {
    alternatives.push(
      warn(error('item-not-found'), 'a deactivated endpoint refused an exact version (interp-23)'),
    );
  }
  return expectation({ operation, requirements: SCHEMA_REQUIREMENTS, alternatives });
}
