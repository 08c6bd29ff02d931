/**
 * Generated bad input (issue 14, item 5; scenario `bad-input`): for every request type the
 * gateway accepts, seeded fast-check samples of JSON a gateway must refuse (I-JSON violations,
 * syntax errors, nesting and strings past the documented limits, the numbers of interp-10) and
 * XSD-guided mutants of valid request elements (support/bad-input.ts, support/xsd-model.ts).
 * Each input must get an IQ error with a condition the spec allows for it, the planted canary
 * must not come back (a MUST for a limit rejection, #json-encoding; a warning elsewhere, #errors),
 * and the gateway must still answer a ping afterwards. A registered tool schema with a
 * catastrophic `pattern` must not stop it from answering within the reply timeout.
 *
 * The cases join the sections they test (suites/index.ts, withCases): #json-encoding for the
 * JSON, #errors for malformed elements. Counts per request type and outcome go to the case's
 * transcript; docs/bad-input.md tabulates what each input must get. Not covered here: bytes an
 * XMPP server would never deliver to the component (a DTD, entities, CDATA-split JSON), which
 * need raw writes on the component link.
 */
import { xml, type Element } from '@xmpp/xml';
import type { Caller, IqExchange } from '../../harness/driver/index.ts';
import { canonicalDocument } from '../../protocol/json/canonical.ts';
import type { JsonObject } from '../../protocol/json/json-value.ts';
import { FEATURE, NODE_BASE_TOOL, NS, NS_AGENT_TASK } from '../../protocol/namespaces.ts';
import {
  buildActivate,
  buildCancel,
  buildDeactivate,
  buildInvoke,
  buildManifestRequest,
  buildProvideInput,
  buildRegister,
  buildRegistrationStatus,
  buildRemoveEndpoint,
  buildRemoveVersion,
  buildSchemaRequest,
  buildTaskResultRequest,
  buildTaskStateRequest,
  parseAccepted,
  type DefinedCondition,
} from '../../protocol/stanza/index.ts';
import { defineSuite, type Suite } from '../framework/case.ts';
import type { CaseContext } from '../framework/context.ts';
import {
  expectParsedResult,
  expectStanzaError,
  expectThat,
  requirePositiveControl,
} from '../framework/expect.ts';
import { requireWorld } from '../fixtures/reference-world.ts';
import type { RequirementId } from '../registry/requirement-ids.ts';
import {
  BadInputCounts,
  elementMutants,
  exchangeOrSilence,
  expectStillAnswers,
  judgeBadInput,
  sampleBadJson,
  sampleOf,
  xsdInvalidOnly,
  type BadElement,
  type BadJson,
  type JsonSlot,
  type MutantPolicy,
} from './support/bad-input.ts';
import {
  adminFor,
  describeVersions,
  freshEndpoint,
  freshToken,
  freshVersion,
  provisionActive,
  registeredVersions,
  registrantFor,
  registrationControl,
  withRestore,
} from './support/provisioning.ts';
import {
  awaitEvent,
  awaitSettled,
  conformanceTarget,
  expectAccepted,
  expectCompletedWithInputs,
  expectInputAccepted,
  expectLedgerUntouched,
  freshLedgerKey,
  freshRequestId,
  inputRequestId,
  instantFromNow,
  readLedger,
  requireToolFeatures,
  sendInvoke,
  startTask,
  type TaskTarget,
} from './support/tasks.ts';

function canaryOf(context: CaseContext): string {
  return `agentconfcanary${freshToken(context)}`;
}

/** Sends each input and judges its reply; returns the exchanges of those admitted. */
async function sendAll<T extends BadJson | BadElement>(
  context: CaseContext,
  inputs: readonly T[],
  requestType: string,
  counts: BadInputCounts,
  canary: string | undefined,
  send: (input: T) => Promise<IqExchange>,
): Promise<{ input: T; exchange: IqExchange }[]> {
  const admitted: { input: T; exchange: IqExchange }[] = [];
  for (const input of inputs) {
    const exchange = await exchangeOrSilence(() => send(input), input.requirement, input.what);
    judgeBadInput(context, exchange, input, canary, counts, requestType);
    if (exchange.parsed.type === 'result') admitted.push({ input, exchange });
  }
  return admitted;
}

