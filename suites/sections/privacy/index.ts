/**
 * #privacy: being listed is not being authorized. An endpoint a caller finds in the directory,
 * with its endpoint information, gives that caller no invocation right (the world's restricted
 * endpoint: visible to local callers, invocable by none of them), and an endpoint hidden from a
 * caller keeps its tools' schemas private from it (interp-26).
 *
 * Side channels (privacy.enumeration-side-channels, and task-recovery.timing-equivalence for task
 * IDs): hidden and nonexistent endpoints, and another caller's, nonexistent and expired task IDs,
 * should take similar time to refuse. The not-found-timing cases measure them with a dudect-style
 * test (suites/framework/timing-test.ts, support/timing.ts, docs/timing.md): the classes
 * interleaved in seeded random order, Welch's t on raw and cropped round-trip times, an early
 * stop on clear evidence. Both requirements are SHOULDs (interp-46), so a leak is a warning and
 * "no evidence" passes stating the smallest delay the run could have seen. The probes go out as
 * the local peer, whose grants are the local caller's, so the rate-limit tokens they take
 * (every request takes one, #privacy) are not the local caller's, which most cases use. Shared
 * rate limits cannot be checked: the SUT config documents none.
 */
import type { Element } from '@xmpp/xml';
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import { dateTimeFromMillis, toEpochMillis, type XmppDateTime } from '../../../protocol/datetime.ts';
import { NODE_DIRECTORY } from '../../../protocol/namespaces.ts';
import { normalizeBareJid } from '../../../protocol/jid/index.ts';
import { buildSchemaRequest } from '../../../protocol/stanza/index.ts';
import { defineSuite } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  expectDiscoInfo,
  expectStanzaError,
  expectThat,
  requirePositiveControl,
} from '../../framework/expect.ts';
import { MissingFixture, RequirementViolation } from '../../framework/verdicts.ts';
import { requireWorld } from '../../fixtures/reference-world.ts';
import { mergeOutcomes, type TimingOutcome } from '../../framework/timing-test.ts';
import { callerFor, discoInfo, listing, roleThatMaySee, traverse } from '../support/discovery.ts';
import { exampleArguments } from '../support/manifests.ts';
import { nonexistentLike, probe, SURFACES, targetOf as surfaceTargetOf } from '../support/surfaces.ts';
import {
  type GatewayClock,
  measureGatewayClock,
  passOnGatewayClock,
  startShortlyRetained,
} from '../support/gateway-clock.ts';
import { expectTaskState } from '../support/task-replies.ts';
import { TaskSession } from '../support/task-session.ts';
import { conformanceTarget, targetOf, type TaskTarget } from '../support/task-target.ts';
import {
  judgeTiming,
  measureTiming,
  TIMING_CASE_TIMEOUT_MS,
  type TimedClass,
  type TimingBudget,
} from '../support/timing.ts';

/**
 * Discovery and metadata requests of one kind sent to the endpoint hidden from the caller and to
 * a JID that names nothing, as timing classes: both must answer item-not-found (or, where
 * interp-16 allows it, an empty result).
 */
function hiddenAndNonexistent(
  context: CaseContext,
  caller: Caller,
  surfaceNames: readonly string[],
): TimedClass[] {
  const world = requireWorld(context);
  const hidden = surfaceTargetOf(world.hiddenEndpoint);
  const nobody = nonexistentLike(hidden, world.nonexistentJid);
  return surfaceNames.flatMap((name) => {
    const surface = SURFACES.find((candidate) => candidate.name === name);
    if (surface === undefined) throw new Error(`no surface ${name}`);
    const check = (exchange: IqExchange): void => {
      if (exchange.parsed.type === 'result' && surface.emptyResultAllowed) return;
      expectStanzaError(exchange, 'errors.not-found-equivalence', 'item-not-found', context);
    };
    return [
      { label: `${surface.name} of hidden ${hidden.jid}`, send: () => probe(caller, hidden, surface), check },
      {
        label: `${surface.name} of nonexistent ${nobody.jid}`,
        send: () => probe(caller, nobody, surface),
        check,
      },
    ];
  });
}

/** Pairs (0, 1), (2, 3), …: each surface's hidden class against its nonexistent one. */
function pairwise(classes: readonly TimedClass[]): [number, number][] {
  return Array.from({ length: classes.length / 2 }, (_, index) => [2 * index, 2 * index + 1]);
}

