/**
 * #tool-info: a tool node's disco#info — identity automation/agent-tool, the disco#info and tool
 * features, only the task features the endpoint advertises and the tool declares, and the
 * tool-info form. Every form field is compared with the pinned manifest as read here from the
 * fixture file (interp-08): required fields must agree, optional ones appear only when the
 * manifest has them (an omission is a warning), hash pairs come whole, nothing is made up.
 * Also #namespaces: tool nodes are decoded strictly and names compared exactly; and the hint
 * that a tool is read-only never stands in for an invocation grant.
 */
import type { Element } from '@xmpp/xml';
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import {
  FEATURE,
  FORM_TYPE,
  HASH_ALGO_SHA256,
  IDENTITY_CATEGORY,
  IDENTITY_TYPE,
  NODE_BASE_TOOL,
  NS,
  NS_AGENT_API,
} from '../../../protocol/namespaces.ts';
import {
  buildInvoke,
  buildSchemaRequest,
  parseSchema,
  type DataForm,
  type DiscoInfo,
} from '../../../protocol/stanza/index.ts';
import { encodeToolNode } from '../../../protocol/tool-node.ts';
import { defineSuite } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  expectDiscoInfo,
  expectExtensionForm,
  expectFeatures,
  expectFormField,
  expectIdentity,
  expectIndistinguishable,
  expectStanzaError,
  expectThat,
  formBoolean,
  formField,
  formText,
  type ComparedReply,
  expectParsedResult,
  requirePositiveControl,
} from '../../framework/expect.ts';
import type { SeededRandom } from '../../framework/seeded-random.ts';
import { MissingFixture, RequirementViolation } from '../../framework/verdicts.ts';
import {
  requireWorld,
  type CallerRole,
  type FixtureEndpoint,
  type FixtureManifest,
  type FixtureTool,
  type ReferenceWorld,
  type ToolHints,
} from '../../fixtures/reference-world.ts';
import { callerFor, discoInfo, roleThatMaySee } from '../support/discovery.ts';
import { exampleArguments, probeManifest } from '../support/manifests.ts';
import { expectRegistration, freshVersion, registrantFor, withRestore } from '../support/provisioning.ts';
import { expectRefusals } from '../support/refusals.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';

interface PinnedTool {
  readonly manifest: FixtureManifest;
  readonly tool: FixtureTool;
}

/** The hint fields of the form and the manifest annotation each mirrors (#tool-info). */
const HINT_FIELDS: readonly (readonly [string, keyof ToolHints])[] = [
  ['read_only', 'readOnly'],
  ['destructive', 'destructive'],
  ['idempotent', 'idempotent'],
  ['open_world', 'openWorld'],
];

/** Tool-level task features and the manifest declaration each needs (#conformance). */
const TASK_FEATURES: readonly (readonly [string, keyof FixtureTool['supports']])[] = [
  [FEATURE.taskProgress, 'progress'],
  [FEATURE.taskCancel, 'cancel'],
  [FEATURE.taskInput, 'input'],
];

/**
 * Every tool of every version the role may see — or, with `only`, of those endpoints alone (e.g.
 * what a federated caller sees that a local one does not) — in an order the seed shuffles: the
 * seed changes the order, never which tools are checked (issue 12: same gateway, same verdict).
 */
function toolsFor(
  world: ReferenceWorld,
  role: CallerRole,
  random: SeededRandom,
  only?: readonly FixtureEndpoint[],
): PinnedTool[] {
  const pinned: PinnedTool[] = [];
  const endpoints = world.listedFor(role).filter((endpoint) => only?.includes(endpoint) ?? true);
  for (const endpoint of endpoints) {
    for (const manifest of endpoint.versions) {
      pinned.push(...manifest.tools.map((tool) => ({ manifest, tool })));
    }
  }
  if (pinned.length === 0) {
    throw new MissingFixture(
      `the fixture world shows the ${role} caller no tool: give it an endpoint with tools that role may see`,
    );
  }
  return random.shuffle(pinned);
}

/** What the remote caller sees beyond the local one: the hidden endpoint its grant names, and one both see. */
function federatedSample(world: ReferenceWorld): FixtureEndpoint[] {
  return world
    .listedFor('remote')
    .filter((endpoint) => !world.maySee('local', endpoint) || endpoint.jid === world.visibleEndpoint.jid);
}

interface ToolView {
  readonly exchange: IqExchange;
  readonly info: DiscoInfo;
  readonly form: DataForm;
}