/** The counts to the transcript, and their total as the case's iteration count (conformance.json). */
function note(caller: Caller, context: CaseContext, counts: BadInputCounts, extra = ''): void {
  context.budget.ran(counts.total);
  caller.transcript.note(
    `bad-input: ${String(counts.total)} inputs (seed ${String(context.random.seed)}): ${counts.toString()}${extra}`,
  );
}

/** The documented JSON limits a JSON slot probes (none when the SUT config leaves them out). */
function documentedLimits(context: CaseContext): Pick<JsonSlot, 'maxDepth' | 'maxStringLength'> {
  const limits = context.sut.limits;
  return {
    ...(limits?.jsonMaxDepth === undefined ? {} : { maxDepth: limits.jsonMaxDepth }),
    ...(limits?.jsonMaxStringLength === undefined ? {} : { maxStringLength: limits.jsonMaxStringLength }),
  };
}

/**
 * Admitted edge numbers (interp-10): the task runs once, and a replay spelled canonically — the
 * double 9007199254740993 rounds to, 0 for -0 — returns the same task.
 */
async function expectEdgeReplay(
  context: CaseContext,
  caller: Caller,
  target: TaskTarget,
  input: BadJson,
  exchange: IqExchange,
): Promise<void> {
  const accepted = expectParsedResult(
    exchange,
    'json-encoding.canonical-replay-comparison',
    NS_AGENT_TASK,
    'accepted',
    parseAccepted,
  );
  const canonical = input.text
    .replace('"n":9007199254740993', '"n":9007199254740992')
    .replace('"n":-0.0e5', '"n":0')
    .replace('"n":-0', '"n":0')
    .replace('"n":1e-400', '"n":0');
  const replay = await sendInvoke(context, caller, target, 'script', null, {
    requestId: accepted.requestId,
    argumentsJson: canonical,
  });
  const again = expectAccepted(replay.exchange, 'json-encoding.canonical-replay-comparison', replay.invoke);
  expectThat(
    replay.exchange.reply.xml,
    'json-encoding.canonical-replay-comparison',
    `the original task ${accepted.taskId} for the same arguments spelled canonically (${input.what})`,
    again.taskId === accepted.taskId,
  );
  await awaitSettled(context, caller, accepted.taskId);
}

const ERROR_LIKE_MALFORMED: readonly DefinedCondition[] = [
  'bad-request',
  'not-acceptable',
  'item-not-found',
  'jid-malformed',
  'conflict',
];

