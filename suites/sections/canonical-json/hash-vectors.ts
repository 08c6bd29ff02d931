/**
 * Literal hash vectors (issue 14, item 7): manifests as the suite sends them, their RFC 8785
 * bytes written out by hand, and the sha-256 of those bytes committed as a literal. The expected
 * values never come from the suite's canonicalizer at run time, so a canonicalizer bug shared
 * by the suite and a gateway cannot make the two agree.
 *
 * The literals were computed once, outside this code base: the canonical texts below written by
 * hand per RFC 8785 (§3.2.2.3 number serialization, §3.2.2.2 string escaping, §3.2.3 sorting by
 * UTF-16 code units), then hashed with Python's hashlib (sha256 → base64). The spec's full
 * "Agent API manifest" example was canonicalized with Python's json module (its keys are ASCII,
 * its numbers small integers) and gives fFqw…; the K2/… value the spec's examples print belongs
 * to the minimal manifest (interp-01). hash-vectors.test.ts checks the literals again at test
 * time, never at run time.
 */

/** The spec's "Agent API manifest" example (#manifest), as RFC 8785 bytes. */
export const SPEC_FULL_MANIFEST_CANONICAL =
  '{"agent":{"description":"Provides weather forecasts.","jid":"weather@agents.example","name":"weather","title":"Weather Agent","vendor":"Example","version":"1.4.0"},"implementation":{"name":"example-weather","version":"3.2.1"},"manifestSpecVersion":"0","mcpProtocolVersion":"2025-11-25","tools":[{"annotations":{"destructiveHint":false,"idempotentHint":true,"openWorldHint":true,"readOnlyHint":true},"description":"Gets a forecast for one city.","execution":{"taskSupport":"optional"},"inputSchema":{"additionalProperties":false,"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"},"name":"forecast.get","outputSchema":{"properties":{"summary":{"type":"string"}},"required":["summary"],"type":"object"},"title":"Get Forecast","urn:xmpp:agent-api:0":{"approvalRequired":false,"defaultTimeoutSeconds":30,"maximumTimeoutSeconds":120,"requiredPermissions":["weather.read"],"supportsCancellation":true,"supportsProgress":true,"tags":["weather","forecast"]}}]}';

/** sha-256 of SPEC_FULL_MANIFEST_CANONICAL; it appears nowhere in the spec (interp-01). */
export const SPEC_FULL_MANIFEST_HASH = 'fFqwrKetRrAKF1IPjZ8z2G6O6OKLd5RwO0DG0RtyDhg=';

/** The spec's minimal manifest (the self-registration example) as RFC 8785 bytes. */
export const SPEC_MINIMAL_MANIFEST_CANONICAL =
  '{"agent":{"jid":"weather@agents.example","name":"weather","version":"1.4.0"},"manifestSpecVersion":"0","tools":[]}';

/** Printed by the spec's <registered/>, endpoint form, manifest and tool examples. */
export const SPEC_MINIMAL_MANIFEST_HASH = 'K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=';

/**
 * The minimal manifest as the spec's register-1 example carries it in <manifest/>: indented
 * across lines, members not in RFC 8785 order. Its canonical bytes are
 * SPEC_MINIMAL_MANIFEST_CANONICAL.
 */
export const SPEC_MINIMAL_MANIFEST_SENT =
  '\n      {"manifestSpecVersion":"0",\n       "agent":{"jid":"weather@agents.example",\n                "name":"weather","version":"1.4.0"},\n       "tools":[]}\n    ';

/** The JID and version the minimal manifest (and its literal hash) belong to. */
export const SPEC_MINIMAL_MANIFEST_JID = 'weather@agents.example';
export const SPEC_MINIMAL_MANIFEST_VERSION = '1.4.0';

/**
 * The endpoint the vectors are registered under, on the gateway's domain: a fixed JID and fixed
 * versions, because the hash covers both. `{domain}` is the gateway's JID.
 */
export const VECTOR_LOCALPART = 'agentconf-hash-vectors';

/** The domain the literal hashes were computed for: the reference SUT's component domain. */
export const VECTOR_LITERAL_DOMAIN = 'agents.example';

export interface HashVector {
  /** Kebab-case: what the vector traps. */
  readonly name: string;
  readonly version: string;
  /** The manifest as sent, with `{jid}` for the endpoint's JID: odd spellings, escapes, key order. */
  readonly sent: string;
  /** Its RFC 8785 bytes, written by hand, with `{jid}`. */
  readonly canonical: string;
  /** sha-256 (Base64) of `canonical` with `{jid}` = agentconf-hash-vectors@agents.example. */
  readonly hash: string;
}

