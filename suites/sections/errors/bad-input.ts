/**
 * Generated malformed requests (issue 14, item 5; scenario `bad-input`): XSD-guided mutants of
 * valid request elements (../support/bad-input.ts, ../support/xsd-model.ts) for every request
 * type the gateway accepts. Each must get an IQ error with a condition the spec allows for it,
 * the planted canary should not come back (a warning here) and the gateway must still answer a
 * ping afterwards. Counts per request type and outcome go to the case's transcript;
 * docs/bad-input.md tabulates what each input must get.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import { xml, type Element } from '@xmpp/xml';
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import type { JsonObject } from '../../../protocol/json/json-value.ts';
import { FEATURE, NODE_BASE_TOOL, NS } from '../../../protocol/namespaces.ts';
import {
  buildCancel,
  buildInvoke,
  buildManifestRequest,
  buildProvideInput,
  buildSchemaRequest,
  buildTaskResultRequest,
  buildTaskStateRequest,
  provisioningRequest,
  type DefinedCondition,
} from '../../../protocol/stanza/index.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectThat, requirePositiveControl } from '../../framework/expect.ts';
import { requireWorld } from '../../fixtures/reference-world.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';
import {
  BadInputCounts,
  elementMutants,
  exchangeOrSilence,
  expectStillAnswers,
  judgeBadInput,
  sampleOf,
  xsdInvalidOnly,
  type BadElement,
  type MutantPolicy,
} from '../support/bad-input.ts';
import {
  adminFor,
  describeVersions,
  freshEndpoint,
  freshVersion,
  provisionActive,
  registeredVersions,
  withRestore,
} from '../support/provisioning.ts';
import { instantFromNow } from '../support/gateway-clock.ts';
import { expectLedgerUntouched, freshLedgerKey } from '../support/ledger.ts';
import { freshRequestId, TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { sendAll, note } from '../support/bad-input.ts';

const ERROR_LIKE_MALFORMED: readonly DefinedCondition[] = [
  'bad-request',
  'not-acceptable',
  'item-not-found',
  'jid-malformed',
  'conflict',
];

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

export const badInputCases: readonly CaseDeclaration<'errors'>[] = [
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
      const tasks = new TaskSession(context, caller, target);
      const { accepted } = await tasks.start('script', {
        steps: [{ complete: { structuredContent: { done: true } } }],
      });
      const history = await tasks.awaitSettled(accepted.taskId);
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
        tasks,
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
        const status = provisioningRequest.registrationStatus(jid);
        requirePositiveControl(
          await admin.caller.exchangeIq(admin.gateway, status.type, status.payload),
          `registration-status of ${jid}`,
        );
        const next = {
          ...manifest,
          agent: { jid, name: 'agentconf-malformed', version: freshVersion(context) },
        };
        const per = context.budget.iterations(3, 40);
        const counts = new BadInputCounts();
        // Every operation of the admin vocabulary, each with the IQ type the spec gives it.
        const requests = [
          provisioningRequest.register(JSON.stringify(next)),
          provisioningRequest.activate(jid, version, hash),
          provisioningRequest.deactivate(jid),
          status,
          provisioningRequest.removeVersion(jid, version),
          provisioningRequest.removeEndpoint(jid),
        ];
        const dropped = await sendMutants(
          context,
          admin.caller,
          requests.map(({ payload: base, type }) => ({
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
];