async function toolView(
  caller: Caller,
  { manifest, tool }: PinnedTool,
  requirement: RequirementId,
): Promise<ToolView> {
  const exchange = await discoInfo(caller, manifest.jid, tool.node);
  const info = expectDiscoInfo(exchange, requirement);
  const form = expectExtensionForm(info, requirement, FORM_TYPE.toolInfo, exchange.reply.xml);
  return { exchange, info, form };
}

/** The endpoint's own task features, from its node-less disco#info. */
async function endpointTaskFeatures(
  caller: Caller,
  jid: string,
  requirement: RequirementId,
): Promise<string[]> {
  const info = expectDiscoInfo(await discoInfo(caller, jid), requirement);
  return info.features.filter((feature) => feature.startsWith(FEATURE.task));
}

async function expectToolDiscoInfo(context: CaseContext, role: 'local' | 'remote'): Promise<void> {
  const world = requireWorld(context);
  const caller = await callerFor(context, role);
  const endpointFeatures = new Map<string, string[]>();
  const sample = role === 'local' ? undefined : federatedSample(world);
  for (const pinned of toolsFor(world, role, context.random, sample)) {
    const { info, exchange } = await toolView(caller, pinned, 'tool-info.disco-info');
    const replyXml = exchange.reply.xml;
    expectIdentity(info, 'tool-info.disco-info', IDENTITY_CATEGORY, IDENTITY_TYPE.tool, replyXml);
    expectFeatures(info, 'tool-info.disco-info', [NS.discoInfo, FEATURE.tool], replyXml);
    const jid = pinned.manifest.jid;
    const endpoint =
      endpointFeatures.get(jid) ?? (await endpointTaskFeatures(caller, jid, 'tool-info.disco-info'));
    endpointFeatures.set(jid, endpoint);
    for (const [feature, declaration] of TASK_FEATURES) {
      // Effective support needs the endpoint's feature and the tool's declaration (#conformance).
      const effective = endpoint.includes(feature) && pinned.tool.supports[declaration];
      const advertised = info.features.includes(feature);
      expectThat(
        replyXml,
        advertised ? 'conformance.no-false-advertising' : 'tool-info.disco-info',
        `${feature} ${effective ? 'advertised' : 'not advertised'}: the endpoint ${endpoint.includes(feature) ? 'advertises' : 'does not advertise'} it and the manifest ${pinned.tool.supports[declaration] ? 'declares' : 'does not declare'} it`,
        advertised === effective,
      );
    }
  }
}

/** Whether a tool name survives as form text; names with CR or LF are compared through the node only (interp-20). */
function comparableName(name: string): boolean {
  return !/[\r\n]/.test(name);
}

/** Both fields of a hash pair present, or neither (#tool-info). */
function expectHashPair(form: DataForm, prefix: 'input' | 'output', replyXml: string): boolean {
  const algo = formField(form, `${prefix}_schema_hash_algo`);
  const value = formField(form, `${prefix}_schema_hash_value`);
  expectThat(
    replyXml,
    'tool-info.hash-pairs',
    `${prefix}_schema_hash_algo and ${prefix}_schema_hash_value together, or neither`,
    (algo === undefined) === (value === undefined),
  );
  return algo !== undefined;
}

/** Nothing invented, nothing contradicting the manifest; what the manifest has but the form omits is a warning. */
function expectOptionalFields(
  context: CaseContext,
  pinned: PinnedTool,
  form: DataForm,
  replyXml: string,
): void {
  const { tool } = pinned;
  const where = `${pinned.manifest.jid} ${pinned.manifest.version} ${tool.name}`;
  const optional = (
    field: string,
    expected: string | undefined,
    compare: (text: string) => boolean,
  ): void => {
    const present = formField(form, field) !== undefined;
    if (!present) {
      if (expected !== undefined)
        context.warn(
          'tool-info.optional-fields',
          `${where}: the form leaves out ${field}, which the manifest has (interp-08)`,
        );
      return;
    }
    const text = formText(form, field) ?? '';
    expectThat(
      replyXml,
      'tool-info.no-manufactured-values',
      expected === undefined ? `no ${field}: the manifest has none` : `${field} ${expected}`,
      expected !== undefined && compare(text),
    );
  };
  const lf = (text: string | undefined): string | undefined => text?.replaceAll('\r\n', '\n');
  optional('title', tool.title, (text) => text === tool.title);
  optional('description', lf(tool.description), (text) => text === lf(tool.description));
  const output = tool.outputSchema?.hash;
  if (expectHashPair(form, 'output', replyXml) || output !== undefined) {
    optional('output_schema_hash_algo', output?.algo, () => true);
    const algo = formText(form, 'output_schema_hash_algo');
    optional(
      'output_schema_hash_value',
      output?.value,
      (text) => algo !== HASH_ALGO_SHA256 || text === output?.value,
    );
  }
  for (const [field, hint] of HINT_FIELDS) {
    const expected = tool.hints[hint];
    optional(field, expected === undefined ? undefined : expected ? '1' : '0', (text) => {
      const parsed = formBoolean(text);
      if (parsed !== undefined && !parsed.canonical)
        context.warn(
          'tool-info.no-manufactured-values',
          `${where}: ${field} is written ${text}, not 1/0 (interp-20)`,
        );
      return parsed?.value === expected;
    });
  }
}

