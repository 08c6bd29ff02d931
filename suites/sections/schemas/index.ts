/**
 * #schemas: retrieving a tool's input or output schema pinned by version and manifest hash —
 * the <json/> text is exactly the RFC 8785 bytes whose sha-256 is the schema hash (computed here
 * from the fixture file, interp-01), a hash that selects no registered manifest gets conflict,
 * a request missing tool, version, direction or hash is refused; and the registration rules for
 * schemas (valid JSON Schema, object root for input, required vocabularies, unsupported
 * assertions, same-document references), checked through the `registrant` fixture. Patterns
 * are evaluated under a resource bound: an answer that sends a catastrophic pattern into
 * exponential backtracking still gets a prompt refusal (schemas.bounded-regex), through a tool's
 * input request, the one schema a caller can choose and have evaluated.
 */
import { xml, type Element } from '@xmpp/xml';
import { sha256Base64 } from '../../../protocol/json/canonical.ts';
import type { JsonObject } from '../../../protocol/json/json-value.ts';
import { HASH_ALGO_SHA256, NS, NS_AGENT_API } from '../../../protocol/namespaces.ts';
import {
  buildSchemaRequest,
  parseSchema,
  type Hash,
  type SchemaDirection,
} from '../../../protocol/stanza/index.ts';
import { IqTimeout, type Caller, type IqExchange } from '../../../harness/driver/index.ts';
import { defineSuite } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  expectIndistinguishable,
  expectStanzaError,
  expectThat,
  type ComparedReply,
  expectParsedResult,
  requirePositiveControl,
} from '../../framework/expect.ts';
import { checkHeld } from '../../framework/evidence.ts';
import { CannotTell, MissingFixture, RequirementViolation } from '../../framework/verdicts.ts';
import {
  requireWorld,
  type CallerRole,
  type FixtureManifest,
  type FixtureTool,
} from '../../fixtures/reference-world.ts';
import { callerFor, roleThatMaySee } from '../support/discovery.ts';
import { probeManifest } from '../support/manifests.ts';
import {
  expectRegistration,
  freshVersion,
  registrantFor,
  registrationControl,
  withRestore,
} from '../support/provisioning.ts';
import { expectRefusals } from '../support/refusals.ts';
import { inputRequestId } from '../support/task-events.ts';
import { expectInputAccepted } from '../support/task-replies.ts';
import { TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { requireToolFeatures } from '../support/tool-features.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';
import { argumentKeywordCases } from './argument-keywords.ts';

/**
 * Nested quantifiers: a backtracking engine tries about 2^n ways to split n letters before it
 * can say that a string ending in '!' does not match. 40 letters take a backtracking engine
 * minutes; a bounded or linear-time evaluator answers at once.
 */
const CATASTROPHIC = {
  type: 'object',
  properties: { s: { type: 'string', pattern: '^(a+)+$' } },
  required: ['s'],
};
const NON_MATCHING = { s: `${'a'.repeat(40)}!` };

function schemaRequest(
  caller: Caller,
  manifest: FixtureManifest,
  tool: string,
  direction: SchemaDirection,
  manifestHash: Hash = manifest.document.hash,
): Promise<IqExchange> {
  return caller.exchangeIq(
    manifest.jid,
    'get',
    buildSchemaRequest({ tool, version: manifest.version, direction, manifestHash }),
  );
}

/** The served schema must be the fixture's canonical bytes, hashed, with the request echoed. */
async function expectServedSchema(
  caller: Caller,
  manifest: FixtureManifest,
  tool: FixtureTool,
  direction: SchemaDirection,
): Promise<void> {
  const expected = direction === 'input' ? tool.inputSchema : tool.outputSchema;
  if (expected === undefined) return;
  const exchange = await schemaRequest(caller, manifest, tool.name, direction);
  const replyXml = exchange.reply.xml;
  const schema = expectParsedResult(exchange, 'schemas.canonical-bytes', NS_AGENT_API, 'schema', parseSchema);
  const bytes = Buffer.from(schema.json, 'utf8');
  expectThat(
    replyXml,
    'schemas.canonical-bytes',
    `the RFC 8785 bytes of the ${direction} schema of ${tool.name}:\n${expected.bytes.toString('utf8')}`,
    bytes.equals(expected.bytes),
  );
  expectThat(
    replyXml,
    'schemas.canonical-bytes',
    `a schema hash that is the sha-256 of the <json/> bytes (${sha256Base64(bytes)})`,
    schema.schemaHash.algo === HASH_ALGO_SHA256 ? schema.schemaHash.value === sha256Base64(bytes) : true,
  );
  expectThat(
    replyXml,
    'schemas.canonical-bytes',
    `<schema tool='${tool.name}' version='${manifest.version}' direction='${direction}'> with the pinned manifest hash`,
    schema.tool === tool.name &&
      schema.version === manifest.version &&
      schema.direction === direction &&
      schema.manifestHash.algo === manifest.document.hash.algo &&
      schema.manifestHash.value === manifest.document.hash.value,
  );
}

async function expectSchemas(
  context: CaseContext,
  role: CallerRole,
  manifests: readonly FixtureManifest[],
): Promise<void> {
  const caller = await callerFor(context, role);
  // Every tool of every version, in an order the seed shuffles: the seed changes the order,
  // never which schemas are checked (issue 12: same gateway, same verdict).
  const pinned = manifests.flatMap((manifest) => manifest.tools.map((tool) => ({ manifest, tool })));
  for (const { manifest, tool } of context.random.shuffle(pinned)) {
    await expectServedSchema(caller, manifest, tool, 'input');
    await expectServedSchema(caller, manifest, tool, 'output');
  }
}

/** A <schema-request/> written by hand, so that a required part can be left out. */
function partialRequest(
  manifest: FixtureManifest,
  tool: string,
  leaveOut: 'tool' | 'version' | 'direction' | 'hash',
): Element {
  const attributes = Object.fromEntries(
    Object.entries({ tool, version: manifest.version, direction: 'input' }).filter(
      ([name]) => name !== leaveOut,
    ),
  );
  const hash = xml(
    'hash',
    { xmlns: NS.hashes, algo: manifest.document.hash.algo },
    manifest.document.hash.value,
  );
  return xml(
    'schema-request',
    { xmlns: NS_AGENT_API, ...attributes },
    leaveOut === 'hash' ? undefined : hash,
  );
}

/**
 * Registering a manifest whose one tool has `inputSchema` must fail (bad-request or
 * not-acceptable, interp-11), and leave nothing registered; a valid manifest from the same
 * registrant registers first (the positive control).
 */
async function expectRefusedSchema(
  context: CaseContext,
  requirement: RequirementId,
  purpose: string,
  inputSchema: JsonObject,
): Promise<void> {
  await expectRefusals(context, requirement, purpose, [
    {
      label: `the input schema ${JSON.stringify(inputSchema)}`,
      text: (jid, version) => JSON.stringify(probeManifest(jid, version, inputSchema)),
    },
  ]);
}

export const schemasSuite = defineSuite('schemas', 'Retrieving Tool Schemas', { alongside: true }, [
  {
    id: 'schemas.canonical-bytes-local',
    requirements: ['schemas.canonical-bytes'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-01', 'interp-12'],
    statement:
      'Input and output schemas of every version a local caller may see come back as exactly their RFC 8785 bytes, with the sha-256 of those bytes as schema hash and the request’s tool, version, direction and manifest hash echoed.',
    run: async (context) => {
      const world = requireWorld(context);
      await expectSchemas(
        context,
        'local',
        world.listedFor('local').flatMap((endpoint) => endpoint.versions),
      );
    },
  },
  {
    id: 'schemas.canonical-bytes-federated',
    requirements: ['schemas.canonical-bytes', 'rules.uniform-visibility'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-01'],
    statement:
      'A federated caller retrieves the schemas of the endpoints its grants show it (a hidden one its grant names included) as their exact canonical bytes.',
    run: async (context) => {
      const world = requireWorld(context);
      await expectSchemas(context, 'remote', [world.visibleEndpoint.active, world.hiddenEndpoint.active]);
    },
  },
  {
    id: 'schemas.stale-hash-conflict',
    requirements: ['schemas.stale-hash-conflict'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-27'],
    statement:
      'A schema request whose manifest hash is that of another version of the endpoint, or of no manifest at all, gets conflict.',
    run: async (context) => {
      const { endpoint, other } = requireWorld(context).multiVersionEndpoint;
      const caller = await context.callers.local();
      const tool =
        other.tools.find((candidate) =>
          endpoint.active.tools.some((active) => active.name === candidate.name),
        ) ?? other.tools[0];
      if (tool === undefined) {
        throw new MissingFixture(`the fixture world's ${endpoint.jid} ${other.version} needs a tool`);
      }
      requirePositiveControl(
        await schemaRequest(caller, other, tool.name, 'input'),
        `the input schema of ${tool.name} in ${endpoint.jid} ${other.version} under its own manifest hash`,
      );
      const stale = await schemaRequest(caller, other, tool.name, 'input', endpoint.active.document.hash);
      expectStanzaError(stale, 'schemas.stale-hash-conflict', 'conflict', context);
      const made: Hash = {
        algo: HASH_ALGO_SHA256,
        value: sha256Base64(Buffer.from(`agentconf ${String(context.random.seed)}`)),
      };
      expectStanzaError(
        await schemaRequest(caller, endpoint.active, tool.name, 'input', made),
        'schemas.stale-hash-conflict',
        'conflict',
        context,
      );
    },
  },
  {
    id: 'schemas.request-attributes',
    requirements: ['schemas.request-attributes'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-42'],
    statement: 'A schema request without its tool, version, direction or manifest hash is refused.',
    run: async (context) => {
      const endpoint = requireWorld(context).visibleEndpoint;
      const [tool] = endpoint.active.tools;
      if (tool === undefined) throw new MissingFixture(`the fixture world's ${endpoint.jid} needs a tool`);
      const caller = await context.callers.local();
      requirePositiveControl(
        await schemaRequest(caller, endpoint.active, tool.name, 'input'),
        `the complete schema request for ${endpoint.jid} ${tool.name}`,
      );
      for (const leaveOut of ['tool', 'version', 'direction', 'hash'] as const) {
        const exchange = await caller.exchangeIq(
          endpoint.jid,
          'get',
          partialRequest(endpoint.active, tool.name, leaveOut),
        );
        if (exchange.parsed.type !== 'error') {
          throw new RequirementViolation(
            'schemas.request-attributes',
            `an IQ error for a schema request without its ${leaveOut}`,
            exchange.reply.xml,
          );
        }
        checkHeld('schemas.request-attributes');
        if (exchange.parsed.error.condition !== 'bad-request') {
          context.warn(
            'schemas.request-attributes',
            `a request without its ${leaveOut} gets <${exchange.parsed.error.condition}/>; #errors recommends bad-request`,
          );
        }
      }
    },
  },
  {
    id: 'schemas.unknown-or-hidden-like-nonexistent',
    scenario: 'equivalence',
    requirements: ['errors.not-found-equivalence', 'rules.uniform-visibility'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-19', 'interp-27'],
    statement:
      'Schema requests for a tool the version lacks, an output schema the tool lacks, a hidden endpoint’s tool and a JID that names nothing all get the same item-not-found.',
    run: async (context) => {
      const world = requireWorld(context);
      const caller = await context.callers.local();
      const hidden = world.hiddenEndpoint.active;
      const [hiddenTool] = hidden.tools;
      const visible = world.visibleEndpoint.active;
      const [visibleTool] = visible.tools;
      if (hiddenTool === undefined || visibleTool === undefined) {
        throw new MissingFixture(
          `the fixture world's visible (${visible.jid}) and hidden (${hidden.jid}) endpoints need a tool each`,
        );
      }
      // The positive controls: the hidden tool's schema for a caller whose grant names it, and
      // the visible tool's for the local caller.
      const seer = await callerFor(
        context,
        roleThatMaySee(world, world.hiddenEndpoint, ['remote', 'remotePeer']),
      );
      requirePositiveControl(
        await schemaRequest(seer, hidden, hiddenTool.name, 'input'),
        `the input schema of ${hidden.jid} ${hiddenTool.name} for ${seer.bareJid}, who may see it`,
      );
      requirePositiveControl(
        await schemaRequest(caller, visible, visibleTool.name, 'input'),
        `the input schema of ${visible.jid} ${visibleTool.name}`,
      );
      const missing = world.nonexistentJid;
      const targets: { label: string; to: string; run: () => Promise<IqExchange> }[] = [
        {
          label: `hidden ${hidden.jid}`,
          to: hidden.jid,
          run: () => schemaRequest(caller, hidden, hiddenTool.name, 'input'),
        },
        {
          label: `nonexistent ${missing}`,
          to: missing,
          run: () =>
            caller.exchangeIq(
              missing,
              'get',
              buildSchemaRequest({
                tool: hiddenTool.name,
                version: hidden.version,
                direction: 'input',
                manifestHash: hidden.document.hash,
              }),
            ),
        },
        {
          label: 'an unknown tool',
          to: visible.jid,
          run: () => schemaRequest(caller, visible, `${visibleTool.name}.unknown`, 'input'),
        },
      ];
      const withoutOutput = world
        .listedFor('local')
        .flatMap(
          (endpoint) =>
            endpoint.active?.tools
              .filter((tool) => tool.outputSchema === undefined)
              .map((tool) => ({ manifest: endpoint.active, tool })) ?? [],
        )[0];
      if (withoutOutput?.manifest !== undefined) {
        const { manifest, tool } = withoutOutput;
        targets.push({
          label: `the missing output schema of ${tool.name}`,
          to: manifest.jid,
          run: () => schemaRequest(caller, manifest, tool.name, 'output'),
        });
      }
      const replies: ComparedReply[] = [];
      for (const target of targets) {
        const exchange = await target.run();
        expectStanzaError(exchange, 'errors.not-found-equivalence', 'item-not-found', context);
        replies.push({ label: target.label, exchange, to: target.to });
      }
      const [first, second, ...rest] = replies;
      if (first === undefined || second === undefined) throw new Error('three targets give three replies');
      expectIndistinguishable([first, second, ...rest], 'errors.not-found-equivalence', context);
    },
  },
  {
    id: 'schemas.refuses-invalid-schema',
    requirements: ['schemas.valid-json-schema'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-11'],
    statement:
      'Registration refuses a tool whose input schema is not a valid JSON Schema (a type that does not exist).',
    run: async (context) => {
      await expectRefusedSchema(context, 'schemas.valid-json-schema', 'invalid', {
        type: 'object',
        properties: { city: { type: 'no-such-type' } },
      });
    },
  },
  {
    id: 'schemas.refuses-non-object-input-root',
    requirements: ['schemas.input-object-root'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-11'],
    statement: 'Registration refuses an input schema whose root describes an array rather than an object.',
    run: async (context) => {
      await expectRefusedSchema(context, 'schemas.input-object-root', 'arrayroot', {
        type: 'array',
        items: { type: 'string' },
      });
    },
  },
  {
    id: 'schemas.refuses-unknown-required-vocabulary',
    requirements: ['schemas.required-vocabulary'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-11'],
    statement: 'Registration refuses a schema that declares as required a vocabulary no gateway can support.',
    run: async (context) => {
      await expectRefusedSchema(context, 'schemas.required-vocabulary', 'vocabulary', {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $vocabulary: {
          'https://json-schema.org/draft/2020-12/vocab/core': true,
          'urn:agentconf:vocabulary:unsupported': true,
        },
        type: 'object',
      });
    },
  },
  {
    id: 'schemas.refuses-unsupported-assertion',
    requirements: ['schemas.unsupported-assertion'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-11'],
    statement:
      'Registration refuses a schema using an assertion keyword 2020-12 does not define (draft-07 dependencies) unless the gateway enforces it.',
    run: (context) =>
      withRestore(context, async (restorer) => {
        const registrant = await registrantFor(context, 'assertion');
        await registrationControl(context, restorer, registrant);
        const version = freshVersion(context);
        const schema = {
          type: 'object',
          properties: { a: { type: 'string' }, b: { type: 'string' } },
          dependencies: { a: ['b'] },
        };
        const exchange = await restorer.register(
          registrant.provisioning,
          registrant.jid,
          JSON.stringify(probeManifest(registrant.jid, version, schema)),
        );
        if (exchange.parsed.type === 'error') {
          expectStanzaError(
            exchange,
            'schemas.unsupported-assertion',
            ['bad-request', 'not-acceptable'],
            context,
          );
          return;
        }
        // A gateway may support the keyword; only invoking could show whether it is enforced.
        throw new CannotTell(
          `${registrant.jid} ${version} was registered with draft-07 "dependencies": it must be enforced as an assertion, which only an invocation can show`,
        );
      }),
  },
  {
    id: 'schemas.same-document-refs-register',
    requirements: ['schemas.same-document-refs'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    statement: 'A tool schema using same-document $ref, $anchor, $dynamicRef and $dynamicAnchor registers.',
    run: (context) =>
      withRestore(context, async (restorer) => {
        const registrant = await registrantFor(context, 'refs');
        const version = freshVersion(context);
        const schema: JsonObject = {
          $id: 'urn:agentconf:schema:refs',
          type: 'object',
          properties: {
            city: { $ref: '#/$defs/name' },
            country: { $ref: '#place' },
            tree: { $ref: '#/$defs/tree' },
          },
          required: ['city'],
          $defs: {
            name: { type: 'string', minLength: 1 },
            place: { $anchor: 'place', type: 'string', pattern: '^[A-Z]{2}$' },
            tree: {
              $dynamicAnchor: 'node',
              type: 'object',
              properties: { children: { type: 'array', items: { $dynamicRef: '#node' } } },
            },
          },
        };
        await expectRegistration(
          restorer,
          registrant,
          probeManifest(registrant.jid, version, schema),
          'schemas.same-document-refs',
        );
      }),
  },
  {
    id: 'schemas.bounded-regex',
    requirements: ['schemas.bounded-regex', 'security.authorize-and-validate'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    statement:
      'A tool asks for input under the pattern ^(a+)+$; an answer of 40 letters and a "!" gets a refusal (not-acceptable, or resource-constraint when the evaluation budget ran out) within the reply timeout, never acceptance, and a matching answer is then accepted and reaches the tool.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      await requireToolFeatures(tasks, 'script', ['input']);
      const { accepted } = await tasks.start('script', {
        steps: [
          { input: { question: 'Only letters a?', inputSchema: CATASTROPHIC, expiresInMs: 60_000 } },
          { complete: { echoInputs: true } },
        ],
      });
      const asked = await tasks.awaitInputOrTerminal(accepted.taskId);
      if (asked.event.type !== 'input_required') {
        // Refusing the pattern when the tool asks is a bounded response too.
        return;
      }
      const requestId = inputRequestId(asked);
      const revision = asked.event.revision;
      let refused: IqExchange;
      try {
        refused = await tasks.provideInput(accepted.taskId, requestId, revision, NON_MATCHING);
      } catch (error) {
        if (!(error instanceof IqTimeout)) throw error;
        throw new RequirementViolation(
          'schemas.bounded-regex',
          `an answer to <provide-input/> within the reply timeout (${String(context.sut.replyTimeoutMs)} ms)`,
          'no reply: the pattern evaluation is not bounded',
        );
      }
      if (refused.parsed.type === 'result') {
        throw new RequirementViolation(
          'security.authorize-and-validate',
          `a refusal of ${JSON.stringify(NON_MATCHING)}, which does not match ^(a+)+$ (fail closed when the evaluation cannot finish)`,
          refused.reply.xml,
        );
      }
      expectStanzaError(refused, 'schemas.bounded-regex', ['not-acceptable', 'resource-constraint'], context);
      const answer = { s: 'aaaa' };
      expectInputAccepted(
        await tasks.provideInput(accepted.taskId, requestId, revision, answer),
        'schemas.bounded-regex',
      );
      await tasks.expectCompletedWithInputs(
        accepted.taskId,
        [answer],
        'schemas.bounded-regex',
        'completed with only the matching answer',
      );
    },
  },
  ...argumentKeywordCases,
]);