export const jsonEncodingBadInput: Suite = defineSuite('json-encoding', 'JSON Payload Encoding', [
  {
    id: 'json-encoding.generated-bad-arguments',
    requirements: [
      'json-encoding.ijson-rejection',
      'json-encoding.single-json-value',
      'json-encoding.documented-limits',
      'json-encoding.no-reflection',
      'json-encoding.canonical-replay-comparison',
    ],
    profiles: ['task-execution'],
    level: 'MUST',
    scenario: 'bad-input',
    interpretations: ['interp-10', 'interp-11', 'interp-42'],
    statement:
      'Generated invocation arguments — duplicate or escaped-duplicate member names, lone surrogates, overflowing numbers, syntax errors, nesting and strings just past the documented limits — each get the error the spec gives them (not-acceptable; bad-request or not-acceptable; resource-constraint without reflecting the canary), the tool never runs for them, -0 is admitted, 9007199254740993 and 1e-400 are admitted or refused, an admitted one replayed canonically returns the same task, and the gateway still answers a ping.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const key = freshLedgerKey(context, 'bad-input.arguments');
      const canary = canaryOf(context);
      const wrapWith =
        (ledgerKey: string) =>
        (inner: string): string =>
          `{"ledgerKey":${JSON.stringify(ledgerKey)},"steps":[{"complete":{"structuredContent":${inner}}}]}`;
      requirePositiveControl(
        (
          await sendInvoke(context, caller, target, 'script', null, {
            argumentsJson: wrapWith(freshLedgerKey(context, 'bad-input.control'))('{"probe":1}'),
          })
        ).exchange,
        `${target.jid} script with valid arguments`,
      );
      const slot: JsonSlot = {
        wrap: wrapWith(key),
        ijsonRequirement: 'json-encoding.ijson-rejection',
        syntaxRequirement: 'json-encoding.single-json-value',
        ...documentedLimits(context),
        edgeNumbers: true,
      };
      // Valid numbers run the tool: under another ledger key, so `key` counts only refusals that ran.
      const edgeKey = freshLedgerKey(context, 'bad-input.edge');
      const inputs = sampleBadJson(context, slot, canary, context.budget.iterations(14, 200)).map((input) =>
        input.flaw === 'edge-number' ? { ...input, text: input.text.replace(key, edgeKey) } : input,
      );
      const counts = new BadInputCounts();
      const admitted = await sendAll(context, inputs, 'invoke', counts, canary, (input) =>
        sendInvoke(context, caller, target, 'script', null, { argumentsJson: input.text }).then(
          (sent) => sent.exchange,
        ),
      );
      for (const { input, exchange } of admitted)
        await expectEdgeReplay(context, caller, target, input, exchange);
      await expectStillAnswers(
        caller,
        context.sut.gatewayJid,
        'json-encoding.ijson-rejection',
        'bad arguments',
      );
      await expectLedgerUntouched(
        context,
        caller,
        target,
        key,
        'json-encoding.ijson-rejection',
        'the ledger key of the refused arguments never incremented (no execution)',
      );
      if (admitted.length > 0) {
        const count = await readLedger(
          context,
          caller,
          target,
          edgeKey,
          'json-encoding.canonical-replay-comparison',
        );
        expectThat(
          `count ${String(count)}`,
          'json-encoding.canonical-replay-comparison',
          `one execution per admitted edge number (${String(admitted.length)}), none for the replays`,
          count === admitted.length,
        );
      }
      note(caller, context, counts);
    },
  },
  {
    id: 'json-encoding.generated-bad-input',
    requirements: [
      'json-encoding.ijson-rejection',
      'json-encoding.single-json-value',
      'json-encoding.documented-limits',
    ],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    scenario: 'bad-input',
    interpretations: ['interp-10', 'interp-11'],
    statement:
      'Generated answers to a pending input request — I-JSON violations, syntax errors, values past the documented limits — each get the error the spec gives them and are not accepted: the request stays pending, a valid answer is then accepted, the tool sees only it, and the gateway still answers a ping.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      await requireToolFeatures(context, caller, target, 'script', ['input']);
      const { accepted } = await startTask(context, caller, target, 'script', {
        steps: [
          { input: { question: 'Anything?', inputSchema: { type: 'object' }, expiresInMs: 120_000 } },
          { complete: { echoInputs: true } },
        ],
      });
      const asked = await awaitEvent(context, caller, accepted.taskId, 'input_required');
      const requestId = inputRequestId(asked);
      const revision = asked.event.revision;
      const canary = canaryOf(context);
      const slot: JsonSlot = {
        wrap: (inner) => `{"answer":${inner}}`,
        ijsonRequirement: 'json-encoding.ijson-rejection',
        syntaxRequirement: 'json-encoding.single-json-value',
        ...documentedLimits(context),
      };
      const inputs = sampleBadJson(context, slot, canary, context.budget.iterations(10, 150));
      const counts = new BadInputCounts();
      await sendAll(context, inputs, 'provide-input', counts, canary, (input) =>
        caller.exchangeIq(
          target.jid,
          'set',
          buildProvideInput({
            taskId: accepted.taskId,
            requestId,
            expectedRevision: revision,
            inputJson: input.text,
          }),
        ),
      );
      const answer = { probe: 'valid' };
      expectInputAccepted(
        await caller.exchangeIq(
          target.jid,
          'set',
          buildProvideInput({
            taskId: accepted.taskId,
            requestId,
            expectedRevision: revision,
            inputJson: JSON.stringify(answer),
          }),
        ),
        'json-encoding.ijson-rejection',
      );
      await expectCompletedWithInputs(
        context,
        caller,
        accepted.taskId,
        [answer],
        'json-encoding.ijson-rejection',
        'completed with only the valid answer',
      );
      await expectStillAnswers(caller, context.sut.gatewayJid, 'json-encoding.ijson-rejection', 'bad input');
      note(caller, context, counts);
    },
  },
  {
    id: 'json-encoding.generated-bad-manifests',
    requirements: [
      'registration-flow.ijson-before-hash',
      'registration-flow.validate-before-commit',
      'json-encoding.documented-limits',
      'json-encoding.no-reflection',
    ],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    scenario: 'bad-input',
    interpretations: ['interp-11', 'interp-42'],
    statement:
      'Generated manifests — I-JSON violations, syntax errors, values past the documented limits in a tool’s _meta — are refused with the error the spec gives each (not-acceptable; bad-request or not-acceptable; resource-constraint without reflecting the canary), after a valid manifest from the same registrant was registered, and the gateway still answers a ping.',
    run: (context) =>
      withRestore(context, async (restorer) => {
        const registrant = await registrantFor(context, 'badjson');
        await registrationControl(context, restorer, registrant);
        const canary = canaryOf(context);
        const slot: JsonSlot = {
          wrap: (inner) =>
            `{"manifestSpecVersion":"0","agent":{"jid":${JSON.stringify(registrant.jid)},"name":"agentconf-badjson","version":${JSON.stringify(freshVersion(context))}},"tools":[{"name":"echo","inputSchema":{"type":"object"},"_meta":{"agentconf.example/probe":${inner}}}]}`,
          ijsonRequirement: 'registration-flow.ijson-before-hash',
          syntaxRequirement: 'registration-flow.validate-before-commit',
          ...documentedLimits(context),
          ...(registrant.kind === 'self' ? { unreadableClaim: ['forbidden'] } : {}),
        };
        const inputs = sampleBadJson(context, slot, canary, context.budget.iterations(10, 150));
        const counts = new BadInputCounts();
        await sendAll(context, inputs, 'register', counts, canary, (input) =>
          restorer.register(registrant.provisioning, registrant.jid, input.text),
        );
        await expectStillAnswers(
          registrant.provisioning.caller,
          context.sut.gatewayJid,
          'registration-flow.validate-before-commit',
          'bad manifests',
        );
        note(registrant.provisioning.caller, context, counts);
      }),
  },
  {
    id: 'json-encoding.catastrophic-pattern',
    requirements: [
      'rules.resource-bounds',
      'rules.target-validates-arguments',
      'json-encoding.no-reflection',
    ],
    profiles: ['task-execution'],
    level: 'MUST',
    scenario: 'bad-input',
    features: [FEATURE.admin],
    statement:
      'A tool whose registered input schema has a catastrophically backtracking pattern (^(a+)+$) is invoked with strings that would backtrack for hours (a…a!): each gets not-acceptable (the string does not match) or resource-constraint (a validation-time limit), within the reply timeout, and the gateway answers a ping right after.',
    run: (context) =>
      withRestore(context, async (restorer) => {
        const admin = await adminFor(context);
        // A tool of the conformance endpoint, so a runtime stands behind it: a gateway may refuse
        // an invocation of a tool nothing executes before it validates the arguments.
        const target = conformanceTarget(context);
        const value = JSON.parse(JSON.stringify(target.manifest.value)) as JsonObject & {
          agent: JsonObject;
          tools: JsonObject[];
        };
        const version = freshVersion(context, '1.0.9');
        value.agent['version'] = version;
        value.tools.push({
          name: 'agentconf.match',
          inputSchema: {
            type: 'object',
            properties: { s: { type: 'string', pattern: '^(a+)+$' } },
            required: ['s'],
          },
        });
        const { hash } = canonicalDocument(value);
        restorer.reactivateAtEnd({ jid: target.jid, version: target.version, hash: target.hash });
        requirePositiveControl(
          await admin.register(JSON.stringify(value)),
          `registering ${target.jid} ${version} with a tool whose pattern backtracks`,
        );
        restorer.removeVersionAtEnd(target.jid, version);
        requirePositiveControl(
          await admin.activate(target.jid, version, hash),
          `activating ${target.jid} ${version}`,
        );
        const caller = await context.callers.local();
        const invoke = (s: string): Promise<IqExchange> =>
          caller.exchangeIq(
            target.jid,
            'set',
            buildInvoke({
              requestId: freshRequestId(context),
              tool: 'agentconf.match',
              apiVersion: version,
              manifestHash: hash,
              argumentsJson: JSON.stringify({ s }),
            }),
          );
        // The positive control: a short non-matching string reaches schema validation.
        expectStanzaError(await invoke('b'), 'rules.target-validates-arguments', 'not-acceptable', context);
        const counts = new BadInputCounts();
        const timings: string[] = [];
        const runs = context.budget.iterations(1, 6);
        for (let run = 0; run < runs; run += 1) {
          const length = context.random.int(30, 5000);
          const text = `${'a'.repeat(length)}!`;
          const started = performance.now();
          const exchange = await exchangeOrSilence(
            () => invoke(text),
            'rules.resource-bounds',
            `a ${String(length + 1)}-character string against ^(a+)+$`,
          );
          timings.push(`${String(length + 1)} chars: ${(performance.now() - started).toFixed(0)} ms`);
          judgeBadInput(
            context,
            exchange,
            {
              flaw: 'catastrophic-pattern',
              what: `a ${String(length + 1)}-character a…a! against ^(a+)+$`,
              conditions: ['not-acceptable', 'resource-constraint'],
              requirement: 'rules.resource-bounds',
            },
            undefined,
            counts,
            'invoke',
          );
          await expectStillAnswers(
            caller,
            context.sut.gatewayJid,
            'rules.resource-bounds',
            'a backtracking pattern',
          );
        }
        note(caller, context, counts, `; answered in ${timings.join(', ')}`);
      }),
  },
]);

