/**
 * Generated bad JSON (issue 14, item 5; scenario `bad-input`): for every request type that
 * carries JSON, seeded fast-check samples a gateway must refuse (I-JSON violations, syntax errors,
 * nesting and strings past the documented limits, the numbers of interp-10). Each must get an IQ
 * error with a condition the spec allows for it, the planted canary must not come back (a MUST
 * for a limit rejection) and the gateway must still answer a ping afterwards. A registered tool
 * schema with a catastrophic `pattern` must not stop it from answering within the reply timeout.
 * Generators and judging: ../support/bad-input.ts; docs/bad-input.md tabulates the answers.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import { FEATURE, NS_AGENT_TASK } from '../../../protocol/namespaces.ts';
import { buildInvoke, buildProvideInput, parseAccepted, type Hash } from '../../../protocol/stanza/index.ts';
import type { ProvisioningClient } from '../../../harness/provisioning/provisioning-client.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  expectParsedResult,
  expectStanzaError,
  expectThat,
  requirePositiveControl,
} from '../../framework/expect.ts';
import {
  BadInputCounts,
  exchangeOrSilence,
  expectStillAnswers,
  judgeBadInput,
  sampleBadJson,
  type BadJson,
  type JsonSlot,
} from '../support/bad-input.ts';
import {
  adminFor,
  freshToken,
  freshVersion,
  registrantFor,
  registrationControl,
  withRestore,
  type Restorer,
} from '../support/provisioning.ts';
import { expectLedgerUntouched, freshLedgerKey, readLedger } from '../support/ledger.ts';
import { inputRequestId } from '../support/task-events.ts';
import { expectAccepted, expectInputAccepted } from '../support/task-replies.ts';
import { freshRequestId, TaskSession } from '../support/task-session.ts';
import { conformanceTarget, type TaskTarget } from '../support/task-target.ts';
import { requireToolFeatures } from '../support/tool-features.ts';
import { sendAll, note } from '../support/bad-input.ts';
import { activateExtraToolVersion, registerWithExtraTool } from './extra-tool-version.ts';

function canaryOf(context: CaseContext): string {
  return `agentconfcanary${freshToken(context)}`;
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
async function expectEdgeReplay(tasks: TaskSession, input: BadJson, exchange: IqExchange): Promise<void> {
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
  const replay = await tasks.invoke('script', null, {
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
  await tasks.awaitSettled(accepted.taskId);
}

/**
 * Registers and activates a version of the conformance endpoint with one more tool, whose schema
 * pattern backtracks catastrophically, removed at the end (the invocations are refused: no task
 * pins it).
 */
async function activateBacktrackingVersion(
  context: CaseContext,
  restorer: Restorer,
  admin: ProvisioningClient,
  target: TaskTarget,
): Promise<{ readonly version: string; readonly hash: Hash }> {
  const extra = await registerWithExtraTool(
    context,
    restorer,
    admin,
    target,
    {
      name: 'agentconf.match',
      inputSchema: {
        type: 'object',
        properties: { s: { type: 'string', pattern: '^(a+)+$' } },
        required: ['s'],
      },
    },
    '1.0.9',
  );
  const { version, hash } = extra.target;
  requirePositiveControl(
    extra.registered,
    `registering ${target.jid} ${version} with a tool whose pattern backtracks`,
  );
  restorer.removeVersionAtEnd(target.jid, version);
  await activateExtraToolVersion(admin, extra);
  return { version, hash };
}

/**
 * One string of random length that would backtrack for hours: refused as the spec allows within
 * the reply timeout, and the gateway still answers a ping. Returns how long the answer took.
 */
async function expectBacktrackingBounded(
  context: CaseContext,
  caller: Caller,
  invoke: (s: string) => Promise<IqExchange>,
  counts: BadInputCounts,
): Promise<string> {
  const length = context.random.int(30, 5000);
  const text = `${'a'.repeat(length)}!`;
  const started = performance.now();
  const exchange = await exchangeOrSilence(
    () => invoke(text),
    'rules.resource-bounds',
    `a ${String(length + 1)}-character string against ^(a+)+$`,
  );
  const timing = `${String(length + 1)} chars: ${(performance.now() - started).toFixed(0)} ms`;
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
  await expectStillAnswers(caller, context.sut.gatewayJid, 'rules.resource-bounds', 'a backtracking pattern');
  return timing;
}

export const badInputCases: readonly CaseDeclaration<'json-encoding'>[] = [
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
      const tasks = new TaskSession(context, caller, target);
      const key = freshLedgerKey(context, 'bad-input.arguments');
      const canary = canaryOf(context);
      const wrapWith =
        (ledgerKey: string) =>
        (inner: string): string =>
          `{"ledgerKey":${JSON.stringify(ledgerKey)},"steps":[{"complete":{"structuredContent":${inner}}}]}`;
      requirePositiveControl(
        (
          await tasks.invoke('script', null, {
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
        tasks.invoke('script', null, { argumentsJson: input.text }).then((sent) => sent.exchange),
      );
      for (const { input, exchange } of admitted) await expectEdgeReplay(tasks, input, exchange);
      await expectStillAnswers(
        caller,
        context.sut.gatewayJid,
        'json-encoding.ijson-rejection',
        'bad arguments',
      );
      await expectLedgerUntouched(
        tasks,
        key,
        'json-encoding.ijson-rejection',
        'the ledger key of the refused arguments never incremented (no execution)',
      );
      if (admitted.length > 0) {
        const count = await readLedger(tasks, edgeKey, 'json-encoding.canonical-replay-comparison');
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
      const tasks = new TaskSession(context, caller, target);
      await requireToolFeatures(tasks, 'script', ['input']);
      const { accepted } = await tasks.start('script', {
        steps: [
          { input: { question: 'Anything?', inputSchema: { type: 'object' }, expiresInMs: 120_000 } },
          { complete: { echoInputs: true } },
        ],
      });
      const asked = await tasks.awaitEvent(accepted.taskId, 'input_required');
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
      await tasks.expectCompletedWithInputs(
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
      'schemas.bounded-regex',
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
        const target = conformanceTarget(context);
        const { version, hash } = await activateBacktrackingVersion(context, restorer, admin, target);
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
        for (let run = 0; run < runs; run += 1)
          timings.push(await expectBacktrackingBounded(context, caller, invoke, counts));
        note(caller, context, counts, `; answered in ${timings.join(', ')}`);
      }),
  },
];