/** The caller the hidden endpoint is hidden from that the fewest other cases use. */
async function timingProber(context: CaseContext): Promise<Caller> {
  const world = requireWorld(context);
  const role = (['localPeer', 'local'] as const).find(
    (candidate) => !world.maySee(candidate, world.hiddenEndpoint),
  );
  if (role === undefined)
    throw new MissingFixture(`the fixture world hides ${world.hiddenEndpoint.jid} from no local account`);
  return callerFor(context, role);
}

async function discoveryTiming(
  context: CaseContext,
  surfaceNames: readonly string[],
  budget: TimingBudget,
): Promise<void> {
  const caller = await timingProber(context);
  const classes = hiddenAndNonexistent(context, caller, surfaceNames);
  const rounds = context.budget.iterations(budget.rounds, budget.deepRounds);
  const outcome = await measureTiming(context, caller, classes, pairwise(classes), rounds);
  context.budget.ran(outcome.rounds);
  judgeTiming(context, caller, 'privacy.enumeration-side-channels', 'SHOULD', outcome);
}

/** A task ID that names nothing, with the length and character classes of `like` after its first '-'. */
function lookalikeTaskId(context: CaseContext, like: string): string {
  const dash = like.indexOf('-') + 1;
  const pick = (alphabet: string): string => alphabet.charAt(context.random.int(0, alphabet.length - 1));
  const tail = like
    .slice(dash)
    .replace(/[0-9A-Za-z]/g, (char) =>
      /[0-9]/.test(char)
        ? pick('0123456789')
        : /[a-f]/.test(char)
          ? pick('abcdef')
          : /[a-z]/.test(char)
            ? pick('abcdefghijklmnopqrstuvwxyz')
            : pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ'),
    );
  return like.slice(0, dash) + tail;
}

/** Cancels the held task of another caller (cleanup: its answer does not matter). */
async function cancelHeld(ownerTasks: TaskSession, taskId: string): Promise<void> {
  const { revision } = expectTaskState(await ownerTasks.state(taskId), 'task-recovery.caller-authorization');
  await ownerTasks.cancel(taskId, revision);
}

/** How long after retain-until a gateway may still answer for a task before the expired class is left out. */
const FORGET_GRACE_MS = 3_000;

/**
 * Waits until `retainUntil` has passed on the gateway's clock and the gateway refuses the task;
 * false when it still answers for it FORGET_GRACE_MS later (keeping a task longer is allowed).
 */
async function awaitForgotten(
  tasks: TaskSession,
  clock: GatewayClock,
  taskId: string,
  retainUntil: XmppDateTime,
): Promise<boolean> {
  const { caller } = tasks;
  await passOnGatewayClock(tasks, dateTimeFromMillis(toEpochMillis(retainUntil) + 100));
  const giveUpAt = clock.reachedBy(retainUntil) + FORGET_GRACE_MS;
  for (;;) {
    const state = await tasks.state(taskId);
    if (state.parsed.type === 'error') return true;
    if (Date.now() >= giveUpAt) break;
    await passOnGatewayClock(tasks, clock.ahead(300));
  }
  caller.transcript.note(
    `timing: the gateway still answers for ${taskId} ${String(FORGET_GRACE_MS / 1000)} s after its retain-until (allowed), so no expired task was measured`,
  );
  return false;
}

/** Default and --deep rounds of each timing case (docs/timing.md has the seconds they take). */
const TIMING_BUDGETS = {
  endpoint: { rounds: 60, deepRounds: 2500 },
  tools: { rounds: 30, deepRounds: 1250 },
  manifest: { rounds: 60, deepRounds: 2500 },
  taskIds: { rounds: 60, deepRounds: 2500 },
} as const satisfies Record<string, TimingBudget>;

const TIMING_STATEMENT =
  'interleaved in seeded random order after a warm-up, compared by Welch’s t on raw and percentile-cropped round-trip times (docs/timing.md); a leak is a warning, and no evidence passes as "no leak detectable above X µs at N"';

/** A task of the caller's own with a short retention, or undefined (noted) without that fixture. */
async function startExpiring(
  tasks: TaskSession,
  clock: GatewayClock,
): Promise<{ readonly taskId: string; readonly retainUntil: XmppDateTime } | undefined> {
  const { caller } = tasks;
  try {
    const { accepted } = await startShortlyRetained(tasks, clock, { steps: [{ complete: {} }] }, 50);
    return { taskId: accepted.taskId, retainUntil: accepted.retainUntil };
  } catch (error) {
    if (!(error instanceof MissingFixture)) throw error;
    caller.transcript.note(`timing: no expired task to measure: ${error.message}`);
    return undefined;
  }
}

