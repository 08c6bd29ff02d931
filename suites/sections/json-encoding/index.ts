/**
 * #json-encoding: JSON carried in XML. What the gateway serves (manifests and schemas) is one
 * strict JSON value, legal XML character data, with its media-type attribute, and markup and
 * control characters escaped so the canonical bytes survive; content XML cannot carry is
 * refused at registration (interp-12). The documented JSON limits (SUT config `limits`) are
 * enforced with resource-constraint, only once the sender is authorized, with a bounded error
 * that does not reflect the rejected JSON.
 *
 * The over-limit content sits in a tool's `_meta`, which no schema rule constrains, so the
 * limit is the only thing wrong with it. A documented limit whose probe an XMPP server cannot
 * carry in one stanza (Prosody takes 256 KiB from a C2S client) cannot be tested here.
 *
 * On the task side, through the conformance tools (docs/conformance-tools.md): arguments and
 * input that break I-JSON are refused with not-acceptable before admission or acceptance (the
 * ledger proves the tool never ran), whitespace inside strings survives arguments, input and
 * results byte for byte, and replays are compared on canonical bytes, not on the text sent.
 * External $ref targets, in a registered tool schema or in a tool's input request, point at a
 * canary listener that must never be contacted (json-encoding.no-external-refs).
 */