/** Some node strings a strict decoder refuses for an existing tool (interp-22), each with what it tries. */
function decoderTraps(manifest: FixtureManifest): { readonly why: string; readonly node: string }[] {
  const prefix = `${NODE_BASE_TOOL}#${manifest.version}#`;
  const encoded = manifest.tools.map((tool) => tool.node.slice(prefix.length));
  const traps: { why: string; node: string }[] = [
    { why: 'invalid UTF-8', node: `${prefix}_w` },
    { why: 'an empty name', node: prefix },
  ];
  const padded = encoded.find((name) => name.length % 4 !== 0);
  if (padded !== undefined)
    traps.push({ why: 'padding', node: `${prefix}${padded}${'='.repeat(4 - (padded.length % 4))}` });
  const urlSafe = encoded.find((name) => /[-_]/.test(name));
  if (urlSafe !== undefined) {
    traps.push({
      why: 'the +/ alphabet',
      node: `${prefix}${urlSafe.replaceAll('-', '+').replaceAll('_', '/')}`,
    });
  }
  const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const partial = encoded.find((name) => name.length % 4 === 2 || name.length % 4 === 3);
  if (partial !== undefined) {
    // The last character's low bits are padding bits: setting one names the same bytes non-canonically.
    const last = ALPHABET.indexOf(partial.at(-1) ?? 'A');
    traps.push({
      why: 'non-zero trailing bits',
      node: `${prefix}${partial.slice(0, -1)}${ALPHABET.charAt(last | 1)}`,
    });
  }
  return traps;
}