export const HASH_VECTORS: readonly HashVector[] = [
  {
    // ECMAScript number serialization (RFC 8785 §3.2.2.3): 1.0 is 1, -0 is 0, exponents only
    // outside [1e-6, 1e21), a lower-case e with an explicit + sign, no trailing zeros, the
    // shortest digits that round-trip (2^70 has 22 digits, 17 of them printed). Every value is
    // exactly a double, so no reading of interp-10 lets a gateway refuse one.
    name: 'numbers',
    version: 'hash-numbers-1',
    sent: '{ "tools": [ { "inputSchema": { "type": "object", "properties": { "n": { "type": "number", "examples": [1.0, -0, 1e2, 953.67431640625e-9, 9.765625E-4, 1E21, 1180591620717411303424, 100.50, -1.5E+3, 0.000244140625e0] } } }, "name": "probe" } ], "agent": { "version": "hash-numbers-1", "name": "agentconf-hash", "jid": "{jid}" }, "manifestSpecVersion": "0" }',
    canonical:
      '{"agent":{"jid":"{jid}","name":"agentconf-hash","version":"hash-numbers-1"},"manifestSpecVersion":"0","tools":[{"inputSchema":{"properties":{"n":{"examples":[1,0,100,9.5367431640625e-7,0.0009765625,1e+21,1.1805916207174113e+21,100.5,-1500,0.000244140625],"type":"number"}},"type":"object"},"name":"probe"}]}',
    hash: 'hCJR6MqinP+6Udj91m4fn6iFrWJqbyr8CKFgbyTUOmw=',
  },
  {
    // String escaping (RFC 8785 §3.2.2.2): \u00e9 and \/ are written as the characters, only
    // " \ and C0 controls are escaped (the short forms where JSON has them, else \u00XX lower
    // case), U+2028/U+2029 and non-BMP characters stay raw.
    name: 'escapes',
    version: 'hash-escapes-1',
    sent: '{"manifestSpecVersion":"0","agent":{"jid":"{jid}","name":"agentconf-hash","version":"hash-escapes-1"},"tools":[{"name":"probe","description":"caf\\u00e9 \\u20AC \\/ \\u2028\\u2029 \\t\\n\\r\\b\\f \\u001F \\" \\\\ \\uD83D\\uDE00 <&>","inputSchema":{"type":"object"}}]}',
    canonical:
      '{"agent":{"jid":"{jid}","name":"agentconf-hash","version":"hash-escapes-1"},"manifestSpecVersion":"0","tools":[{"description":"caf\u00e9 \u20ac / \u2028\u2029 \\t\\n\\r\\b\\f \\u001f \\" \\\\ \u{1F600} <&>","inputSchema":{"type":"object"},"name":"probe"}]}',
    hash: '9ZFehFb/oCXBDFogMU/ftu32RFQPJ98pU5s5bnITQM0=',
  },
  {
    // Member order by UTF-16 code units (RFC 8785 §3.2.3): U+10000 (D800 DC00) sorts before
    // U+FB01, though its code point is larger; the empty name and a control character first;
    // sent in reverse order, the non-BMP name escaped.
    name: 'key-order',
    version: 'hash-keys-1',
    sent: '{"manifestSpecVersion":"0","agent":{"jid":"{jid}","name":"agentconf-hash","version":"hash-keys-1"},"tools":[{"name":"probe","inputSchema":{"type":"object","properties":{"\uFB01":{"type":"integer"},"\\uD800\\uDC00":{"type":"integer"},"\\u00e9":{"type":"integer"},"aa":{"type":"integer"},"a":{"type":"integer"},"Z":{"type":"integer"},"\\u001f":{"type":"integer"},"":{"type":"integer"}}}}]}',
    canonical:
      '{"agent":{"jid":"{jid}","name":"agentconf-hash","version":"hash-keys-1"},"manifestSpecVersion":"0","tools":[{"inputSchema":{"properties":{"":{"type":"integer"},"\\u001f":{"type":"integer"},"Z":{"type":"integer"},"a":{"type":"integer"},"aa":{"type":"integer"},"\u00e9":{"type":"integer"},"\u{10000}":{"type":"integer"},"\uFB01":{"type":"integer"}},"type":"object"},"name":"probe"}]}',
    hash: 'shC/7tVAkVmboyn5HY6EFgAJtPIHB2MKLC5AusZlUEk=',
  },
];

/**
 * Manifests no canonical form exists for (I-JSON, RFC 7493): refused with not-acceptable
 * (interp-11), never hashed.
 */
export const REFUSED_VECTORS: readonly {
  readonly name: string;
  readonly version: string;
  readonly sent: string;
}[] = [
  {
    name: 'a number beyond any double (1e400)',
    version: 'hash-refused-overflow-1',
    sent: '{"manifestSpecVersion":"0","agent":{"jid":"{jid}","name":"agentconf-hash","version":"hash-refused-overflow-1"},"tools":[{"name":"probe","inputSchema":{"type":"object","examples":[1e400]}}]}',
  },
  {
    name: 'a member name twice, once escaped ("\\u00e9" and "é")',
    version: 'hash-refused-duplicate-1',
    sent: '{"manifestSpecVersion":"0","agent":{"jid":"{jid}","name":"agentconf-hash","version":"hash-refused-duplicate-1"},"tools":[{"name":"probe","inputSchema":{"type":"object","properties":{"\\u00e9":{"type":"integer"},"\u00e9":{"type":"string"}}}}]}',
  },
];

/** `template` with the endpoint's JID in place of `{jid}`. */
export function fillVector(template: string, jid: string): string {
  return template.replaceAll('{jid}', jid);
}