/** One request type the XSD-guided generator breaks: a valid request and where it goes. */
interface MutantBase {
  readonly base: Element;
  readonly type: 'get' | 'set';
  readonly to: string;
  readonly policy: MutantPolicy;
}

/**
 * Sends `count` mutants of each base and judges them; under --deep only those xmllint rejects,
 * returning how many it let through (sent, never judged); undefined when it did not run.
 */
async function sendMutants(
  context: CaseContext,
  caller: Caller,
  bases: readonly MutantBase[],
  count: number,
  counts: BadInputCounts,
): Promise<number | undefined> {
  const sampled = bases.map(({ base, policy }) => sampleOf(context, elementMutants(base, policy), count));
  // The mutants break the XSD by construction (bad-input.test.ts holds the generator to xmllint);
  // under --deep, where far more are drawn, xmllint confirms each one (in its worker, while they
  // travel). By default the worker's start-up and wasm compile would cost more than the mutants.
  const validation = context.budget.deep
    ? xsdInvalidOnly(sampled.flat())
    : Promise.resolve({ kept: sampled.flat(), dropped: undefined });
  const replies: { mutant: BadElement; exchange: IqExchange; requestType: string }[] = [];
  for (const [index, { base, type, to }] of bases.entries()) {
    for (const mutant of sampled[index] ?? []) {
      const exchange = await exchangeOrSilence(
        () => caller.exchangeIq(to, type, mutant.element),
        mutant.requirement,
        mutant.what,
      );
      replies.push({ mutant, exchange, requestType: base.name });
    }
  }
  const { kept, dropped } = await validation;
  const invalid = new Set(kept);
  for (const { mutant, exchange, requestType } of replies) {
    if (invalid.has(mutant)) judgeBadInput(context, exchange, mutant, undefined, counts, requestType);
  }
  return dropped;
}

