/**
 * json-encoding.authorize-before-limits on the task surfaces: arguments and input past a
 * documented JSON limit from a principal the operation's authorization refuses get that
 * refusal (item-not-found), never resource-constraint, which would tell the stranger the
 * endpoint or the task exists. Each case first shows the limit biting for the authorized
 * principal (else nothing here could tell the order), and a resource-constraint for the stranger
 * counts only when the same stranger's request within the limits then gets item-not-found:
 * content-dependent, so no rate limit answered it.
 */
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import type { JsonObject, JsonValue } from '../../../protocol/json/json-value.ts';
import type { SutLimits } from '../../../harness/sut/sut-config.ts';
import type { CaseDeclaration } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectStanzaError } from '../../framework/expect.ts';
import { CannotTell, MissingFixture, RequirementViolation } from '../../framework/verdicts.ts';
import { requireWorld } from '../../fixtures/reference-world.ts';
import { expectLedgerUntouched, freshLedgerKey } from '../support/ledger.ts';
import { localPeer } from '../support/task-accounts.ts';
import { inputRequestId } from '../support/task-events.ts';
import { expectInputAccepted } from '../support/task-replies.ts';
import { TaskSession } from '../support/task-session.ts';
import { conformanceTarget, targetOf, type TaskTarget } from '../support/task-target.ts';
import { requireToolFeatures } from '../support/tool-features.ts';

/** Past this a probe may not pass an XMPP server in one stanza (as json-encoding/index.ts). */
const MAX_PROBE_BYTES = 200 * 1024;

type JsonLimit = 'jsonMaxDepth' | 'jsonMaxArrayItems' | 'jsonMaxObjectMembers' | 'jsonMaxStringLength';

/**
 * A value that, as a member of the request's top-level object, takes the document past the
 * limit by at least one whichever way a gateway counts (depth: the top-level object as 1 or 0).
 */
const OVER_LIMIT: Readonly<Record<JsonLimit, (value: number) => JsonValue>> = {
  jsonMaxDepth: (value) => {
    let nested: JsonValue = [];
    for (let level = 0; level < value; level += 1) nested = [nested];
    return nested;
  },
  jsonMaxArrayItems: (value) => Array.from({ length: value + 1 }, () => 0),
  jsonMaxObjectMembers: (value) =>
    Object.fromEntries(Array.from({ length: value + 1 }, (_, i) => [i.toString(36), 0])),
  jsonMaxStringLength: (value) => 'x'.repeat(value + 1),
};

interface OverLimitProbe {
  readonly limit: JsonLimit;
  readonly value: number;
  readonly probe: JsonValue;
}

/** The first documented limit (cheapest first) whose probe an XMPP server carries. */
function overLimitProbe(limits: SutLimits | undefined): OverLimitProbe {
  for (const limit of Object.keys(OVER_LIMIT) as JsonLimit[]) {
    const value = limits?.[limit];
    if (value === undefined) continue;
    const probe = OVER_LIMIT[limit](value);
    if (Buffer.byteLength(JSON.stringify(probe)) <= MAX_PROBE_BYTES) return { limit, value, probe };
  }
  throw new MissingFixture(
    'the SUT config documents no JSON depth, item, member or string limit small enough to exceed in one stanza',
  );
}

/**
 * The stranger's refusal must be item-not-found; a resource-constraint instead is judged only
 * when `withinLimits` (the same request within every limit, from the same stranger) then gets
 * item-not-found: only the content differed, so the limit answered before authorization.
 */
async function expectAuthorizationFirst(
  context: CaseContext,
  refused: IqExchange,
  withinLimits: () => Promise<IqExchange>,
  who: string,
): Promise<void> {
  if (refused.parsed.type === 'error' && refused.parsed.error.condition === 'resource-constraint') {
    const control = await withinLimits();
    if (control.parsed.type !== 'error' || control.parsed.error.condition !== 'item-not-found') {
      throw new CannotTell(
        `${who} got resource-constraint past the limit and ${control.parsed.type === 'error' ? `<${control.parsed.error.condition}/>` : 'a result'} within it: a rate limit or another rule may have answered`,
      );
    }
    throw new RequirementViolation(
      'json-encoding.authorize-before-limits',
      `<item-not-found/> for ${who} whatever the JSON holds (its request within the limits got it)`,
      refused.reply.xml,
      `json-encoding.authorize-before-limits: ${who} got resource-constraint for over-limit JSON, item-not-found within the limits`,
    );
  }
  expectStanzaError(refused, 'json-encoding.authorize-before-limits', 'item-not-found', context);
}

