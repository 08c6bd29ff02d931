/**
 * From submitted manifest text to a manifest the registry may commit (#registration-flow: "The
 * gateway MUST validate the manifest before committing it … Invalid input is rejected before
 * digest calculation"), in stages the provisioning service can interleave with authorization:
 *
 * 1. parseManifestText: the strict I-JSON parse under the documented limits;
 * 2. claimedEndpointJid: the normalized `agent.jid`, needed to authorize a self-registrant;
 * 3. manifestLimitFault: the documented manifest limits (tool count, schema size), checked
 *    before the expensive schema compilation;
 * 4. validateParsedManifest: the normative schema and every rule beyond it (protocol/manifest),
 *    then the canonical bytes and hash.
 *
 * Error mapping (#json-encoding, #errors, interp-11): I-JSON failures → not-acceptable,
 * limits → resource-constraint, syntax → bad-request, every other defect → not-acceptable.
 * Diagnostics name rules and JSON pointers, never values.
 */
import { JidError, normalizeBareJid } from '../../protocol/jid/index.ts';
import { canonicalBytes, canonicalDocument, type CanonicalDocument } from '../../protocol/json/canonical.ts';
import type { JsonLimits } from '../../protocol/json/json-limits.ts';
import { JsonRejection } from '../../protocol/json/json-rejection.ts';
import { isJsonObject, type JsonValue } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { validateManifest, type Manifest, type ManifestViolation } from '../../protocol/manifest/index.ts';
import { refuse, succeed, type Outcome, type RegistrationFault } from './registration-fault.ts';

/** The registration limits (documented in docs/gateway-config.md; defaults in config/limits.ts). */
export interface ManifestLimits {
  /** UTF-8 bytes of the submitted manifest text. */
  readonly manifestMaxBytes: number;
  /** RFC 8785 bytes of one tool's inputSchema or outputSchema. */
  readonly schemaMaxBytes: number;
  readonly jsonMaxDepth: number;
  readonly jsonMaxStringLength: number;
  readonly jsonMaxObjectMembers: number;
  readonly jsonMaxArrayItems: number;
  /** Tools in one manifest (the protocol maximum is 4096, #manifest). */
  readonly toolsPerManifest: number;
}

/** A validated manifest with the bytes and hash the registry stores. */
export interface AcceptedManifest {
  /** Normalized `agent.jid` (interp-25): the key registrations live under. */
  readonly endpointJid: string;
  readonly version: string;
  readonly manifest: Manifest;
  readonly document: CanonicalDocument;
}

function parseLimits(limits: ManifestLimits): Partial<JsonLimits> {
  return {
    maxBytes: limits.manifestMaxBytes,
    maxDepth: limits.jsonMaxDepth,
    maxStringLength: limits.jsonMaxStringLength,
    maxObjectMembers: limits.jsonMaxObjectMembers,
    maxArrayElements: limits.jsonMaxArrayItems,
  };
}

/**
 * Stage 1: the strict parse.
 *
 * registration-flow.ijson-before-hash, json-encoding.documented-limits: the strict I-JSON parse
 * under the documented limits, before anything is hashed or stored.
 */
export function parseManifestText(text: string | Uint8Array, limits: ManifestLimits): Outcome<JsonValue> {
  try {
    return succeed(parseStrictJson(text, parseLimits(limits)));
  } catch (error) {
    if (!(error instanceof JsonRejection)) throw error;
    const violation: ManifestViolation = {
      rule: `json:${error.rule}`,
      path: '',
      message: `the manifest is not acceptable JSON (${error.classification}: ${error.rule})`,
      line: error.line,
      column: error.column,
    };
    const reason = {
      ijson: 'json-ijson',
      syntax: 'json-syntax',
      limit: 'json-limit',
      encoding: 'json-encoding',
    } as const;
    return refuse(reason[error.classification], [violation]);
  }
}

/**
 * Stage 2: the endpoint the manifest claims. A missing or malformed `agent.jid` makes the
 * manifest invalid whoever sends it, so the violation is returned for a not-acceptable answer.
 */