function xsdNote(dropped: number | undefined): string {
  return dropped === undefined
    ? '; mutants not re-validated (xmllint confirms them under --deep)'
    : `; xmllint rejected every mutant but ${String(dropped)} (sent, not judged)`;
}

/** The recommended conditions (#errors' table) for a malformed request: others are only warned about. */
function malformed(requirement: RequirementId): MutantPolicy {
  return { conditions: ERROR_LIKE_MALFORMED, requirement, recommendedOnly: true };
}

export const errorsBadInput: Suite = defineSuite('errors', 'Error Handling', [
  {
    id: 'errors.generated-malformed-task-requests',
    requirements: [
      'security.authorize-and-validate',
      'invocation.required-parts',
      'invocation.identifier-grammar',
    ],
    profiles: ['task-execution'],
    level: 'MUST',
    scenario: 'bad-input',
    interpretations: ['interp-27', 'interp-42'],
    statement:
      'Mutants of valid invoke, provide-input, cancel, task-state and task-result requests that break the normative XSD (a required attribute or child left out, an identifier, revision or date-time outside its type, the fixed media-type changed) each get an IQ error — never a result, never silence — the tool never runs for them, and the gateway still answers a ping.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const { accepted } = await startTask(context, caller, target, 'script', {
        steps: [{ complete: { structuredContent: { done: true } } }],
      });
      const history = await awaitSettled(context, caller, accepted.taskId);
      const revision = history.at(-1)?.event.revision ?? 0;
      const taskId = accepted.taskId;
      requirePositiveControl(
        await caller.exchangeIq(target.jid, 'get', buildTaskStateRequest({ taskId })),
        `task-state of ${taskId}`,
      );
      requirePositiveControl(
        await caller.exchangeIq(target.jid, 'get', buildTaskResultRequest({ taskId })),
        `task-result of ${taskId}`,
      );
      const key = freshLedgerKey(context, 'bad-input.mutants');
      const per = context.budget.iterations(3, 40);
      const counts = new BadInputCounts();
      const requests: [Element, 'get' | 'set', RequirementId][] = [
        [
          buildInvoke({
            requestId: freshRequestId(context),
            tool: 'script',
            apiVersion: target.version,
            manifestHash: target.hash,
            argumentsJson: JSON.stringify({ ledgerKey: key, steps: [{ complete: {} }] }),
            deadline: instantFromNow(3_600_000),
          }),
          'set',
          'invocation.required-parts',
        ],
        [
          buildProvideInput({
            taskId,
            requestId: freshRequestId(context),
            expectedRevision: revision,
            inputJson: '{}',
          }),
          'set',
          'security.authorize-and-validate',
        ],
        [
          buildCancel({ taskId, expectedRevision: revision, reason: 'bad input' }),
          'set',
          'security.authorize-and-validate',
        ],
        [buildTaskStateRequest({ taskId }), 'get', 'security.authorize-and-validate'],
        [buildTaskResultRequest({ taskId }), 'get', 'security.authorize-and-validate'],
      ];
      const dropped = await sendMutants(
        context,
        caller,
        requests.map(([base, type, requirement]) => ({
          base,
          type,
          to: target.jid,
          policy: malformed(requirement),
        })),
        per,
        counts,
      );
      await expectStillAnswers(
        caller,
        context.sut.gatewayJid,
        'security.authorize-and-validate',
        'malformed task requests',
      );
      await expectLedgerUntouched(
        context,
        caller,
        target,
        key,
        'invocation.required-parts',
        'the ledger key of the malformed invocations never incremented (no execution)',
      );
      note(caller, context, counts, xsdNote(dropped));
    },
  },
  {
    id: 'errors.generated-malformed-metadata-requests',
    requirements: [
      'errors.unhandled-iq-error',
      'namespaces.version-grammar',
      'namespaces.tool-node-decoding',
    ],
    profiles: ['tool-discovery'],
    level: 'MUST',
    scenario: 'bad-input',
    interpretations: ['interp-22', 'interp-42'],
    statement:
      'Mutants of valid manifest and schema requests that break the normative XSD, and tool nodes of seeded visible tools written non-canonically (padded, in the +/ alphabet, with non-zero trailing bits), each get an IQ error — never a result, never silence — and the gateway still answers a ping.',
    run: async (context) => {
      const world = requireWorld(context);
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const manifestBase = buildManifestRequest({ version: target.version });
      const schemaBase = buildSchemaRequest({
        tool: 'script',
        version: target.version,
        direction: 'input',
        manifestHash: target.hash,
      });
      requirePositiveControl(
        await caller.exchangeIq(target.jid, 'get', manifestBase),
        `the manifest of ${target.jid}`,
      );
      requirePositiveControl(
        await caller.exchangeIq(target.jid, 'get', schemaBase),
        `the script input schema`,
      );
      const per = context.budget.iterations(4, 50);
      const counts = new BadInputCounts();
      const dropped = await sendMutants(
        context,
        caller,
        [manifestBase, schemaBase].map((base) => ({
          base,
          type: 'get' as const,
          to: target.jid,
          policy: malformed('errors.unhandled-iq-error'),
        })),
        per,
        counts,
      );
      // Tool nodes that name existing tools' bytes non-canonically (interp-22: bad-request or item-not-found).
      const tools = world.listedFor('local').flatMap((endpoint) =>
        (endpoint.active?.tools ?? []).map((tool) => ({
          endpoint,
          tool,
          version: endpoint.active?.version ?? '',
        })),
      );
      const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const traps: BadElement[] = [];
      for (let n = 0; n < per && tools.length > 0; n += 1) {
        const { endpoint, tool, version } = context.random.pick(tools);
        const prefix = `${NODE_BASE_TOOL}#${version}#`;
        const encoded = tool.node.slice(prefix.length);
        const options: [string, string][] = [];
        if (encoded.length % 4 !== 0)
          options.push(['padded', `${encoded}${'='.repeat(4 - (encoded.length % 4))}`]);
        if (/[-_]/.test(encoded))
          options.push(['+/ alphabet', encoded.replaceAll('-', '+').replaceAll('_', '/')]);
        if (encoded.length % 4 === 2 || encoded.length % 4 === 3) {
          const last = ALPHABET.indexOf(encoded.at(-1) ?? 'A');
          if ((last | 1) !== last)
            options.push(['non-zero trailing bits', `${encoded.slice(0, -1)}${ALPHABET.charAt(last | 1)}`]);
        }
        if (options.length === 0) continue;
        const [why, node] = context.random.pick(options);
        traps.push({
          flaw: 'tool-node',
          what: `${endpoint.jid} ${tool.name}'s node ${why}`,
          element: xml('query', { xmlns: NS.discoInfo, node: `${prefix}${node}` }),
          conditions: ['bad-request', 'item-not-found'],
          requirement: 'namespaces.tool-node-decoding',
          to: endpoint.jid,
        });
      }
      await sendAll(context, traps, 'disco#info tool node', counts, undefined, (trap) =>
        caller.exchangeIq(trap.to ?? target.jid, 'get', trap.element),
      );
      await expectStillAnswers(
        caller,
        context.sut.gatewayJid,
        'errors.unhandled-iq-error',
        'malformed metadata requests',
      );
      note(caller, context, counts, xsdNote(dropped));
    },
  },
  {
    id: 'errors.generated-malformed-provisioning',
    requirements: ['errors.unhandled-iq-error', 'registration-flow.validate-before-commit'],
    profiles: ['admin-provisioning'],
    level: 'MUST',
    scenario: 'bad-input',
    features: [FEATURE.admin],
    interpretations: ['interp-24', 'interp-42'],
    statement:
      'Mutants of valid register, activate, deactivate, registration-status, remove-version and remove-endpoint requests for an endpoint the case provisions — a required attribute or child left out, a version outside its grammar, a JID no preparation accepts, the fixed media-type changed — each get an IQ error from the administrator’s gateway, the endpoint stays as it was, and the gateway still answers a ping.',
    run: (context) =>
      withRestore(context, async (restorer) => {
        const admin = await adminFor(context);
        const { jid } = freshEndpoint(context, 'malformed');
        const version = freshVersion(context);
        const manifest: JsonObject = {
          manifestSpecVersion: '0',
          agent: { jid, name: 'agentconf-malformed', version },
          tools: [],
        };
        const hash = await provisionActive(restorer, admin, jid, version, manifest);
        const status = buildRegistrationStatus({ jid });
        requirePositiveControl(
          await admin.caller.exchangeIq(admin.gateway, 'get', status),
          `registration-status of ${jid}`,
        );
        const next = {
          ...manifest,
          agent: { jid, name: 'agentconf-malformed', version: freshVersion(context) },
        };
        const per = context.budget.iterations(3, 40);
        const counts = new BadInputCounts();
        const requests: [Element, 'get' | 'set'][] = [
          [buildRegister({ manifestJson: JSON.stringify(next) }), 'set'],
          [buildActivate({ jid, version, hash }), 'set'],
          [buildDeactivate({ jid }), 'set'],
          [status, 'get'],
          [buildRemoveVersion({ jid, version }), 'set'],
          [buildRemoveEndpoint({ jid }), 'set'],
        ];
        const dropped = await sendMutants(
          context,
          admin.caller,
          requests.map(([base, type]) => ({
            base,
            type,
            to: admin.gateway,
            policy: malformed(
              base.name === 'register'
                ? 'registration-flow.validate-before-commit'
                : 'errors.unhandled-iq-error',
            ),
          })),
          per,
          counts,
        );
        // Nothing a mutant asked for happened: the endpoint still has exactly its one version, active.
        const versions = await registeredVersions(context, admin, jid, 'errors.unhandled-iq-error');
        expectThat(
          describeVersions(versions),
          'errors.unhandled-iq-error',
          `${jid} still registered with ${version} active and nothing else after the malformed requests`,
          versions.length === 1 && versions[0]?.id === version && versions[0].active,
        );
        await expectStillAnswers(
          admin.caller,
          context.sut.gatewayJid,
          'errors.unhandled-iq-error',
          'malformed provisioning requests',
        );
        note(admin.caller, context, counts, xsdNote(dropped));
      }),
  },
]);