/** The authorized principal's over-limit request must meet the limit, or no order can be seen. */
function requireLimitBites(exchange: IqExchange, over: OverLimitProbe, what: string): void {
  const condition = exchange.parsed.type === 'error' ? exchange.parsed.error.condition : 'a result';
  if (condition !== 'resource-constraint') {
    throw new CannotTell(
      `${what} past the documented ${over.limit} ${String(over.value)} got ${condition === 'a result' ? condition : `<${condition}/>`}, not resource-constraint: the limit does not bite there, so the order of authorization and limit cannot be seen`,
    );
  }
}

function scriptArguments(ledgerKey: string, probe?: JsonValue): JsonObject {
  return { ledgerKey, steps: [{ complete: {} }], ...(probe === undefined ? {} : { probe }) };
}

export const authorizeBeforeLimitsCases: readonly CaseDeclaration<'json-encoding'>[] = [
  {
    id: 'json-encoding.authorize-before-limits-invoke',
    requirements: ['json-encoding.authorize-before-limits'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-27', 'interp-42'],
    statement:
      'Arguments past a documented JSON limit get resource-constraint from the local caller (the limit bites), but item-not-found from a caller of a domain with no grants and from the local caller at an endpoint it may see but not invoke; the tool never runs.',
    run: async (context) => {
      const world = requireWorld(context);
      const over = overLimitProbe(context.sut.limits);
      const target = conformanceTarget(context);
      const key = freshLedgerKey(context, 'json-encoding.authorize-before-limits');
      const tasks = new TaskSession(context, await context.callers.local(), target);
      requireLimitBites(
        (await tasks.invoke('script', scriptArguments(key, over.probe))).exchange,
        over,
        `the local caller's arguments to ${target.jid}`,
      );
      const restricted: TaskTarget = targetOf(world.restrictedEndpoint);
      const restrictedTool = restricted.manifest.tools[0]?.name;
      if (restrictedTool === undefined) {
        throw new MissingFixture(
          `the fixture world's endpoint ${restricted.jid} (visible to the local caller, not invocable) has no tool to invoke: give its manifest one`,
        );
      }
      const strangers: { who: string; tasks: TaskSession; tool: string }[] = [
        {
          who: `a caller with no grants invoking ${target.jid}`,
          tasks: new TaskSession(context, await context.callers.denied(), target),
          tool: 'script',
        },
        {
          who: `the local caller invoking ${restricted.jid}, which it may see but not invoke`,
          tasks: new TaskSession(context, tasks.caller, restricted),
          tool: restrictedTool,
        },
      ];
      for (const stranger of strangers) {
        const refused = (await stranger.tasks.invoke(stranger.tool, scriptArguments(key, over.probe)))
          .exchange;
        await expectAuthorizationFirst(
          context,
          refused,
          async () => (await stranger.tasks.invoke(stranger.tool, scriptArguments(key))).exchange,
          stranger.who,
        );
      }
      await expectLedgerUntouched(
        tasks,
        key,
        'json-encoding.authorize-before-limits',
        'the ledger key never incremented (no invocation ran)',
      );
    },
  },
  {
    id: 'json-encoding.authorize-before-limits-input',
    requirements: ['json-encoding.authorize-before-limits'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    interpretations: ['interp-42'],
    statement:
      'An answer past a documented JSON limit to a pending input request gets resource-constraint from the task’s owner (the limit bites) but item-not-found from another account of the same domain and from a federated account; the request stays pending and the owner’s valid answer completes the task.',
    run: async (context) => {
      const over = overLimitProbe(context.sut.limits);
      const tasks = new TaskSession(context, await context.callers.local(), conformanceTarget(context));
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
      requireLimitBites(
        await tasks.provideInput(accepted.taskId, requestId, revision, { probe: over.probe }),
        over,
        'the owner’s answer',
      );
      const strangers: { who: string; caller: Caller }[] = [
        { who: 'another account of the owner’s domain', caller: await localPeer(context) },
        { who: 'a federated account', caller: await context.callers.remote() },
      ];
      for (const { who, caller } of strangers) {
        const theirs = new TaskSession(context, caller, tasks.target);
        const refused = await theirs.provideInput(accepted.taskId, requestId, revision, {
          probe: over.probe,
        });
        await expectAuthorizationFirst(
          context,
          refused,
          () => theirs.provideInput(accepted.taskId, requestId, revision, { probe: 'within' }),
          `${who} answering the owner’s input request`,
        );
      }
      const answer = { probe: 'valid' };
      expectInputAccepted(
        await tasks.provideInput(accepted.taskId, requestId, revision, answer),
        'json-encoding.authorize-before-limits',
      );
      await tasks.expectCompletedWithInputs(
        accepted.taskId,
        [answer],
        'json-encoding.authorize-before-limits',
        'completed with only the owner’s valid answer',
      );
    },
  },
];