export function claimedEndpointJid(
  value: JsonValue,
):
  | { readonly ok: true; readonly jid: string }
  | { readonly ok: false; readonly violation: ManifestViolation } {
  const agent = isJsonObject(value) ? value['agent'] : undefined;
  const jid = isJsonObject(agent) ? agent['jid'] : undefined;
  if (typeof jid !== 'string') {
    return {
      ok: false,
      violation: { rule: 'schema:required', path: '/agent/jid', message: 'agent.jid must be a string' },
    };
  }
  try {
    // namespaces.jid-comparison, namespaces.no-resourcepart: agent.jid is prepared as a bare JID
    // (RFC 7622); a resource is refused.
    return { ok: true, jid: normalizeBareJid(jid) };
  } catch (error) {
    if (!(error instanceof JidError)) throw error;
    return {
      ok: false,
      violation: { rule: `jid:${error.rule}`, path: '/agent/jid', message: error.message },
    };
  }
}

/**
 * Stage 3: the documented limits the protocol's own validation does not know.
 *
 * rules.resource-bounds: tool count and schema size, as documented.
 */
export function manifestLimitFault(value: JsonValue, limits: ManifestLimits): RegistrationFault | undefined {
  const tools = isJsonObject(value) ? value['tools'] : undefined;
  if (!Array.isArray(tools)) return undefined;
  const violations: ManifestViolation[] = [];
  if (tools.length > limits.toolsPerManifest) {
    violations.push({
      rule: 'limit:tools',
      path: '/tools',
      message: `this gateway accepts at most ${limits.toolsPerManifest} tools per manifest`,
    });
  }
  for (const [index, tool] of tools.entries()) {
    if (!isJsonObject(tool)) continue;
    for (const member of ['inputSchema', 'outputSchema']) {
      const schema = tool[member];
      if (schema === undefined) continue;
      if (canonicalBytes(schema).length > limits.schemaMaxBytes) {
        violations.push({
          rule: 'limit:schema-bytes',
          path: `/tools/${index}/${member}`,
          message: `a tool schema may take at most ${limits.schemaMaxBytes} bytes in canonical form`,
        });
      }
    }
  }
  return violations.length === 0 ? undefined : refuse('manifest-limit', violations).fault;
}

/** Schema complexity limits of protocol/tool-schema are limits too (#json-encoding, #security). */
function isLimitViolation(violation: ManifestViolation): boolean {
  return violation.rule === 'tool-schema:schema-too-complex';
}

/** Stage 4: full validation, then the canonical document. */
export async function validateParsedManifest(value: JsonValue): Promise<Outcome<AcceptedManifest>> {
  // registration-flow.validate-before-commit, manifest.required-members,
  // manifest.optional-members-accepted, manifest.https-uri-rules, manifest.tool-required-members,
  // manifest.tool-optional-members-accepted, manifest.tool-names-unique,
  // namespaces.tool-name-rules, namespaces.tool-name-no-extra-limits, namespaces.version-grammar,
  // schemas.valid-json-schema, schemas.input-object-root, schemas.same-document-refs,
  // schemas.required-vocabulary, schemas.unsupported-assertion, json-encoding.no-external-refs,
  // json-encoding.utf8-xml-legal, manifest.no-dereference: protocol/manifest checks the normative
  // schema and every rule beyond it (text XML cannot carry included), and fetches nothing.
  const validation = await validateManifest(value);
  if (!validation.ok) {
    // A manifest with real defects is invalid whatever else it exceeds; limits alone are limits.
    const onlyLimits = validation.violations.every(isLimitViolation);
    return refuse(onlyLimits ? 'manifest-limit' : 'manifest-invalid', validation.violations);
  }
  const { manifest, endpointJid } = validation;
  return succeed({
    endpointJid,
    version: manifest.agent.version,
    manifest,
    // manifest-retrieval.formatting-invisible: only the RFC 8785 bytes are hashed and stored.
    document: canonicalDocument(manifest as unknown as JsonValue),
  });
}

/**
 * The stages without an authorization step in between, for trusted local input (the fixture
 * world). Stage 2 is left to full validation, which reports every defect, not just the JID.
 */
export async function intakeManifest(
  text: string | Uint8Array,
  limits: ManifestLimits,
): Promise<Outcome<AcceptedManifest>> {
  const parsed = parseManifestText(text, limits);
  if (!parsed.ok) return parsed;
  const limitFault = manifestLimitFault(parsed.value, limits);
  if (limitFault !== undefined) return { ok: false, fault: limitFault };
  return validateParsedManifest(parsed.value);
}