import { ProvisioningClient } from '../../../harness/provisioning/provisioning-client.ts';
import type { Element } from '@xmpp/xml';
import type { IqExchange } from '../../../harness/driver/index.ts';
import { normalizeBareJid } from '../../../protocol/jid/index.ts';
import { canonicalDocument, canonicalJson } from '../../../protocol/json/canonical.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../protocol/json/json-value.ts';
import { JsonRejection } from '../../../protocol/json/json-rejection.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import {
  FEATURE,
  MEDIA_TYPE_JSON,
  MEDIA_TYPE_SCHEMA_JSON,
  NODE_DIRECTORY,
  NS_AGENT_API,
} from '../../../protocol/namespaces.ts';
import {
  attributeOf,
  buildManifestRequest,
  type DefinedCondition,
  buildSchemaRequest,
  parseManifest,
  parseRegistered,
  parseSchema,
} from '../../../protocol/stanza/index.ts';
import type { SutLimits } from '../../../harness/sut/sut-config.ts';
import { defineSuite, type CaseDeclaration, type CaseId } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  expectNotReflected,
  expectParsed,
  expectResultPayload,
  expectStanzaError,
  expectThat,
  expectParsedResult,
  requirePositiveControl,
} from '../../framework/expect.ts';
import { CannotTell, MissingFixture, RequirementViolation } from '../../framework/verdicts.ts';
import { callerFor, traverse } from '../support/discovery.ts';
import { badManifest, minimalManifest } from '../support/manifests.ts';
import {
  adminFor,
  freshEndpoint,
  freshToken,
  freshVersion,
  provisionActive,
  registrantFor,
  registrationControl,
  unauthorizedConditions,
  withRestore,
  type Registrant,
} from '../support/provisioning.ts';
import { expectRefusals, INVALID_MANIFEST } from '../support/refusals.ts';
import {
  discoverableRegistrant,
  expectNoContact,
  readThroughDiscovery,
  withCanaryListener,
  type CanaryListener,
} from '../support/canary-listener.ts';
import { expectLedgerUntouched, freshLedgerKey, readLedger } from '../support/ledger.ts';
import { inputRequestId, terminalPayload } from '../support/task-events.ts';
import {
  expectAccepted,
  expectCancelAccepted,
  expectInputAccepted,
  expectTaskResult,
} from '../support/task-replies.ts';
import { TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { requireToolFeatures } from '../support/tool-features.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';
import { badInputCases } from './bad-input.ts';
import { rawComponentInputCases } from './raw-component-input.ts';
import { authorizeBeforeLimitsCases } from './authorize-before-limits.ts';
import { activateExtraToolVersion, registerWithExtraTool } from './extra-tool-version.ts';

/**
 * The largest registration this suite sends: below the 256 KiB Prosody accepts from a C2S
 * client, with room for the stanza around it. A bigger one would end the caller's stream.
 */
const MAX_PROBE_BYTES = 200 * 1024;

/** A diagnostic is "bounded" when the whole error reply stays this small. */
const MAX_ERROR_REPLY_BYTES = 4096;

/** The text must be one JSON value with nothing after it (the strict parser refuses trailing data). */
function expectOneJsonValue(text: string, requirement: RequirementId, what: string, replyXml: string): void {
  try {
    parseStrictJson(text, { maxBytes: Number.POSITIVE_INFINITY, maxDepth: Number.POSITIVE_INFINITY });
  } catch (error) {
    if (!(error instanceof JsonRejection)) throw error;
    throw new RequirementViolation(
      requirement,
      `${what}: one strict JSON value with nothing after it`,
      replyXml,
      `${requirement}: ${what} is not one JSON value (${error.rule})`,
    );
  }
}

function expectMediaType(payload: Element, expected: string, replyXml: string): void {
  expectThat(
    replyXml,
    'json-encoding.media-type-present',
    `<${payload.name} media-type='${expected}'>`,
    attributeOf(payload, 'media-type') === expected,
  );
}

/** The manifest of a tool-less probe endpoint, with `value` in its one tool's `_meta`. */
function limitProbe(jid: string, version: string, value: JsonValue): JsonObject {
  return {
    manifestSpecVersion: '0',
    agent: { jid, name: 'agentconf-limits', version },
    tools: [{ name: 'echo', inputSchema: { type: 'object' }, _meta: { 'agentconf.example/probe': value } }],
  };
}

interface LimitProbe {
  readonly limit: NumericLimit;
  /** What goes into `_meta` to exceed the documented `value`, carrying `canary`. */
  readonly build: (value: number, canary: string) => JsonValue;
  /** Builds the whole text instead, for the byte limit. */
  readonly text?: (value: number, canary: string, jid: string, version: string) => string;
}

/**
 * Nesting depth `value` + 2 counting the manifest object as 1 (tools, the tool and `_meta` are
 * 2 to 4): past the limit by at least one whichever level a gateway starts counting at.
 */
function nestedArrays(value: number, canary: string): JsonValue {
  let nested: JsonValue = [canary];
  for (let level = 1; level < value - 2; level += 1) nested = [nested];
  return nested;
}

const PROBES = {
  depth: { limit: 'jsonMaxDepth', build: nestedArrays },
  'string-length': {
    limit: 'jsonMaxStringLength',
    build: (value, canary) => `${canary}${'x'.repeat(value + 1 - canary.length)}`,
  },
  'object-members': {
    limit: 'jsonMaxObjectMembers',
    build: (value, canary) =>
      Object.fromEntries([
        [canary, 0],
        ...Array.from({ length: value }, (_, i) => [i.toString(36), 0]),
      ]) as JsonObject,
  },
  'array-items': {
    limit: 'jsonMaxArrayItems',
    build: (value, canary) => [canary, ...Array.from({ length: value }, () => 0)],
  },
  bytes: {
    limit: 'jsonMaxBytes',
    build: () => null,
    text: (value, canary, jid, version) => {
      const shell = JSON.stringify(limitProbe(jid, version, canary));
      // Padding inside the string: the text is exactly one byte over the limit.
      return shell.replace(
        `"${canary}"`,
        `"${canary}${'x'.repeat(Math.max(0, value + 1 - Buffer.byteLength(shell)))}"`,
      );
    },
  },
} satisfies Readonly<Record<string, LimitProbe>>;

/** The SUT limits that are one number (the per-operation rate limits are not). */
type NumericLimit = Exclude<keyof SutLimits, 'rateLimits' | 'principalRateLimits'>;

/** The documented limit a probe needs; cases without one cannot tell (docs/sut.md). */
function documented(context: CaseContext, limit: NumericLimit): number {
  const value = context.sut.limits?.[limit];
  if (value === undefined) throw new CannotTell(`the SUT config documents no ${limit}`);
  return value;
}

function probeText(probe: LimitProbe, value: number, canary: string, jid: string, version: string): string {
  const text =
    probe.text?.(value, canary, jid, version) ??
    JSON.stringify(limitProbe(jid, version, probe.build(value, canary)));
  if (Buffer.byteLength(text) > MAX_PROBE_BYTES) {
    throw new MissingFixture(
      `a manifest past the documented ${probe.limit} ${String(value)} takes ${String(Buffer.byteLength(text))} bytes: more than an XMPP server carries from a client in one stanza (${String(MAX_PROBE_BYTES)} bytes here), so the limit cannot be probed; configure and document a smaller one to have it tested`,
    );
  }
  return text;
}

function limitCase(id: CaseId<'json-encoding'>, probe: LimitProbe): CaseDeclaration<'json-encoding'> {
  return {
    id,
    requirements: ['json-encoding.documented-limits', 'json-encoding.no-reflection', 'rules.resource-bounds'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    features: [FEATURE.admin],
    interpretations: ['interp-42'],
    statement: `A manifest just past the documented ${probe.limit} gets resource-constraint from the administrator’s registration, with a small error that does not reflect the manifest — after the same manifest within every limit registered (the positive control) — and the same manifest within the limits, sent right after, gets no resource-constraint (no rate limit answered).`,
    run: async (context) =>
      withRestore(context, async (restorer) => {
        const value = documented(context, probe.limit);
        const admin = await adminFor(context);
        const { jid } = freshEndpoint(context, 'limits');
        const canary = `agentconfcanary${freshToken(context)}`;
        const text = probeText(probe, value, canary, jid, freshVersion(context));
        requirePositiveControl(
          await restorer.register(
            admin,
            jid,
            JSON.stringify(limitProbe(jid, freshVersion(context), 'within every limit')),
          ),
          `the administrator registering the same manifest within every limit for ${jid}`,
        );
        const exchange = await restorer.register(admin, jid, text);
        if (exchange.parsed.type === 'result') {
          throw new RequirementViolation(
            'json-encoding.documented-limits',
            `resource-constraint for a manifest past ${probe.limit} ${String(value)}`,
            exchange.reply.xml,
          );
        }
        expectStanzaError(exchange, 'json-encoding.documented-limits', 'resource-constraint', context);
        expectNotReflected(exchange, 'json-encoding.no-reflection', [canary], MAX_ERROR_REPLY_BYTES);
        // The same shape within every limit, right after: a resource-constraint for it too means a
        // rate limit may have answered the probe, which would otherwise pass for the JSON limit.
        const control = await restorer.register(
          admin,
          jid,
          JSON.stringify(limitProbe(jid, freshVersion(context), 'within every limit')),
        );
        if (control.parsed.type === 'error' && control.parsed.error.condition === 'resource-constraint') {
          throw new CannotTell(
            'a manifest within every limit got resource-constraint right after the probe: a rate limit may have answered both',
          );
        }
      }),
  };
}

/**
 * What goes into `_meta` to reach a documented limit exactly and no further, under every counting
 * convention the spec leaves open: ASCII only (code units, code points and bytes agree), and for
 * depth empty arrays (no scalar a gateway might count as a level), the manifest object counted as
 * level 1 (tools, the tool and `_meta` are 2 to 4), the largest count any convention gives.
 */
const AT_BOUND_CHUNK = 1024;

const AT_BOUND = {
  depth: {
    limit: 'jsonMaxDepth',
    build: (value) => {
      if (value < 5)
        throw new MissingFixture(
          `a documented jsonMaxDepth of ${String(value)} leaves no room inside a manifest`,
        );
      let nested: JsonValue = [];
      for (let level = 5; level < value; level += 1) nested = [nested];
      return nested;
    },
  },
  'string-length': { limit: 'jsonMaxStringLength', build: (value) => 'x'.repeat(value) },
  'object-members': {
    limit: 'jsonMaxObjectMembers',
    build: (value) => Object.fromEntries(Array.from({ length: value }, (_, i) => [i.toString(36), 0])),
  },
  'array-items': { limit: 'jsonMaxArrayItems', build: (value) => Array.from({ length: value }, () => 0) },
  bytes: {
    limit: 'jsonMaxBytes',
    build: () => null,
    // Padding in strings of at most AT_BOUND_CHUNK characters, so that no string limit is reached.
    text: (value, _canary, jid, version) => {
      const shell = JSON.stringify(limitProbe(jid, version, []));
      const padding = value - Buffer.byteLength(shell);
      if (padding < 0)
        throw new MissingFixture(
          `a documented jsonMaxBytes of ${String(value)} is smaller than a one-tool manifest`,
        );
      if (padding === 1) return shell.replace('[]', '[0]');
      // n strings of total length L take L + 3n - 1 bytes inside the brackets.
      const strings = Math.ceil((padding + 1) / (AT_BOUND_CHUNK + 3));
      let left = padding + 1 - 3 * strings;
      const items = Array.from({ length: strings }, () => {
        const length = Math.min(left, AT_BOUND_CHUNK);
        left -= length;
        return 'x'.repeat(length);
      });
      return shell.replace('[]', JSON.stringify(items));
    },
  },
} satisfies Readonly<Record<string, LimitProbe>>;

/**
 * The probe must be within every documented limit, the probed one included (our own strict parser,
 * which counts as the AT_BOUND conventions do): otherwise it reaches another bound too, or none.
 */
function expectWithinEveryLimit(context: CaseContext, probe: LimitProbe, text: string): void {
  const limits = context.sut.limits ?? {};
  try {
    parseStrictJson(text, {
      maxBytes: limits.jsonMaxBytes ?? Number.POSITIVE_INFINITY,
      maxDepth: limits.jsonMaxDepth ?? Number.POSITIVE_INFINITY,
      maxStringLength: limits.jsonMaxStringLength ?? Number.POSITIVE_INFINITY,
      maxObjectMembers: limits.jsonMaxObjectMembers ?? Number.POSITIVE_INFINITY,
      maxArrayElements: limits.jsonMaxArrayItems ?? Number.POSITIVE_INFINITY,
      maxValues: Number.POSITIVE_INFINITY,
    });
  } catch (error) {
    if (!(error instanceof JsonRejection)) throw error;
    throw new MissingFixture(
      `a manifest at the documented ${probe.limit} breaks another documented limit (${error.rule}): one bound cannot be reached alone with these limits`,
    );
  }
}

/** A manifest exactly at one documented limit registers: a limit is a bound, not a bound minus one. */
function atBoundCase(id: CaseId<'json-encoding'>, probe: LimitProbe): CaseDeclaration<'json-encoding'> {
  return {
    id,
    requirements: ['json-encoding.documented-limits'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    features: [FEATURE.admin],
    statement: `A manifest exactly at the documented ${probe.limit} (and within every other limit) registers from the administrator, after the same manifest well within every limit registered (the positive control); a refusal counts only when the manifest one below the bound then registers and the one at it is refused again (content, not a rate limit).`,
    run: async (context) =>
      withRestore(context, async (restorer) => {
        const value = documented(context, probe.limit);
        const admin = await adminFor(context);
        const { jid } = freshEndpoint(context, 'at-bound');
        const atBound = (): string => {
          const text = probeText(probe, value, '', jid, freshVersion(context));
          expectWithinEveryLimit(context, probe, text);
          return text;
        };
        // Accepted means the exact <registered/> of that manifest: its JID, version and hash.
        const expectRegistered = (exchange: IqExchange, text: string): void => {
          const manifest = parseStrictJson(text);
          const agent = isJsonObject(manifest) ? manifest['agent'] : undefined;
          const version = isJsonObject(agent) && typeof agent['version'] === 'string' ? agent['version'] : '';
          const { hash } = canonicalDocument(manifest);
          const registered = expectParsedResult(
            exchange,
            'json-encoding.documented-limits',
            NS_AGENT_API,
            'registered',
            parseRegistered,
          );
          expectThat(
            exchange.reply.xml,
            'json-encoding.documented-limits',
            `a manifest at ${probe.limit} ${String(value)} registered: <registered jid='${jid}' version='${version}'> with hash ${hash.value}`,
            normalizeBareJid(registered.jid) === normalizeBareJid(jid) &&
              registered.version === version &&
              registered.hash.value === hash.value,
          );
        };
        requirePositiveControl(
          await restorer.register(
            admin,
            jid,
            JSON.stringify(limitProbe(jid, freshVersion(context), 'within every limit')),
          ),
          `the administrator registering the same manifest within every limit for ${jid}`,
        );
        const firstText = atBound();
        const first = await restorer.register(admin, jid, firstText);
        if (first.parsed.type === 'result') {
          expectRegistered(first, firstText);
          return;
        }
        // A rate limit refuses whatever the content; the bound refuses only the document at it.
        const below = await restorer.register(
          admin,
          jid,
          probeText(probe, value - 1, '', jid, freshVersion(context)),
        );
        if (below.parsed.type === 'error') {
          throw new CannotTell(
            `the manifests at ${probe.limit} ${String(value)} and one below it were both refused (<${first.parsed.error.condition}/>, <${below.parsed.error.condition}/>): a rate limit or another rule may have answered both`,
          );
        }
        const again = await restorer.register(admin, jid, atBound());
        if (again.parsed.type === 'result') {
          throw new CannotTell(
            `the manifest at ${probe.limit} ${String(value)} was refused once, then registered`,
          );
        }
        throw new RequirementViolation(
          'json-encoding.documented-limits',
          `a manifest exactly at the documented ${probe.limit} ${String(value)} registered (a limit bounds what is accepted: at it is within it)`,
          again.reply.xml,
          `json-encoding.documented-limits: the manifest at ${probe.limit} ${String(value)} was refused twice (<${again.parsed.error.condition}/>) while the one below it registered`,
        );
      }),
  };
}

/** A schema whose properties and definitions reference documents on the canary listener only. */
function externalRefSchema(canary: CanaryListener): JsonObject {
  return {
    type: 'object',
    properties: {
      remote: { $ref: canary.url('https', 'schema.json') },
      pointer: { $ref: canary.url('http', 'defs.json#/$defs/thing') },
      nested: { type: 'array', items: { $ref: canary.url('https', 'item.json') } },
    },
  };
}

/**
 * Invokes the tool whose schema $refs the canary; true when the task was admitted. It then
 * settles (no runtime knows the tool), and its version stays registered, inactive, while the
 * task is retained: a version a retained task pins is not removed.
 */
async function invokeRemoteRefTool(tasks: TaskSession): Promise<boolean> {
  const { invoke, exchange } = await tasks.invoke('agentconf.remote', {
    remote: { any: 'thing' },
    pointer: 1,
    nested: [true],
  });
  if (exchange.parsed.type === 'error') return false;
  const { taskId } = expectAccepted(exchange, 'json-encoding.no-external-refs', invoke);
  await tasks.awaitSettled(taskId);
  const { jid, version } = tasks.target;
  tasks.caller.transcript.note(
    `${jid} ${version} stays registered (inactive) while task ${taskId} is retained`,
  );
  return true;
}

/**
 * JSON texts with one I-JSON violation each (RFC 8785's prerequisites, interp-10): `wrap` puts
 * the offending value where the request carries JSON.
 */
function ijsonViolations(wrap: (value: string) => string): readonly { what: string; text: string }[] {
  return [
    { what: 'a duplicate member name', text: wrap('{"probe":1,"probe":2}') },
    { what: 'a lone surrogate escape', text: wrap('{"probe":"\\ud800"}') },
    { what: 'a number no double can hold', text: wrap('{"probe":1e400}') },
  ];
}

/**
 * Whitespace a careless consumer trims or collapses: leading, doubled and trailing spaces,
 * no-break and ideographic spaces, and tab, LF and CR (which JSON.stringify sends escaped).
 */
const SPACED = '  two  spaces,\u00a0no-break,\u2003em,\u3000ideographic,\ttab,\nLF,\r\nCRLF  ';

/** Two bytes, three bytes, four bytes (a surrogate pair in UTF-16), and one ASCII byte. */
const MULTIBYTE_UNIT = '\u00e9\u65e5\u{1f99c}\u00e9\u65e5\u{1f99c}\u00e9\u65e5\u{1f99c}a';

/**
 * Strings of MULTIBYTE_UNIT summing to about 100 KB of UTF-8 (or to a documented jsonMaxBytes
 * less room for the rest of the arguments), each within a documented jsonMaxStringLength in
 * whatever unit the gateway counts (the spec names none): a string's UTF-8 bytes, the largest
 * count, stay within it.
 */
function multibyteStrings(maxBytes: number | undefined, maxStringLength: number | undefined): string[] {
  const unitBytes = Buffer.byteLength(MULTIBYTE_UNIT);
  const totalBytes = Math.min(100_000, (maxBytes ?? Infinity) - 4_096);
  const perString = Math.max(1, Math.floor(Math.min(16_384, maxStringLength ?? Infinity) / unitBytes));
  const units = Math.max(1, Math.floor(totalBytes / unitBytes));
  const strings: string[] = [];
  for (let left = units; left > 0; left -= perString)
    strings.push(MULTIBYTE_UNIT.repeat(Math.min(left, perString)));
  return strings;
}

/** Where two long texts first differ, with a little of each around it. */
function differenceAt(got: string, expected: string): string {
  let index = 0;
  while (index < got.length && got[index] === expected[index]) index += 1;
  if (index === got.length && got.length === expected.length)
    return `${String(got.length)} characters, identical`;
  const around = (text: string): string => JSON.stringify(text.slice(Math.max(0, index - 12), index + 12));
  return `first difference at character ${String(index)} of ${String(got.length)}: got ${around(got)}, expected ${around(expected)}`;
}

export const jsonEncodingSuite = defineSuite('json-encoding', 'JSON Payload Encoding', [
  {
    id: 'json-encoding.served-json',
    requirements: [
      'json-encoding.single-json-value',
      'json-encoding.media-type-present',
      'json-encoding.utf8-xml-legal',
    ],
    profiles: ['tool-discovery', 'task-execution'],
    level: 'MUST',
    statement:
      'Every active manifest in the local directory, and its first tool’s input schema, comes as one strict JSON value in legal XML, in an element carrying its media-type (application/json, application/schema+json).',
    run: async (context) => {
      const caller = await callerFor(context, 'local');
      const { items } = await traverse(
        caller,
        context.sut.gatewayJid,
        NODE_DIRECTORY,
        50,
        'json-encoding.single-json-value',
      );
      if (items.length === 0) {
        throw new MissingFixture('the local directory is empty: give the local caller an endpoint to see');
      }
      await Promise.all(
        items.map(async ({ jid }) => {
          const exchange = await caller.exchangeIq(jid, 'get', buildManifestRequest({}));
          const payload = expectResultPayload(
            exchange,
            'json-encoding.single-json-value',
            NS_AGENT_API,
            'manifest',
          );
          expectMediaType(payload, MEDIA_TYPE_JSON, exchange.reply.xml);
          const manifest = expectParsed(
            payload,
            'json-encoding.single-json-value',
            parseManifest,
            exchange.reply.xml,
          );
          expectOneJsonValue(
            manifest.json,
            'json-encoding.single-json-value',
            `the manifest of ${jid}`,
            exchange.reply.xml,
          );
          const value = parseStrictJson(manifest.json, { maxBytes: Number.POSITIVE_INFINITY });
          const tools = isJsonObject(value) ? value['tools'] : undefined;
          const first: JsonValue | undefined = Array.isArray(tools) ? tools[0] : undefined;
          const tool = isJsonObject(first) ? first['name'] : undefined;
          if (typeof tool !== 'string') return;
          const request = buildSchemaRequest({
            tool,
            version: manifest.version,
            direction: 'input',
            manifestHash: manifest.hash,
          });
          const schemaExchange = await caller.exchangeIq(jid, 'get', request);
          const schemaPayload = expectResultPayload(
            schemaExchange,
            'json-encoding.single-json-value',
            NS_AGENT_API,
            'schema',
          );
          expectMediaType(schemaPayload, MEDIA_TYPE_SCHEMA_JSON, schemaExchange.reply.xml);
          const schema = expectParsed(
            schemaPayload,
            'json-encoding.single-json-value',
            parseSchema,
            schemaExchange.reply.xml,
          );
          expectOneJsonValue(
            schema.json,
            'json-encoding.single-json-value',
            `the input schema of ${jid} ${tool}`,
            schemaExchange.reply.xml,
          );
        }),
      );
    },
  },
  {
    id: 'json-encoding.producer-escaping',
    requirements: ['json-encoding.producer-escaping', 'json-encoding.utf8-xml-legal'],
    profiles: ['tool-discovery', 'task-execution'],
    level: 'MUST',
    features: [FEATURE.admin],
    interpretations: ['interp-12'],
    statement:
      'A manifest whose strings hold XML markup (<, &, ]]>, quotes), tab, line feed, a BEL control character and astral characters is served as exactly its canonical bytes: markup escaped for XML, controls JSON-escaped (the endpoint is provisioned for the case and removed after it).',
    run: async (context) =>
      withRestore(context, async (restorer) => {
        const admin = await adminFor(context);
        const { jid } = freshEndpoint(context, 'escaping');
        const version = freshVersion(context);
        const manifest: JsonObject = {
          manifestSpecVersion: '0',
          agent: {
            jid,
            name: 'agentconf-escaping',
            title: '<b>Tom & "Jerry"</b>',
            description: "Markup <x a='1'/> &amp; ]]> and\ttab\nline\u0007bell \u{1d11e} é",
            version,
          },
          tools: [{ name: 'echo', inputSchema: { type: 'object', description: '</json><json>{}' } }],
        };
        const { bytes } = canonicalDocument(manifest);
        await provisionActive(restorer, admin, jid, version, manifest);
        const caller = await context.callers.local();
        const exchange = await caller.exchangeIq(jid, 'get', buildManifestRequest({ version }));
        if (exchange.parsed.type === 'error') {
          throw new MissingFixture(
            `the local caller may not retrieve the provisioned ${jid}: the deployment must show endpoints the administrator provisions to local callers for this case to read one back`,
          );
        }
        const served = expectParsedResult(
          exchange,
          'json-encoding.producer-escaping',
          NS_AGENT_API,
          'manifest',
          parseManifest,
        );
        expectThat(
          exchange.reply.xml,
          'json-encoding.producer-escaping',
          `the canonical bytes, after XML character extraction:\n${bytes.toString('utf8')}`,
          Buffer.from(served.json, 'utf8').equals(bytes),
        );
      }),
  },
  {
    id: 'json-encoding.unservable-character-refused',
    requirements: ['json-encoding.utf8-xml-legal', 'registration-flow.validate-before-commit'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-11', 'interp-12'],
    statement:
      'A manifest holding U+FFFF (valid JSON, but its canonical bytes cannot be XML character data) is refused at registration and not registered.',
    run: async (context) => {
      await expectRefusals(context, 'json-encoding.utf8-xml-legal', 'unservable', [
        {
          label: 'U+FFFF in agent.description',
          text: (jid, version) => badManifest('value.unservable-character', jid, version),
        },
      ]);
    },
  },
  {
    id: 'json-encoding.trailing-data-refused',
    requirements: ['json-encoding.single-json-value', 'registration-flow.validate-before-commit'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-11'],
    statement:
      'A <manifest/> whose text is a valid manifest followed by a second JSON value, or by a stray character, is refused and not registered (trailing white space alone is fine: registration-flow.version-immutable registers such a text).',
    run: async (context) => {
      // A self-registrant's claim cannot be read from text that is not JSON: unauthorized first is fine.
      const conditions = (registrant: Registrant): readonly DefinedCondition[] =>
        registrant.kind === 'self' ? [...INVALID_MANIFEST, 'forbidden'] : INVALID_MANIFEST;
      await expectRefusals(context, 'json-encoding.single-json-value', 'trailing', [
        {
          label: 'a second JSON value after it',
          text: (jid, version) => `${JSON.stringify(minimalManifest(jid, version))} {}`,
          conditions,
        },
        {
          label: 'a stray character after it',
          text: (jid, version) => `${JSON.stringify(minimalManifest(jid, version))}\nx`,
          conditions,
        },
      ]);
    },
  },
  limitCase('json-encoding.limit-depth', PROBES.depth),
  limitCase('json-encoding.limit-string-length', PROBES['string-length']),
  limitCase('json-encoding.limit-object-members', PROBES['object-members']),
  limitCase('json-encoding.limit-array-items', PROBES['array-items']),
  limitCase('json-encoding.limit-bytes', PROBES.bytes),
  atBoundCase('json-encoding.at-limit-depth', AT_BOUND.depth),
  atBoundCase('json-encoding.at-limit-string-length', AT_BOUND['string-length']),
  atBoundCase('json-encoding.at-limit-object-members', AT_BOUND['object-members']),
  atBoundCase('json-encoding.at-limit-array-items', AT_BOUND['array-items']),
  atBoundCase('json-encoding.at-limit-bytes', AT_BOUND.bytes),
  {
    id: 'json-encoding.authorize-before-limits',
    requirements: ['json-encoding.authorize-before-limits', 'errors.no-payload-echo'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-24', 'interp-42'],
    statement:
      'Senders without registration authority — a local account claiming a virtual endpoint, the self-registrant claiming another JID, federated accounts claiming their own — get their usual refusal for a manifest past a documented limit, never resource-constraint; echoing the manifest in that refusal is only warned about (#errors: a SHOULD, since #json-encoding forbids the reflection only in a rejection for a limit).',
    run: async (context) =>
      withRestore(context, async (restorer) => {
        const [name, probe] =
          Object.entries(PROBES).find(
            ([, candidate]) => context.sut.limits?.[candidate.limit] !== undefined,
          ) ?? [];
        if (name === undefined || probe === undefined)
          throw new CannotTell('the SUT config documents no JSON limit');
        const value = documented(context, probe.limit);
        // The positive control: a sender with the authority registers a manifest within the limits.
        await registrationControl(context, restorer, await registrantFor(context, 'authorized'));
        const senders = [
          { caller: await context.callers.local(), claim: freshEndpoint(context, 'unauthorized').jid },
          { caller: await context.callers.registrant(), claim: freshEndpoint(context, 'unauthorized').jid },
          { caller: await context.callers.remote(), claim: undefined },
          { caller: await context.callers.denied(), claim: undefined },
        ];
        for (const { caller, claim } of senders) {
          const jid = claim ?? caller.bareJid;
          const canary = `agentconfcanary${freshToken(context)}`;
          const text = probeText(probe, value, canary, jid, freshVersion(context));
          const exchange = await restorer.register(
            new ProvisioningClient(caller, context.sut.gatewayJid),
            jid,
            text,
          );
          if (exchange.parsed.type === 'error' && exchange.parsed.error.condition === 'resource-constraint') {
            // Judged only when the same sender's manifest within the limits is refused otherwise:
            // then the content decided, and no rate limit answered.
            const within = await restorer.register(
              new ProvisioningClient(caller, context.sut.gatewayJid),
              jid,
              JSON.stringify(limitProbe(jid, freshVersion(context), 'within every limit')),
            );
            if (within.parsed.type !== 'error' || within.parsed.error.condition === 'resource-constraint') {
              throw new CannotTell(
                `${caller.bareJid} got resource-constraint for ${jid} past ${probe.limit} and ${within.parsed.type === 'error' ? 'again' : 'a result'} within the limits: a rate limit may have answered`,
              );
            }
            throw new RequirementViolation(
              'json-encoding.authorize-before-limits',
              `${caller.bareJid} may not register ${jid}: its refusal comes before any limit (<${unauthorizedConditions(context).join('/> or <')}/>)`,
              exchange.reply.xml,
              `json-encoding.authorize-before-limits: resource-constraint for a sender without the authority to register ${jid}`,
            );
          }
          expectThat(
            exchange.reply.xml,
            'json-encoding.authorize-before-limits',
            `a refusal of ${caller.bareJid} registering ${jid}`,
            exchange.parsed.type === 'error',
          );
          // Any other refusal keeps the limit hidden; the strict answer is the authorization failure.
          const condition = exchange.parsed.type === 'error' ? exchange.parsed.error.condition : undefined;
          if (condition !== undefined && !unauthorizedConditions(context).includes(condition)) {
            context.warn(
              'json-encoding.authorize-before-limits',
              `${caller.bareJid} registering ${jid} past ${probe.limit} got <${condition}/> rather than an authorization refusal (interp-24)`,
            );
          }
          // The refusal is for authority, not for a limit: #json-encoding's MUST NOT reflect
          // covers rejections because a limit is exceeded; here #errors' SHOULD omit applies.
          try {
            expectNotReflected(exchange, 'errors.no-payload-echo', [canary], MAX_ERROR_REPLY_BYTES);
          } catch (error) {
            if (!(error instanceof RequirementViolation)) throw error;
            context.warn(
              'errors.no-payload-echo',
              `the refusal of ${caller.bareJid} echoes the rejected manifest`,
            );
          }
        }
      }),
  },
  ...authorizeBeforeLimitsCases,
  {
    id: 'json-encoding.ijson-arguments-refused',
    requirements: ['json-encoding.ijson-rejection'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-10', 'interp-11'],
    statement:
      'Arguments with a duplicate member name, a lone surrogate escape or a number beyond any double (1e400) are refused with not-acceptable and no task is admitted: the tool never runs (its ledger key stays at 0).',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const key = freshLedgerKey(context, 'json-encoding.ijson');
      const argumentsWith = (ledgerKey: string, value: string): string =>
        `{"ledgerKey":${JSON.stringify(ledgerKey)},"steps":[{"complete":{"structuredContent":${value}}}]}`;
      // The positive control: the same invocation with I-JSON arguments (another ledger key) is admitted.
      const control = await tasks.invoke('script', null, {
        argumentsJson: argumentsWith(freshLedgerKey(context, 'json-encoding.ijson-control'), '{"probe":1}'),
      });
      requirePositiveControl(control.exchange, `${target.jid} script with I-JSON arguments`);
      const violations = ijsonViolations((value) => argumentsWith(key, value));
      for (const { what, text } of violations) {
        const { exchange } = await tasks.invoke('script', null, {
          argumentsJson: text,
        });
        if (exchange.parsed.type === 'result') {
          throw new RequirementViolation(
            'json-encoding.ijson-rejection',
            `<not-acceptable/> for arguments with ${what}`,
            exchange.reply.xml,
            `json-encoding.ijson-rejection: arguments with ${what} were admitted`,
          );
        }
        expectStanzaError(exchange, 'json-encoding.ijson-rejection', 'not-acceptable', context);
      }
      await expectLedgerUntouched(
        tasks,
        key,
        'json-encoding.ijson-rejection',
        'the ledger key never incremented (no execution)',
      );
    },
  },
  {
    id: 'json-encoding.ijson-input-refused',
    requirements: ['json-encoding.ijson-rejection'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    interpretations: ['interp-10', 'interp-11'],
    statement:
      'Input with a duplicate member name, a lone surrogate escape or 1e400 is refused with not-acceptable and not accepted: the request stays pending, a valid answer is then accepted, and the tool sees only that answer.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      await requireToolFeatures(tasks, 'script', ['input']);
      const { accepted } = await tasks.start('script', {
        steps: [
          { input: { question: 'Anything?', inputSchema: { type: 'object' }, expiresInMs: 60_000 } },
          { complete: { echoInputs: true } },
        ],
      });
      const asked = await tasks.awaitEvent(accepted.taskId, 'input_required');
      const requestId = inputRequestId(asked);
      const revision = asked.event.revision;
      for (const { what, text } of ijsonViolations((value) => value)) {
        const exchange = await tasks.provideInput(accepted.taskId, requestId, revision, text);
        if (exchange.parsed.type === 'result') {
          throw new RequirementViolation(
            'json-encoding.ijson-rejection',
            `<not-acceptable/> for input with ${what}`,
            exchange.reply.xml,
            `json-encoding.ijson-rejection: input with ${what} was accepted`,
          );
        }
        expectStanzaError(exchange, 'json-encoding.ijson-rejection', 'not-acceptable', context);
      }
      const answer = { probe: 'valid' };
      expectInputAccepted(
        await tasks.provideInput(accepted.taskId, requestId, revision, answer),
        'json-encoding.ijson-rejection',
      );
      await tasks.expectCompletedWithInputs(
        accepted.taskId,
        [answer],
        'json-encoding.ijson-rejection',
        'completed with only the valid answer',
      );
    },
  },
  {
    id: 'json-encoding.string-whitespace-preserved',
    requirements: ['json-encoding.string-whitespace-preserved'],
    profiles: ['task-execution'],
    level: 'MUST',
    statement:
      'Strings full of whitespace (leading, doubled and trailing spaces, no-break and ideographic spaces, tab, LF, CR) in the arguments come back unchanged in the completed event and in <task-result/>, as text content, structured content, a member name and the summary.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const spaced = SPACED;
      const result = {
        content: [{ type: 'text', text: spaced }],
        structuredContent: { value: spaced, [spaced]: [spaced] },
      };
      const { accepted } = await tasks.start('script', {
        steps: [{ complete: { ...result, summary: spaced } }],
      });
      const history = await tasks.awaitSettled(accepted.taskId);
      const expected = canonicalJson({ result, summary: spaced });
      const last = history.at(-1);
      expectThat(
        last?.stanza.xml ?? '',
        'json-encoding.string-whitespace-preserved',
        `a completed event carrying the strings unchanged: ${expected}`,
        canonicalJson(terminalPayload(history).payload) === expected,
      );
      const exchange = await tasks.result(accepted.taskId);
      const stored = expectTaskResult(exchange, 'json-encoding.string-whitespace-preserved');
      expectThat(
        exchange.reply.xml,
        'json-encoding.string-whitespace-preserved',
        `<task-result/> carrying the strings unchanged: ${expected}`,
        canonicalJson(parseStrictJson(stored.json)) === expected,
      );
    },
  },
  {
    id: 'json-encoding.multibyte-across-reads',
    requirements: ['json-encoding.utf8-xml-legal'],
    profiles: ['task-execution'],
    level: 'MUST',
    statement:
      'Arguments of about 100 KB made almost only of 2-, 3- and 4-byte UTF-8 characters (less when the SUT file documents a lower jsonMaxBytes) come back unchanged in the completed event and in <task-result/>: a stanza that large arrives in several socket reads on every link, and a reader that decodes each read on its own turns the characters cut at their ends into U+FFFD.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const values = multibyteStrings(
        context.sut.limits?.jsonMaxBytes,
        context.sut.limits?.jsonMaxStringLength,
      );
      // The result spelled out whole: the comparison then leaves nothing to the gateway's defaults.
      const result = { content: [{ type: 'text', text: 'multi-byte' }], structuredContent: { values } };
      const steps = [{ complete: result }];
      const started = await tasks.invoke('script', { steps });
      if (started.exchange.parsed.type === 'error' && context.sut.limits?.jsonMaxBytes === undefined) {
        throw new CannotTell(
          `the gateway refused ${String(Buffer.byteLength(started.invoke.argumentsJson))} bytes of arguments (${started.exchange.parsed.error.condition}) and the SUT config documents no jsonMaxBytes`,
        );
      }
      const accepted = expectAccepted(started.exchange, 'json-encoding.utf8-xml-legal', started.invoke);
      const history = await tasks.awaitSettled(accepted.taskId);
      const expected = canonicalJson({ result });
      const event = canonicalJson(terminalPayload(history).payload);
      expectThat(
        differenceAt(event, expected),
        'json-encoding.utf8-xml-legal',
        'a completed event carrying the multi-byte strings unchanged',
        event === expected,
      );
      const exchange = await tasks.result(accepted.taskId);
      const stored = canonicalJson(
        parseStrictJson(expectTaskResult(exchange, 'json-encoding.utf8-xml-legal').json),
      );
      expectThat(
        differenceAt(stored, expected),
        'json-encoding.utf8-xml-legal',
        '<task-result/> carrying the multi-byte strings unchanged',
        stored === expected,
      );
    },
  },
  {
    id: 'json-encoding.string-whitespace-in-input',
    requirements: ['json-encoding.string-whitespace-preserved'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    statement:
      'An answer whose strings are full of whitespace reaches the tool unchanged: the tool echoes it back byte for byte, in a member name and in values.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      await requireToolFeatures(tasks, 'script', ['input']);
      const spaced = SPACED;
      const { accepted } = await tasks.start('script', {
        steps: [
          { input: { question: 'Say it with spaces', inputSchema: { type: 'object' }, expiresInMs: 60_000 } },
          { complete: { echoInputs: true } },
        ],
      });
      const asked = await tasks.awaitEvent(accepted.taskId, 'input_required');
      const requestId = inputRequestId(asked);
      const answer = { [spaced]: spaced, list: [spaced, ` ${spaced} `] };
      expectInputAccepted(
        await tasks.provideInput(accepted.taskId, requestId, asked.event.revision, answer),
        'json-encoding.string-whitespace-preserved',
      );
      await tasks.expectCompletedWithInputs(
        accepted.taskId,
        [answer],
        'json-encoding.string-whitespace-preserved',
        'the answer echoed unchanged',
      );
    },
  },
  {
    id: 'json-encoding.canonical-replay-comparison',
    requirements: ['json-encoding.canonical-replay-comparison', 'invocation.replay-same-task'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-10', 'interp-28'],
    statement:
      'An invocation repeated with the same request ID and the same arguments spelled differently — other member order and whitespace, numbers as 1e2 and 10.0, strings with \\u escapes and an escaped solidus — returns the original acceptance, and the tool runs once.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const key = JSON.stringify(freshLedgerKey(context, 'json-encoding.replay'));
      const spellings = [
        `{"ledgerKey":${key},"steps":[{"wait":{"ms":100}},{"complete":{"structuredContent":{"value":"é/","n":10}}}]}`,
        `{ "steps" : [ { "wait" : { "ms" : 100 } } , { "complete" : { "structuredContent" : { "n" : 10 , "value" : "é/" } } } ] ,\n\t"ledgerKey" : ${key} }`,
        `{"ledgerKey":${key},"steps":[{"wait":{"ms":1e2}},{"complete":{"structuredContent":{"value":"é/","n":10.0}}}]}`,
        `{"ledgerKey":${key},"steps":[{"wait":{"ms":100}},{"complete":{"structuredContent":{"value":"\\u00e9\\/","n":1.0E1}}}]}`,
      ];
      const [first, ...others] = spellings;
      if (first === undefined) return;
      const original = await tasks.start('script', null, { argumentsJson: first });
      for (const text of others) {
        const replay = await tasks.invoke('script', null, {
          requestId: original.invoke.requestId,
          argumentsJson: text,
        });
        const accepted = expectAccepted(
          replay.exchange,
          'json-encoding.canonical-replay-comparison',
          replay.invoke,
        );
        expectThat(
          replay.exchange.reply.xml,
          'json-encoding.canonical-replay-comparison',
          `the original acceptance (task-id='${original.accepted.taskId}' created='${original.accepted.created.text}') for the same canonical arguments spelled\n${text}`,
          accepted.taskId === original.accepted.taskId &&
            accepted.created.text === original.accepted.created.text,
        );
      }
      await tasks.awaitSettled(original.accepted.taskId);
      const count = await readLedger(tasks, JSON.parse(key) as string, 'invocation.replay-same-task');
      expectThat(
        `count ${String(count)}`,
        'invocation.replay-same-task',
        'the ledger key incremented once (one execution)',
        count === 1,
      );
    },
  },
  {
    id: 'json-encoding.no-external-refs-registered',
    requirements: ['json-encoding.no-external-refs'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    statement:
      'A tool input schema whose $refs point at a canary listener on this machine is registered or refused — either is allowed — and, when registered and activated, read through discovery and schema retrieval; nothing ever connects to the listener (it can only catch a gateway on this machine).',
    run: (context) =>
      withRestore(context, (restorer) =>
        withCanaryListener(async (canary) => {
          const registrant = await discoverableRegistrant(context, 'extref');
          // The positive control: the same registrant registers a manifest without external $refs.
          await registrationControl(context, restorer, registrant);
          const version = freshVersion(context);
          const manifest = minimalManifest(registrant.jid, version) as JsonObject & { tools: JsonObject[] };
          manifest.tools = [{ name: 'echo', inputSchema: externalRefSchema(canary) }];
          const registered = await restorer.register(
            registrant.provisioning,
            registrant.jid,
            JSON.stringify(manifest),
          );
          if (registered.parsed.type === 'result' && registrant.kind === 'admin') {
            const { hash } = canonicalDocument(manifest);
            const activated = await registrant.provisioning.activate(registrant.jid, version, hash);
            if (activated.parsed.type === 'result') {
              const caller = await context.callers.local();
              await readThroughDiscovery(caller, registrant.jid, version, ['echo'], true);
              await caller.exchangeIq(
                registrant.jid,
                'get',
                buildSchemaRequest({ tool: 'echo', version, direction: 'input', manifestHash: hash }),
              );
            }
          }
          expectNoContact(
            canary,
            'json-encoding.no-external-refs',
            'external $ref targets in a registered input schema',
          );
        }),
      ),
  },
  {
    id: 'json-encoding.no-external-refs-input',
    requirements: ['json-encoding.no-external-refs'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    statement:
      'A tool that asks for input under a schema whose $refs point at a canary listener on this machine gets its request refused (the task fails) or issued; an answer is then refused or accepted — either is allowed — and nothing ever connects to the listener.',
    run: (context) =>
      withCanaryListener(async (canary) => {
        const target = conformanceTarget(context);
        const caller = await context.callers.local();
        const tasks = new TaskSession(context, caller, target);
        await requireToolFeatures(tasks, 'script', ['input', 'cancel']);
        const { accepted } = await tasks.start('script', {
          steps: [
            {
              input: {
                question: 'Remote schema?',
                inputSchema: externalRefSchema(canary),
                expiresInMs: 60_000,
              },
            },
            { complete: { echoInputs: true } },
          ],
        });
        const next = await tasks.awaitInputOrTerminal(accepted.taskId);
        if (next.event.type === 'input_required') {
          const answer = await tasks.provideInput(
            accepted.taskId,
            inputRequestId(next),
            next.event.revision,
            {
              remote: { any: 'thing' },
              pointer: 1,
              nested: [true],
            },
          );
          if (answer.parsed.type === 'error') {
            expectCancelAccepted(
              await tasks.cancel(accepted.taskId, next.event.revision),
              'json-encoding.no-external-refs',
            );
          }
        }
        await tasks.awaitSettled(accepted.taskId);
        expectNoContact(
          canary,
          'json-encoding.no-external-refs',
          'external $ref targets in an input request schema',
        );
      }),
  },
  {
    id: 'json-encoding.no-external-refs-invoke',
    requirements: ['json-encoding.no-external-refs'],
    profiles: ['task-execution'],
    level: 'MUST',
    features: [FEATURE.admin],
    statement:
      'A version of the conformance endpoint with one more tool, whose input schema $refs documents on a canary listener on this machine, is registered or refused — either is allowed; when registered and activated, an invocation of that tool is admitted or refused — either is allowed — and nothing ever connects to the listener, neither at registration nor while arguments are validated.',
    run: (context) =>
      withRestore(context, (restorer) =>
        withCanaryListener(async (canary) => {
          const admin = await adminFor(context);
          const caller = await context.callers.local();
          const tool = { name: 'agentconf.remote', inputSchema: externalRefSchema(canary) };
          const extra = await registerWithExtraTool(
            context,
            restorer,
            admin,
            conformanceTarget(context),
            tool,
            '1.0.8',
          );
          const { jid, version } = extra.target;
          if (extra.registered.parsed.type === 'result') {
            let pinned = false;
            try {
              await activateExtraToolVersion(admin, extra);
              pinned = await invokeRemoteRefTool(new TaskSession(context, caller, extra.target));
            } finally {
              if (!pinned) restorer.removeVersionAtEnd(jid, version);
            }
          } else {
            caller.transcript.note(
              `${jid} ${version} refused (${extra.registered.parsed.error.condition}): the schema never reaches argument validation`,
            );
          }
          expectNoContact(
            canary,
            'json-encoding.no-external-refs',
            "external $ref targets in an invoked tool's input schema",
          );
        }),
      ),
  },
  ...badInputCases,
  ...rawComponentInputCases,
]);