export const toolInfoSuite = defineSuite('tool-info', 'Tool Information', { alongside: true }, [
  {
    id: 'tool-info.disco-info-local',
    requirements: ['tool-info.disco-info', 'conformance.no-false-advertising'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    statement:
      'Each tool node a local caller may see answers disco#info with identity automation/agent-tool, the disco#info and agent-tool features, one tool-info form, and exactly the task features the endpoint advertises and the tool declares.',
    run: async (context) => {
      await expectToolDiscoInfo(context, 'local');
    },
  },
  {
    id: 'tool-info.disco-info-federated',
    requirements: ['tool-info.disco-info', 'conformance.no-false-advertising'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    statement:
      'The tool nodes a federated caller may see answer disco#info the same way across server-to-server.',
    run: async (context) => {
      await expectToolDiscoInfo(context, 'remote');
    },
  },
  {
    id: 'tool-info.required-fields',
    requirements: ['tool-info.required-fields'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-08', 'interp-20'],
    statement:
      'Every tool form has the tool’s exact name, the api_version of its node, and the input-schema hash pair: sha-256 of the canonical input schema, equal to the hash the schema retrieval serves.',
    run: async (context) => {
      const world = requireWorld(context);
      const caller = await context.callers.local();
      for (const pinned of toolsFor(world, 'local', context.random)) {
        const { form, exchange } = await toolView(caller, pinned, 'tool-info.required-fields');
        const replyXml = exchange.reply.xml;
        const { manifest, tool } = pinned;
        const name = expectFormField(form, 'tool-info.required-fields', 'name', replyXml);
        if (comparableName(tool.name))
          expectThat(replyXml, 'tool-info.required-fields', `name ${tool.name}`, name === tool.name);
        expectThat(
          replyXml,
          'tool-info.required-fields',
          `api_version ${manifest.version}`,
          expectFormField(form, 'tool-info.required-fields', 'api_version', replyXml) === manifest.version,
        );
        const algo = expectFormField(form, 'tool-info.required-fields', 'input_schema_hash_algo', replyXml);
        const value = expectFormField(form, 'tool-info.required-fields', 'input_schema_hash_value', replyXml);
        if (algo === HASH_ALGO_SHA256) {
          // The fixture's hash, which the #schemas cases hold the served schema to as well: form
          // and schema retrieval agree without a retrieval here (each costs a schema check).
          expectThat(
            replyXml,
            'tool-info.required-fields',
            `input_schema_hash_value ${tool.inputSchema.hash.value}`,
            value === tool.inputSchema.hash.value,
          );
          continue;
        }
        // Another algorithm: only the schema retrieval can say which value is right.
        const request = buildSchemaRequest({
          tool: tool.name,
          version: manifest.version,
          direction: 'input',
          manifestHash: manifest.document.hash,
        });
        const schemaExchange = await caller.exchangeIq(manifest.jid, 'get', request);
        const schema = expectParsedResult(
          schemaExchange,
          'tool-info.required-fields',
          NS_AGENT_API,
          'schema',
          parseSchema,
        );
        expectThat(
          schemaExchange.reply.xml,
          'tool-info.required-fields',
          `the schema hash in the form (${algo} ${value})`,
          schema.schemaHash.algo === algo && schema.schemaHash.value === value,
        );
      }
    },
  },
  {
    id: 'tool-info.hash-pairs',
    requirements: ['tool-info.hash-pairs'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    statement:
      'In every tool form each hash algorithm field comes with its value field, and each value with its algorithm.',
    run: async (context) => {
      const world = requireWorld(context);
      const caller = await context.callers.local();
      for (const pinned of toolsFor(world, 'local', context.random)) {
        const { form, exchange } = await toolView(caller, pinned, 'tool-info.hash-pairs');
        expectHashPair(form, 'input', exchange.reply.xml);
        expectHashPair(form, 'output', exchange.reply.xml);
      }
    },
  },
  {
    id: 'tool-info.no-manufactured-values',
    requirements: ['tool-info.no-manufactured-values', 'tool-info.optional-fields'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-08', 'interp-20'],
    statement:
      'Title, description, the output-schema hash pair and the four hints appear in a tool form only when the pinned manifest has them, with its values; an absent hint stays absent.',
    run: async (context) => {
      const world = requireWorld(context);
      for (const role of ['local', 'remote'] as const) {
        const caller = await callerFor(context, role);
        const sample = role === 'local' ? undefined : federatedSample(world);
        for (const pinned of toolsFor(world, role, context.random, sample)) {
          const { form, exchange } = await toolView(caller, pinned, 'tool-info.no-manufactured-values');
          expectOptionalFields(context, pinned, form, exchange.reply.xml);
        }
      }
    },
  },
  {
    id: 'tool-info.node-decoding-strict',
    requirements: ['namespaces.tool-node-decoding'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-22'],
    statement:
      'Tool nodes are decoded strictly: padding, the +/ alphabet, non-zero trailing bits, invalid UTF-8 and an empty name get bad-request or item-not-found, even where a lenient decoder would find a tool.',
    run: async (context) => {
      const world = requireWorld(context);
      const caller = await context.callers.local();
      for (const endpoint of [world.toolboxEndpoint, world.visibleEndpoint]) {
        // The positive control: each tool whose node a trap spells otherwise answers as written.
        await Promise.all(
          endpoint.active.tools.map(async (tool) => {
            requirePositiveControl(
              await discoInfo(caller, endpoint.jid, tool.node),
              `disco#info of the tool node ${tool.node} of ${endpoint.jid}`,
            );
          }),
        );
        for (const { why, node } of decoderTraps(endpoint.active)) {
          const exchange = await discoInfo(caller, endpoint.jid, node);
          if (exchange.parsed.type !== 'error') {
            throw new RequirementViolation(
              'namespaces.tool-node-decoding',
              `bad-request or item-not-found for a node with ${why}`,
              exchange.reply.xml,
            );
          }
          expectStanzaError(
            exchange,
            'namespaces.tool-node-decoding',
            ['bad-request', 'item-not-found'],
            context,
          );
        }
      }
    },
  },
  {
    id: 'tool-info.names-exact',
    requirements: ['namespaces.tool-name-rules', 'namespaces.tool-name-no-extra-limits'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-22'],
    statement:
      'Tool names are matched code point by code point: names outside MCP’s style (spaces, non-ASCII, astral) each answer for themselves, and a differently normalized or cased spelling is no tool.',
    run: async (context) => {
      const toolbox = requireWorld(context).toolboxEndpoint.active;
      const caller = await context.callers.local();
      const names = toolbox.tools.map((tool) => tool.name);
      const unusual = toolbox.tools.filter((tool) => /[^\x21-\x7e]/.test(tool.name));
      for (const tool of unusual) {
        const { form, exchange } = await toolView(
          caller,
          { manifest: toolbox, tool },
          'namespaces.tool-name-no-extra-limits',
        );
        expectThat(
          exchange.reply.xml,
          'namespaces.tool-name-rules',
          `name ${tool.name}`,
          formText(form, 'name') === tool.name || !comparableName(tool.name),
        );
      }
      const variants = new Map<string, string>();
      for (const name of names) {
        for (const variant of [
          name.normalize('NFD'),
          name.normalize('NFC'),
          name.toUpperCase(),
          name.toLowerCase(),
        ]) {
          if (!names.includes(variant) && !variants.has(variant)) variants.set(variant, name);
        }
      }
      // Every variant is tried, each after its own spelling answered (the positive control).
      await Promise.all(
        [...variants].map(async ([variant, name]) => {
          requirePositiveControl(
            await discoInfo(caller, toolbox.jid, encodeToolNode(toolbox.version, name)),
            `disco#info of the tool ${JSON.stringify(name)}`,
          );
          const exchange = await discoInfo(caller, toolbox.jid, encodeToolNode(toolbox.version, variant));
          expectStanzaError(exchange, 'namespaces.tool-name-rules', 'item-not-found', context);
        }),
      );
    },
  },
  {
    id: 'tool-info.unknown-or-hidden-like-nonexistent',
    scenario: 'equivalence',
    requirements: ['errors.not-found-equivalence', 'rules.uniform-visibility'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-19'],
    statement:
      'A tool node naming no tool, one of an unregistered version, a hidden endpoint’s tool and a tool at a JID that names nothing all get the same item-not-found.',
    run: async (context) => {
      const world = requireWorld(context);
      const caller = await context.callers.local();
      const visible = world.visibleEndpoint;
      const hidden = world.hiddenEndpoint;
      const [hiddenTool] = hidden.active.tools;
      const [visibleTool] = visible.active.tools;
      if (hiddenTool === undefined || visibleTool === undefined) {
        throw new MissingFixture(
          `the fixture world's visible (${visible.jid}) and hidden (${hidden.jid}) endpoints need a tool each`,
        );
      }
      // The positive controls: the hidden tool answers a caller whose grant names it, and the
      // visible tool the local caller.
      const seer = await callerFor(context, roleThatMaySee(world, hidden, ['remote', 'remotePeer']));
      requirePositiveControl(
        await discoInfo(seer, hidden.jid, hiddenTool.node),
        `disco#info of ${hidden.jid}'s tool ${hiddenTool.name} for ${seer.bareJid}, who may see it`,
      );
      requirePositiveControl(
        await discoInfo(caller, visible.jid, visibleTool.node),
        `disco#info of ${visible.jid}'s tool ${visibleTool.name}`,
      );
      const targets = [
        { label: `hidden ${hidden.jid}`, to: hidden.jid, node: hiddenTool.node },
        { label: `nonexistent ${world.nonexistentJid}`, to: world.nonexistentJid, node: hiddenTool.node },
        {
          label: 'an unknown tool',
          to: visible.jid,
          node: encodeToolNode(visible.active.version, `${visibleTool.name}.unknown`),
        },
        {
          label: 'an unregistered version',
          to: visible.jid,
          node: encodeToolNode(`${visible.active.version}.unregistered`, visibleTool.name),
        },
      ];
      const replies: ComparedReply[] = [];
      for (const target of targets) {
        const exchange = await discoInfo(caller, target.to, target.node);
        expectStanzaError(exchange, 'errors.not-found-equivalence', 'item-not-found', context);
        replies.push({ label: target.label, exchange, to: target.to });
      }
      const [first, second, ...rest] = replies;
      if (first === undefined || second === undefined) throw new Error('four targets give four replies');
      expectIndistinguishable([first, second, ...rest], 'errors.not-found-equivalence', context);
    },
  },
  {
    id: 'tool-info.annotations-not-authority',
    requirements: ['tool-info.annotations-not-authority', 'errors.not-found-equivalence'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-26'],
    statement:
      'A caller that may see an endpoint but not invoke it cannot invoke a tool hinted read-only or idempotent: the exactly pinned invocation gets item-not-found.',
    run: async (context) => {
      const { endpoint, tool } = requireWorld(context).seeOnlyEndpoint;
      const caller = await context.callers.remote();
      const features = await endpointTaskFeatures(
        caller,
        endpoint.jid,
        'tool-info.annotations-not-authority',
      );
      if (!features.includes(FEATURE.task)) {
        throw new MissingFixture(
          `the fixture world's see-only endpoint ${endpoint.jid} does not advertise ${FEATURE.task}: a refused invocation there would show nothing about the hint; give it a task runtime`,
        );
      }
      const invoke = (): Element =>
        buildInvoke({
          requestId: context.random.string('abcdefghijklmnopqrstuvwxyz0123456789', 32),
          tool: tool.name,
          apiVersion: endpoint.active.version,
          manifestHash: endpoint.active.document.hash,
          argumentsJson: JSON.stringify(exampleArguments(tool.inputSchema.bytes)),
        });
      // The positive control: the same pinned invocation from a caller the world lets invoke it is admitted.
      const world = requireWorld(context);
      const invoker = (['local', 'remotePeer'] as const).find((role) =>
        world.mayInvoke(role, endpoint, tool.name),
      );
      if (invoker === undefined) {
        throw new MissingFixture(
          `no caller role of the fixture world may invoke ${endpoint.jid} ${tool.name}, so nothing shows that its refusal is not a refusal of every invocation`,
        );
      }
      requirePositiveControl(
        await (await callerFor(context, invoker)).exchangeIq(endpoint.jid, 'set', invoke()),
        `the ${invoker} caller, who may invoke it, invoking ${endpoint.jid} ${tool.name}`,
      );
      const exchange = await caller.exchangeIq(endpoint.jid, 'set', invoke());
      if (exchange.parsed.type === 'result') {
        throw new RequirementViolation(
          'tool-info.annotations-not-authority',
          `no task for a caller without an invocation grant (the tool is hinted ${JSON.stringify(tool.hints)})`,
          exchange.reply.xml,
        );
      }
      expectStanzaError(exchange, 'errors.not-found-equivalence', 'item-not-found', context);
    },
  },
  {
    id: 'tool-info.unusual-names-register',
    requirements: ['namespaces.tool-name-no-extra-limits', 'namespaces.tool-name-rules'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-22'],
    statement:
      'Registration accepts tool names outside MCP’s recommended style — spaces, non-ASCII and astral characters, 200 characters — since no smaller limit applies beyond the manifest and stanza sizes.',
    run: (context) =>
      withRestore(context, async (restorer) => {
        const registrant = await registrantFor(context, 'names');
        const version = freshVersion(context);
        const names = ['a name with spaces', 'n\u00e4me \u540d\u524d', '\u{1F600} grin', 'x'.repeat(200)];
        const manifest = {
          ...probeManifest(registrant.jid, version, { type: 'object' }),
          tools: names.map((name) => ({ name, inputSchema: { type: 'object' } })),
        };
        await expectRegistration(restorer, registrant, manifest, 'namespaces.tool-name-no-extra-limits');
      }),
  },
  {
    id: 'tool-info.xml-illegal-names-refused',
    requirements: ['namespaces.tool-name-rules'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-11', 'interp-22'],
    statement:
      'Registration refuses tool names with characters XML cannot carry — a C0 control, U+FFFE, a lone surrogate (the last an I-JSON violation: not-acceptable) — and registers nothing, after a valid manifest from the same registrant registered (the positive control).',
    run: async (context) => {
      // JSON escapes, as a client must send them: the raw characters cannot travel in XML at all.
      const vectors = (
        [
          ['\\u0001', ['bad-request', 'not-acceptable']],
          ['\\uFFFE', ['bad-request', 'not-acceptable']],
          ['\\uD800', ['not-acceptable']],
        ] as const
      ).map(([escape, conditions]) => ({
        label: `the tool name "bad${escape}name"`,
        text: (jid: string, version: string) =>
          JSON.stringify(probeManifest(jid, version, { type: 'object' }, { name: 'bad-NAME' })).replace(
            'bad-NAME',
            `bad${escape}name`,
          ),
        conditions: () => conditions,
      }));
      await expectRefusals(context, 'namespaces.tool-name-rules', 'badnames', vectors);
    },
  },
]);