/** Times task-state for two task IDs, each of which must get item-not-found. */
function measureStateTiming(
  context: CaseContext,
  caller: Caller,
  target: TaskTarget,
  rounds: number,
  [[firstLabel, firstId], [secondLabel, secondId]]: readonly [
    readonly [label: string, taskId: string],
    readonly [label: string, taskId: string],
  ],
): Promise<TimingOutcome> {
  const tasks = new TaskSession(context, caller, target);
  const notFound = (exchange: IqExchange): void => {
    expectStanzaError(exchange, 'task-recovery.indistinguishable-not-found', 'item-not-found', context);
  };
  return measureTiming(
    context,
    caller,
    [
      { label: firstLabel, send: () => tasks.state(firstId), check: notFound },
      { label: secondLabel, send: () => tasks.state(secondId), check: notFound },
    ],
    [[0, 1]],
    rounds,
  );
}

export const privacySuite = defineSuite('privacy', 'Privacy Considerations', [
  {
    id: 'privacy.listing-grants-nothing',
    scenario: 'equivalence',
    requirements: ['privacy.profile-not-authority'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-26'],
    statement:
      'The local caller finds the restricted endpoint in the directory and reads its endpoint information, yet an exactly pinned invocation of each of its tools gets item-not-found; and the input schemas of the endpoint hidden from it get item-not-found too.',
    run: async (context) => {
      const world = requireWorld(context);
      const restricted = world.restrictedEndpoint;
      const caller = await context.callers.local();
      const listed = (
        await traverse(caller, context.sut.gatewayJid, NODE_DIRECTORY, 50, 'privacy.profile-not-authority')
      ).items.map((item) => normalizeBareJid(item.jid));
      expectThat(
        listing(listed),
        'privacy.profile-not-authority',
        `${restricted.jid} in the local caller's directory (the world lets it see the endpoint)`,
        listed.includes(restricted.jid),
      );
      expectDiscoInfo(await discoInfo(caller, restricted.jid), 'privacy.profile-not-authority');
      const target = targetOf(restricted);
      const tasks = new TaskSession(context, caller, target);
      // The positive control: a role the world lets invoke the restricted endpoint is admitted.
      const invoker = (['remote', 'remotePeer'] as const).find((role) =>
        world.mayInvokeAny(role, restricted),
      );
      const invocable = restricted.active.tools.find(
        (tool) => invoker !== undefined && world.mayInvoke(invoker, restricted, tool.name),
      );
      if (invoker === undefined || invocable === undefined) {
        throw new MissingFixture(
          `no caller role of the fixture world may invoke ${restricted.jid}, so nothing shows that the local caller's refusal is not a refusal of every invocation`,
        );
      }
      const invokerTasks = new TaskSession(context, await callerFor(context, invoker), target);
      requirePositiveControl(
        (await invokerTasks.invoke(invocable.name, exampleArguments(invocable.inputSchema.bytes))).exchange,
        `the ${invoker} caller, whom the world lets invoke it, invoking ${restricted.jid} ${invocable.name}`,
      );
      for (const tool of restricted.active.tools) {
        const { exchange } = await tasks.invoke(tool.name, {});
        if (exchange.parsed.type === 'result') {
          throw new RequirementViolation(
            'privacy.profile-not-authority',
            `item-not-found: seeing ${restricted.jid} in the directory grants no invocation of ${tool.name}`,
            exchange.reply.xml,
          );
        }
        expectStanzaError(exchange, 'privacy.profile-not-authority', 'item-not-found', context);
      }
      const hidden = world.hiddenEndpoint;
      const seer = await callerFor(context, roleThatMaySee(world, hidden, ['remote', 'remotePeer']));
      const schemaOf = (tool: string): Element =>
        buildSchemaRequest({
          tool,
          version: hidden.active.version,
          direction: 'input',
          manifestHash: hidden.active.document.hash,
        });
      for (const tool of hidden.active.tools) {
        requirePositiveControl(
          await seer.exchangeIq(hidden.jid, 'get', schemaOf(tool.name)),
          `the input schema of ${hidden.jid} ${tool.name} for ${seer.bareJid}, who may see it`,
        );
        const exchange = await caller.exchangeIq(hidden.jid, 'get', schemaOf(tool.name));
        expectStanzaError(exchange, 'privacy.profile-not-authority', 'item-not-found', context);
      }
    },
  },
  {
    id: 'privacy.not-found-timing-endpoint',
    requirements: ['privacy.enumeration-side-channels'],
    profiles: ['core-directory'],
    level: 'SHOULD',
    scenario: 'timing',
    timeoutMs: TIMING_CASE_TIMEOUT_MS,
    interpretations: ['interp-46'],
    statement: `Endpoint information and endpoint items of the endpoint hidden from a local caller and of a nonexistent one take the same time: ${TIMING_STATEMENT}.`,
    run: (context) => discoveryTiming(context, ['endpoint info', 'endpoint items'], TIMING_BUDGETS.endpoint),
  },
  {
    id: 'privacy.not-found-timing-tools',
    requirements: ['privacy.enumeration-side-channels'],
    profiles: ['tool-discovery'],
    level: 'SHOULD',
    scenario: 'timing',
    timeoutMs: TIMING_CASE_TIMEOUT_MS,
    interpretations: ['interp-46'],
    statement: `The tool collection (information and items), a tool node's information and a tool's input schema, asked of the endpoint hidden from a local caller and of a nonexistent one, take the same time: ${TIMING_STATEMENT}.`,
    run: (context) =>
      discoveryTiming(
        context,
        ['collection info', 'collection items', 'tool info', 'input schema'],
        TIMING_BUDGETS.tools,
      ),
  },
  {
    id: 'privacy.not-found-timing-manifest',
    requirements: ['privacy.enumeration-side-channels'],
    profiles: ['tool-discovery'],
    level: 'SHOULD',
    scenario: 'timing',
    timeoutMs: TIMING_CASE_TIMEOUT_MS,
    interpretations: ['interp-46'],
    statement: `The active manifest and an exact version's manifest of the endpoint hidden from a local caller and of a nonexistent one take the same time: ${TIMING_STATEMENT}.`,
    run: (context) =>
      discoveryTiming(context, ['active manifest', 'exact manifest'], TIMING_BUDGETS.manifest),
  },
  {
    id: 'privacy.not-found-timing-task-ids',
    requirements: ['task-recovery.timing-equivalence'],
    profiles: ['task-execution'],
    level: 'SHOULD',
    scenario: 'timing',
    timeoutMs: TIMING_CASE_TIMEOUT_MS,
    interpretations: ['interp-46'],
    statement: `Task state asked for another caller's (running) task and for a task ID that names nothing take the same time, and so do the caller's own task once past its retain-until and a task ID that names nothing (the expired class needs the short-retention fixture): ${TIMING_STATEMENT}.`,
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const owner = await context.callers.remote();
      const ownerTasks = new TaskSession(context, owner, target);
      const rounds = context.budget.iterations(
        TIMING_BUDGETS.taskIds.rounds,
        TIMING_BUDGETS.taskIds.deepRounds,
      );
      const clock = await measureGatewayClock(tasks);
      // Started first, so that its retention runs out while the first comparison is measured.
      const expiring = await startExpiring(tasks, clock);
      const { accepted: held } = await ownerTasks.start('script', {
        steps: [{ wait: { until: clock.ahead(600_000).text } }, { complete: {} }],
      });
      const unknown = lookalikeTaskId(context, held.taskId);
      const outcomes: TimingOutcome[] = [];
      try {
        outcomes.push(
          await measureStateTiming(context, caller, target, rounds, [
            ['another caller’s task', held.taskId],
            ['a nonexistent task', unknown],
          ]),
        );
      } finally {
        await cancelHeld(ownerTasks, held.taskId);
      }
      if (expiring !== undefined) {
        const { taskId, retainUntil } = expiring;
        const expired = await awaitForgotten(tasks, clock, taskId, retainUntil);
        if (expired) {
          const unknownLike = lookalikeTaskId(context, taskId);
          outcomes.push(
            await measureStateTiming(context, caller, target, rounds, [
              ['the caller’s expired task', taskId],
              ['a nonexistent task', unknownLike],
            ]),
          );
        }
      }
      context.budget.ran(outcomes.reduce((sum, outcome) => sum + outcome.rounds, 0));
      judgeTiming(context, caller, 'task-recovery.timing-equivalence', 'SHOULD', mergeOutcomes(outcomes));
    },
  },
]);
