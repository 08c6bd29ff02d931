/**
 * Limits judged by the spec model against the gateway: task capacity on every terminal path
 * (invocation.ts with the caller's non-terminal tasks from the task-lifecycle model), deadlines
 * below, at and above the tool maximum and expired (invocation.ts, on the gateway's measured
 * clock), and documented rate limits request by request (metered-requests.ts): burst, overload,
 * sustained rate, and unauthorized requests over the limit, which keep their not-found answer.
 * The cases that exhaust a per-sender bound run as the prober, which no other case uses.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Caller, IqExchange } from '../../../../harness/driver/index.ts';
import { documentedRateLimitsOf } from '../../../../harness/sut/index.ts';
import { toEpochMillis } from '../../../../protocol/datetime.ts';
import type { JsonValue } from '../../../../protocol/json/json-value.ts';
import { parseAccepted, parseTaskState } from '../../../../protocol/stanza/index.ts';
import { isTerminal } from '../../../../protocol/task-states.ts';
import type { CaseContext } from '../../../framework/context.ts';
import { checkHeld } from '../../../framework/evidence.ts';
import { expectSameErrorPayload, expectThat } from '../../../framework/expect.ts';
import { CannotTell, MissingFixture, RequirementViolation } from '../../../framework/verdicts.ts';
import {
  fullAgainAt,
  invocation,
  meteredDecision,
  underLimit,
  verdictOfError,
  type Expectation,
  type MeteredRequest,
  type ModelWorld,
  type Principal,
  type TokenBucket,
} from '../../../model/index.ts';
import type { RequirementId } from '../../../registry/requirement-ids.ts';
import { instantFromNow, measureGatewayClock } from '../gateway-clock.ts';
import { freshVersion, hasSelfRegistration, withRestore } from '../provisioning.ts';
import { prober } from '../task-accounts.ts';
import { TaskSession } from '../task-session.ts';
import { conformanceTarget } from '../task-target.ts';
import { requireToolFeatures } from '../tool-features.ts';
import { FOREIGN_HASH } from './arbitraries.ts';
import { drivableRateLimits, undrivenAdvice, whyRefillTooSlow } from '../drivable-rate-limits.ts';
import { describeExpectation, judgeReply } from './judge.ts';
import { expectationOf, pageKindOf, wireRequestOf, type ModelOperation } from './operations.ts';
import { runWorldOf } from './run-world.ts';
import { ModelledTask } from './task-driver.ts';

/** The run's world with the prober in it: the local caller's grants, the SUT file's documented limits. */
function proberWorld(context: CaseContext, caller: Caller): { world: ModelWorld; principal: Principal } {
  const run = runWorldOf(context);
  const local = run.principalOf('local');
  const principal: Principal = { ...local, bare: caller.bareJid, full: caller.jid };
  const grant = run.model.grants.find(
    (candidate) => 'principal' in candidate.subject && candidate.subject.principal === local.bare,
  );
  const limits = context.sut.limits ?? {};
  const world: ModelWorld = {
    ...run.model,
    selfRegistration: hasSelfRegistration(context),
    grants: [
      ...run.model.grants,
      ...(grant === undefined ? [] : [{ ...grant, subject: { principal: caller.bareJid } }]),
    ],
    limits: {
      ...run.model.limits,
      principalRateLimits: new Map([[caller.bareJid, documentedRateLimitsOf(limits, caller.bareJid)]]),
      taskCapacityOf:
        limits.activeTasksPerCaller === undefined
          ? new Map()
          : new Map([[caller.bareJid, limits.activeTasksPerCaller]]),
    },
  };
  return { world, principal };
}

/** Judges an invocation reply against the admission expectations of every count the race allows. */
function judgeAdmission(
  expectations: readonly Expectation[],
  exchange: IqExchange,
  requirement: RequirementId,
  transcript: () => string,
): 'admitted' | 'refused' {
  const { parsed } = exchange;
  const admitted = parsed.type === 'result';
  const fits = expectations.some((expected) =>
    parsed.type === 'result'
      ? expected.alternatives.some((alternative) => alternative.answer.kind === 'accepted')
      : verdictOfError(expected, parsed.error.condition) !== 'fail',
  );
  if (!fits)
    throw new RequirementViolation(
      requirement,
      expectations.map(describeExpectation).join('\n'),
      `${exchange.reply.xml}\n--- stanzas:\n${transcript()}`,
    );
  return admitted ? 'admitted' : 'refused';
}

// ---------------------------------------------------------------------------------------------
// Task capacity

const QUESTION: JsonValue = { input: { question: 'Go on?', inputSchema: { type: 'object' } } };
/** How long the scripted tasks that settle on their own wait first: long enough to probe before. */
const SELF_SETTLE_MS = 400;

interface TerminalPath {
  readonly name: 'completed' | 'failed' | 'cancelled' | 'deadline-expired' | 'input-expired';
  readonly args: JsonValue;
  readonly deadlineMs?: number;
}

const TERMINAL_PATHS: readonly TerminalPath[] = [
  { name: 'completed', args: { steps: [QUESTION, { complete: {} }] } },
  {
    name: 'failed',
    args: {
      steps: [
        QUESTION,
        { fail: { code: 'org.agentconf.model:refused', message: 'Refused as scripted.', retryable: false } },
      ],
    },
  },
  {
    name: 'cancelled',
    args: {
      steps: [
        { wait: { onCancel: 'proceed' } },
        { wait: { ms: SELF_SETTLE_MS, onCancel: 'ignore' } },
        { cancel: {} },
      ],
    },
  },
  { name: 'deadline-expired', args: { steps: [{ wait: {} }] }, deadlineMs: SELF_SETTLE_MS },
  {
    name: 'input-expired',
    args: {
      steps: [
        { input: { question: 'Still there?', inputSchema: { type: 'object' }, expiresInMs: SELF_SETTLE_MS } },
        { complete: {} },
      ],
    },
  },
];

class CapacityRun {
  readonly tasks: ModelledTask[] = [];
  readonly #log: string[] = [];
  /** The prober's invocations as the documented invocation bucket meters them, if documented. */
  readonly #metered: MeteredRequest[] = [];
  #fullAt = 0;

  constructor(
    readonly session: TaskSession,
    readonly world: ModelWorld,
    readonly principal: Principal,
    readonly bucket: TokenBucket | undefined,
  ) {}

  /** A measured wait against the documented rate: idle for a full refill, the bucket is full. */
  async start(): Promise<void> {
    if (this.bucket !== undefined) await delay(((this.bucket.burst + 1) / this.bucket.perSecond) * 1000);
    this.#fullAt = performance.now() / 1000;
  }

  /** Waits until the documented invocation bucket certainly has a token, so no rate limit can refuse. */
  async #paced(): Promise<void> {
    const { bucket } = this;
    if (bucket === undefined) return;
    for (;;) {
      const now = performance.now() / 1000;
      if (meteredDecision(bucket, this.#fullAt, this.#metered, { sentAt: now, answeredAt: now }) === 'serve')
        return;
      await delay(500 / bucket.perSecond);
    }
  }

  #held(): number {
    return this.tasks.filter((task) => {
      task.sync();
      return !isTerminal(task.model.state);
    }).length;
  }

  #expected(held: number, deadline?: number): Expectation {
    const { target } = this.session;
    return invocation(
      this.world,
      this.principal,
      {
        jid: target.jid,
        tool: 'script',
        version: target.version,
        manifestHash: target.hash.value,
        argumentsValid: true,
        ...(deadline === undefined ? {} : { deadlineInSeconds: deadline / 1000 }),
      },
      { nonTerminalTasks: held },
    );
  }

  transcript = (): string => [...this.#log, ...this.tasks.map((task) => task.transcript())].join('\n');

  /**
   * Invokes and judges against the capacity the caller holds before and after the reply. The
   * documented bucket is a ceiling (docs/sut.md): a gateway may hold the prober to a stricter
   * rate, so a resource-constraint the capacity does not explain is sent again once the
   * documented bucket has been idle for a full refill, which a rate limit must then serve
   * (metered-requests.ts, fullAgainAt); only a second refusal is judged.
   */
  async invoke(args: JsonValue, deadlineMs?: number): Promise<ModelledTask | undefined> {
    const first = await this.#invokeOnce(args, deadlineMs, false);
    if (first !== 'refused-past-capacity') return first;
    const { bucket } = this;
    if (bucket === undefined) throw new Error('only a refusal under a documented bucket is sent again');
    const wait = fullAgainAt(bucket, this.#fullAt, this.#metered) - performance.now() / 1000;
    this.#log.push(
      `(resource-constraint within capacity: sent again after the documented bucket was idle for a full refill, ${Math.max(0, wait).toFixed(3)} s from now)`,
    );
    if (wait > 0) await delay(wait * 1000);
    const second = await this.#invokeOnce(args, deadlineMs, true);
    if (second === 'refused-past-capacity') throw new Error('a judged invocation cannot be refused unjudged');
    return second;
  }

  async #invokeOnce(
    args: JsonValue,
    deadlineMs: number | undefined,
    judgeEveryRefusal: boolean,
  ): Promise<ModelledTask | undefined | 'refused-past-capacity'> {
    await this.#paced();
    const before = this.#held();
    // On this machine's clock: a deadline this close may be refused or fail at once (interp-30).
    const deadline = deadlineMs === undefined ? undefined : instantFromNow(deadlineMs);
    const sentAt = performance.now() / 1000;
    const { exchange } = await this.session.invoke(
      'script',
      args,
      deadline === undefined ? {} : { deadline },
    );
    const answeredAt = performance.now() / 1000;
    this.#log.push(`sent: ${exchange.requestXml}`, `received: ${exchange.reply.xml}`);
    let task: ModelledTask | undefined;
    if (exchange.parsed.type === 'result' && exchange.parsed.payload !== undefined) {
      task = new ModelledTask(this.session, parseAccepted(exchange.parsed.payload).taskId, exchange);
      this.tasks.push(task);
    }
    this.#metered.push({ sentAt, answeredAt, took: task === undefined ? 'maybe' : 'one' });
    const after = this.#held() - (task === undefined ? 0 : 1);
    const expectations = [...new Set([before, after])].map((held) => this.#expected(held, deadlineMs));
    const refusedForLimit =
      exchange.parsed.type === 'error' && exchange.parsed.error.condition === 'resource-constraint';
    if (
      refusedForLimit &&
      this.bucket === undefined &&
      expectations.every((expected) => mayAdmitOnly(expected))
    )
      throw new CannotTell(
        `${exchange.reply.xml}: resource-constraint where the caller holds ${String(before)} of its ${String(this.world.limits.taskCapacityOf.get(this.principal.bare) ?? '?')} tasks; with no invocation rate documented for it (limits.rateLimits.invocation or its own under limits.principalRateLimits) a rate limit may have refused it`,
      );
    if (
      refusedForLimit &&
      !judgeEveryRefusal &&
      this.bucket !== undefined &&
      expectations.every((expected) => mayAdmitOnly(expected))
    )
      return 'refused-past-capacity';
    if (refusedForLimit && !this.pathEnded && expectations.every((expected) => mayAdmitOnly(expected)))
      // Before any task of this case has ended, an early refusal cannot be told apart from a task
      // of the same caller that an earlier case left running and the gateway still counts.
      throw new CannotTell(
        `${exchange.reply.xml}: resource-constraint where the caller holds ${String(before)} of its ${String(this.world.limits.taskCapacityOf.get(this.principal.bare) ?? '?')} tasks, before any task of this case ended: the caller may still hold a task an earlier case left`,
      );
    judgeAdmission(expectations, exchange, 'rules.resource-bounds', this.transcript);
    return task;
  }

  /** Set once a task of this case has reached a terminal state through one of the paths. */
  pathEnded = false;

  async settleAll(): Promise<void> {
    for (const task of this.tasks) await task.settle();
  }
}

/** Whether the expectation admits and refuses nothing for the caller's capacity. */
function mayAdmitOnly(expected: Expectation): boolean {
  return !expected.alternatives.some(
    (alternative) =>
      alternative.answer.kind === 'error' && alternative.answer.condition === 'resource-constraint',
  );
}

/** Brings a path's task to where it waits for its end, and then ends it (or lets it end). */
async function armPath(task: ModelledTask, path: TerminalPath): Promise<void> {
  if (path.name === 'completed' || path.name === 'failed' || path.name === 'input-expired') {
    while (task.model.state !== 'input_required' && !isTerminal(task.model.state)) await task.awaitBeyond();
  } else {
    while (task.model.state === 'accepted') await task.awaitBeyond();
  }
}

async function endPath(task: ModelledTask, path: TerminalPath): Promise<void> {
  const pending = task.model.inputRequests.find((request) => request.disposition.kind === 'pending');
  if ((path.name === 'completed' || path.name === 'failed') && pending !== undefined)
    await task.provideInput(pending.requestId, task.model.revision, {}, true);
  await task.awaitTerminal();
}

/**
 * invocation.model-capacity: the prober fills its documented task capacity with waiting tasks and
 * one task for each terminal path in turn; one more invocation is refused while that task is
 * non-terminal (also while it is cancelling), and admitted once it has completed, failed, been
 * cancelled, passed its deadline or let its input request expire.
 */
export async function checkCapacityPaths(
  context: CaseContext,
  runs: readonly [number, number],
): Promise<void> {
  const capacity = context.sut.limits?.activeTasksPerCaller;
  if (capacity === undefined)
    throw new MissingFixture(
      'the SUT file documents no task capacity (limits.activeTasksPerCaller): document it to have capacity on every terminal path tested',
    );
  if (capacity > 8)
    throw new MissingFixture(
      `the documented task capacity (${String(capacity)}) is more than this case fills (8)`,
    );
  const caller = await prober(context);
  const session = new TaskSession(context, caller, conformanceTarget(context));
  await requireToolFeatures(session, 'script', ['cancel', 'input']);
  const { world, principal } = proberWorld(context, caller);
  const invocationBucket = documentedRateLimitsOf(context.sut.limits, caller.bareJid).invocation;
  // Only the refill matters here: the case waits for a full bucket and sends a few dozen requests.
  const tooSlow = invocationBucket === undefined ? undefined : whyRefillTooSlow(invocationBucket);
  if (tooSlow !== undefined)
    throw new MissingFixture(
      `${tooSlow} before it fills the task capacity: document a bucket for ${caller.bareJid} under limits.principalRateLimits that refills sooner`,
    );
  const run = new CapacityRun(session, world, principal, invocationBucket);
  const rounds = context.budget.iterations(...runs);
  await run.start();
  try {
    for (let parked = 0; parked < capacity - 1; parked++) await run.invoke({ steps: [{ wait: {} }] });
    for (let round = 0; round < rounds; round++) {
      // A seeded shuffle: each path is met with the others' leftovers in a different order.
      const order = TERMINAL_PATHS.map((path) => ({ path, key: context.random.int(0, 1_000_000) }))
        .toSorted((a, b) => a.key - b.key)
        .map(({ path }) => path);
      for (const path of order) {
        const task = await run.invoke(path.args, path.deadlineMs);
        if (task === undefined) {
          // Only a deadline within the clock window may be refused (interp-30): that path is undecided.
          if (path.name === 'deadline-expired') continue;
          throw new CannotTell(`the ${path.name} path's task was not admitted within capacity`);
        }
        await armPath(task, path);
        await run.invoke({ steps: [{ wait: {} }] });
        if (path.name === 'cancelled') {
          await task.cancel({ expectedRevision: task.model.revision });
          await run.invoke({ steps: [{ wait: {} }] });
        }
        await endPath(task, path);
        run.pathEnded = true;
        const extra = await run.invoke({ steps: [{ wait: {} }] });
        expectThat(
          run.transcript(),
          'rules.resource-bounds',
          `an invocation admitted once the ${path.name} task was terminal: capacity is released by every terminal state`,
          extra !== undefined,
        );
        await extra?.settle();
      }
    }
  } finally {
    await run.settleAll();
  }
}

// ---------------------------------------------------------------------------------------------
// Deadlines

const DEADLINE_CLASSES = [
  'expired',
  'past-within-skew',
  'future-within-skew',
  'below-maximum',
  'at-maximum',
  'above-maximum-within-uncertainty',
  'above-maximum',
  'far-above-maximum',
] as const;

/**
 * Task state of a task admitted with a deadline: it MUST show the deadline (#task-recovery, the
 * deadline "if any"), and one requested above the tool maximum no later than the maximum allows
 * (interp-32: clamped). A state that shows none decides neither, so it is a violation itself.
 */
async function checkDeadlineShown(
  session: TaskSession,
  task: ModelledTask,
  admitted: {
    readonly deadlineClass: string;
    readonly toolName: string;
    readonly maximum: number;
    readonly above: boolean;
    readonly slackSeconds: number;
    readonly offsetHighMs: number;
  },
): Promise<void> {
  const state = await session.state(task.taskId);
  if (state.parsed.type !== 'result' || state.parsed.payload === undefined)
    throw new CannotTell(
      `${admitted.deadlineClass}: task-state of the admitted task was not answered, so the deadline it keeps cannot be told: ${state.reply.xml}`,
    );
  const shown = parseTaskState(state.parsed.payload).deadline;
  expectThat(
    `${task.transcript()}\n${state.reply.xml}`,
    'task-recovery.state-contents',
    `${admitted.deadlineClass}: task-state of a task admitted with a deadline shows that deadline`,
    shown !== undefined,
  );
  if (!admitted.above || shown === undefined) return;
  const latest = Date.now() + admitted.offsetHighMs + (admitted.maximum + admitted.slackSeconds) * 1000;
  expectThat(
    state.reply.xml,
    'rules.resource-bounds',
    `a deadline admitted above the maximum of ${admitted.toolName} (${String(admitted.maximum)} s) is clamped to it: task-state shows none later than ${new Date(latest).toISOString()} (interp-32)`,
    toEpochMillis(shown) <= latest,
  );
}

/**
 * invocation.model-deadlines: deadlines placed on the gateway's measured clock for each class; the
 * answer must be one the model allows (interp-30, interp-32), an admitted task shows its deadline
 * in task state and keeps none past the tool maximum, and one admitted with an expired deadline must fail with
 * deadline-expired without running.
 */
export async function checkDeadlines(context: CaseContext): Promise<void> {
  const session = new TaskSession(context, await context.callers.local(), conformanceTarget(context));
  const run = runWorldOf(context);
  const principal = run.principalOf('local');
  const { target } = session;
  const tools = run.model.endpoints
    .find((endpoint) => endpoint.jid === target.jid)
    ?.versions.find((version) => version.version === target.version)?.tools;
  // script.bounded's maximum lies below the gateway's own task limit, so only a gateway that
  // bounds deadlines by the tool's maximum clamps there (interp-32); script's may equal it.
  const bounded =
    tools?.find((tool) => tool.name === 'script.bounded') ?? tools?.find((tool) => tool.name === 'script');
  const maximum = bounded?.maximumTimeoutSeconds;
  if (bounded === undefined || maximum === undefined)
    throw new MissingFixture(
      `neither script.bounded nor script at ${target.jid} declares a maximumTimeoutSeconds (docs/conformance-tools.md)`,
    );
  const toolName = bounded.name;
  const clock = await measureGatewayClock(session);
  const clockUncertainty = (clock.offsetHighMs - clock.offsetLowMs) / 1000;
  const secondsOf: Record<(typeof DEADLINE_CLASSES)[number], number> = {
    expired: -120,
    'past-within-skew': -5,
    'future-within-skew': 30,
    'below-maximum': maximum - 120,
    'at-maximum': maximum - 1 - clockUncertainty,
    'above-maximum-within-uncertainty': maximum + 1,
    'above-maximum': maximum + 120,
    'far-above-maximum': maximum + 366 * 86_400,
  };
  const started: ModelledTask[] = [];
  try {
    for (const deadlineClass of DEADLINE_CLASSES) {
      const seconds = secondsOf[deadlineClass];
      const deadline = seconds >= 0 ? clock.ahead(seconds * 1000) : clock.ago(-seconds * 1000);
      const sent = Date.now();
      const { exchange } = await session.invoke(toolName, { steps: [{ wait: {} }] }, { deadline });
      const roundTrip = (Date.now() - sent) / 1000;
      const expected = invocation(run.model, principal, {
        jid: target.jid,
        tool: toolName,
        version: target.version,
        manifestHash: target.hash.value,
        argumentsValid: true,
        deadlineInSeconds: seconds,
        deadlineUncertaintySeconds: clockUncertainty + roundTrip,
      });
      const requirement: RequirementId =
        seconds <= 60 ? 'cancellation.deadline-at-commit' : 'rules.resource-bounds';
      const admitted = judgeAdmission(
        [expected],
        exchange,
        requirement,
        () => `${deadlineClass}: ${exchange.requestXml}\n${exchange.reply.xml}`,
      );
      if (
        admitted === 'refused' ||
        exchange.parsed.type !== 'result' ||
        exchange.parsed.payload === undefined
      )
        continue;
      const task = new ModelledTask(session, parseAccepted(exchange.parsed.payload).taskId, exchange);
      started.push(task);
      if (!expected.alternatives.some((alternative) => alternative.answer.kind === 'accepted')) {
        // Only admission-then-failure is allowed: no running state, failed with deadline-expired.
        await task.awaitTerminal();
        const history = session.caller.events
          .all(task.taskId)
          .flatMap((received) => (received.valid ? [received] : []));
        expectThat(
          task.transcript(),
          'cancellation.deadline-at-commit',
          'an admitted expired deadline settles failed with deadline-expired, never running first (interp-30)',
          history.every(
            (received) => received.event.type !== 'status' && received.event.type !== 'progress',
          ) &&
            history.some(
              (received) =>
                received.event.type === 'failed' && received.event.json.includes('"deadline-expired"'),
            ),
        );
        context.warn(
          'cancellation.deadline-at-commit',
          `${deadlineClass}: admitted an expired deadline, then failed it (interp-30)`,
        );
        continue;
      }
      await checkDeadlineShown(session, task, {
        deadlineClass,
        toolName,
        maximum,
        above: seconds > maximum,
        slackSeconds: clockUncertainty + roundTrip + 1,
        offsetHighMs: clock.offsetHighMs,
      });
      await task.settle();
    }
  } finally {
    for (const task of started) await task.settle();
  }
}

// ---------------------------------------------------------------------------------------------
// Rate limits

interface SurfaceProbe {
  /** An operation the prober is authorized for. */
  readonly authorized: ModelOperation;
  /** One it is not (a hidden or unauthorized object), with its nonexistent twin; absent for search. */
  readonly unauthorized?: { readonly hidden: ModelOperation; readonly absent: ModelOperation };
}

/** An operation of `kind` on an object the principal may not use, refused as if it did not exist. */
function unauthorizedOf(
  world: ModelWorld,
  principal: Principal,
  build: (jid: string, version: string, tool: string) => ModelOperation,
): SurfaceProbe['unauthorized'] {
  const absent = `model-absent@${world.domains.gateway}`;
  for (const endpoint of world.endpoints) {
    const version = endpoint.versions.find((candidate) => candidate.version === endpoint.active);
    for (const tool of version?.tools ?? []) {
      const hidden = build(endpoint.jid, version?.version ?? '', tool.name);
      const expected = expectationOf(world, principal, hidden);
      if (expected.unauthorized && expected.sameAsNonexistent)
        return { hidden, absent: build(absent, version?.version ?? '', tool.name) };
    }
  }
  return undefined;
}

function probesOf(
  context: CaseContext,
  world: ModelWorld,
  principal: Principal,
): Partial<Record<string, SurfaceProbe>> {
  const target = conformanceTarget(context);
  const version = freshVersion(context);
  const withUnauthorized = (
    authorized: ModelOperation,
    build: (jid: string, version: string, tool: string) => ModelOperation,
  ): SurfaceProbe => {
    const unauthorized = unauthorizedOf(world, principal, build);
    return unauthorized === undefined ? { authorized } : { authorized, unauthorized };
  };
  return {
    // Directory enumeration (#security); the unauthorized twin is an endpoint's disco#info.
    discovery: withUnauthorized({ kind: 'endpoint-info', jid: target.jid }, (jid) => ({
      kind: 'endpoint-info',
      jid,
    })),

    // Schema retrieval is the metadata request #security names; manifests share its bucket.
    metadata: withUnauthorized(
      {
        kind: 'schema',
        jid: target.jid,
        tool: 'script',
        version: target.version,
        direction: 'input',
        manifestHash: target.hash.value,
      },
      (jid, version, tool) => ({
        kind: 'schema',
        jid,
        tool,
        version,
        direction: 'input',
        manifestHash: FOREIGN_HASH,
      }),
    ),
    invocation: withUnauthorized(
      {
        kind: 'invoke',
        jid: target.jid,
        tool: 'script',
        version: target.version,
        manifestHash: FOREIGN_HASH,
      },
      (jid, version, tool) => ({ kind: 'invoke', jid, tool, version, manifestHash: FOREIGN_HASH }),
    ),
    ...(context.sut.profiles.has('jabber-search')
      ? { search: { authorized: { kind: 'search', nick: '' } } }
      : {}),
    // Registration (#security) as a self-registrant: its own bare JID, registered again and again
    // with the same content (idempotent, #registration-flow). Unauthorized: a manifest claiming
    // a registered endpoint's JID, and one claiming a JID nobody registered — the same refusal.
    ...(hasSelfRegistration(context)
      ? {
          registration: {
            authorized: { kind: 'self-register', jid: principal.bare, version },
            unauthorized: {
              hidden: { kind: 'self-register', jid: target.jid, version },
              absent: { kind: 'self-register', jid: `model-absent@${world.domains.gateway}`, version },
            },
          },
        }
      : {}),
  };
}

/** The schedule, in multiples of the documented refill interval after the burst: overload, then sustained. */
const OVERLOAD_REQUESTS = 8;
const OVERLOAD_PACE = 0.25;
const SUSTAINED_REQUESTS = 3;
const SUSTAINED_PACE = 2;

/** The surfaces security.model-rate-limits drives; registration has a case of its own (Self Registration). */
export const REQUEST_SURFACES = ['discovery', 'metadata', 'invocation', 'search'] as const;

/**
 * security.model-rate-limits and security.model-registration-rate-limit: for every surface of
 * `driven` whose per-sender bucket the SUT file documents, from a bucket left idle for a full
 * documented refill: a burst past it, an overload at four times the rate, then the sustained
 * rate at half of it; each answer judged against the bucket given what the gateway had served so
 * far, and a surface that served nothing must serve a request sent after a full documented
 * refill. Unauthorized requests sent while the bucket is empty must keep the not-found answer,
 * identical to the nonexistent object's (interp-42).
 */
export async function checkRateLimits(context: CaseContext, driven: readonly string[]): Promise<void> {
  const caller = await prober(context);
  const documented = documentedRateLimitsOf(context.sut.limits, caller.bareJid);
  const { world, principal } = proberWorld(context, caller);
  const probes = probesOf(context, world, principal);
  const { drivable, undriven } = drivableRateLimits(
    documented,
    (surface) => driven.includes(surface) && probes[surface] !== undefined,
  );
  const surfaces = drivable.flatMap(([surface, bucket]) => {
    const probe = probes[surface];
    return probe === undefined ? [] : [{ surface, bucket, probe }];
  });
  if (surfaces.length === 0)
    throw new MissingFixture(
      undriven.length > 0
        ? undrivenAdvice(caller.bareJid, undriven)
        : `the SUT file documents no rate limit for ${caller.bareJid} on a surface this case drives (${driven.join(', ')}; in limits.rateLimits or its own under limits.principalRateLimits; documented: ${Object.keys(documented).join(', ') || 'none'})`,
    );
  // One measured wait against the documented rates: idle for a full refill, every bucket is full
  // and stays full until its surface is driven. Surfaces go one after another: driven together
  // they share the gateway's throughput, and the bucket could no longer be told from it.
  const longest = Math.max(...surfaces.map(({ bucket }) => (bucket.burst + 1) / bucket.perSecond));
  await delay(longest * 1000);
  const fullAt = performance.now() / 1000;
  let decided = 0;
  // Every documented surface, every run (#security names each one; a seeded share let a gateway
  // that meters all but one pass on most seeds), in a seeded order: about half a second each.
  const order = surfaces
    .map((surface) => ({ surface, key: context.random.int(0, 1_000_000) }))
    .toSorted((a, b) => a.key - b.key)
    .map(({ surface }) => surface);
  // A registration the gateway takes is the prober's own endpoint: removed at the end.
  await withRestore(context, async (restorer) => {
    for (const { surface, bucket, probe } of order) {
      if (surface === 'registration') restorer.track(principal.bare);
      decided += await driveSurface(context, caller, world, principal, surface, bucket, probe, fullAt);
    }
  });
  if (decided === 0)
    throw new CannotTell(
      'no answer fell where the documented bucket decides it (the round trips were too slow to tell)',
    );
  // Every documented surface or no pass: one left undriven is one undecided.
  if (undriven.length > 0) throw new MissingFixture(undrivenAdvice(caller.bareJid, undriven));
}

interface Answered {
  readonly operation: ModelOperation;
  readonly exchange: IqExchange;
  readonly sentAt: number;
  readonly answeredAt: number;
}

/**
 * Sends at fullAgainAt (metered-requests.ts): the documented bucket idle for a full refill on the
 * gateway's clock (no longer than REFILL_WAIT_LIMIT_S of drivable-rate-limits.ts: only drivable
 * buckets are driven).
 */
async function afterFullRefill<T>(
  bucket: TokenBucket,
  fullAt: number,
  past: readonly MeteredRequest[],
  send: () => Promise<T>,
): Promise<T> {
  const wait = fullAgainAt(bucket, fullAt, past) - performance.now() / 1000;
  if (wait > 0) await delay(wait * 1000);
  return send();
}

async function driveSurface(
  context: CaseContext,
  caller: Caller,
  world: ModelWorld,
  principal: Principal,
  surface: string,
  bucket: TokenBucket,
  probe: SurfaceProbe,
  fullAt: number,
): Promise<number> {
  const interval = 1 / bucket.perSecond;
  const past: MeteredRequest[] = [];
  const log: string[] = [];
  let sequence = 0;
  const decided = { serve: 0, limit: 0, unauthorized: 0, refused: 0, served: 0 };
  // Requests are sent without waiting for the answers before (the gateway takes them in order):
  // round trips then do not refill the bucket between them.
  const send = (operation: ModelOperation): Promise<Answered> => {
    sequence += 1;
    const request = wireRequestOf(
      operation,
      context.sut.gatewayJid,
      `agentconf-rate-${surface}-${String(context.random.seed)}-${String(sequence)}`,
    );
    const sentAt = performance.now() / 1000;
    return caller
      .exchangeIq(request.to, request.type, request.payload)
      .then((exchange) => ({ operation, exchange, sentAt, answeredAt: performance.now() / 1000 }));
  };
  const fail = (requirement: RequirementId, expected: string, received: string): never => {
    throw new RequirementViolation(
      requirement,
      expected,
      `${received}\n--- ${surface} requests of ${caller.bareJid} (bucket ${String(bucket.burst)} at ${String(bucket.perSecond)}/s, seed ${String(context.random.seed)}; seconds after the bucket was full):\n${log.join('\n')}`,
    );
  };
  const judgeAuthorized = ({ operation, exchange, sentAt, answeredAt }: Answered): void => {
    const decision = meteredDecision(bucket, fullAt, past, { sentAt, answeredAt });
    // The documented bucket is a ceiling (docs/sut.md, limits.rateLimits): a gateway may refuse
    // sooner, never later, so a token the bucket still has is no duty to serve.
    const expected = underLimit(
      expectationOf(world, principal, operation),
      decision === 'serve' ? 'either' : decision,
    );
    const judgement = judgeReply(expected, exchange, pageKindOf(operation));
    if (judgement.verdict === 'fail')
      fail(
        'security.rate-limits',
        `${describeExpectation(expected)}\n(the documented bucket ${decision === 'serve' ? 'has a token for it' : decision === 'limit' ? 'is empty' : 'may or may not have a token'})`,
        `${exchange.reply.xml} (${judgement.reasons.join('; ')})`,
      );
    if (decision === 'serve') decided.serve += 1;
    if (decision === 'limit') decided.limit += 1;
    if (decision !== 'either') checkHeld('security.rate-limits');
    const limited =
      exchange.parsed.type === 'error' && exchange.parsed.error.condition === 'resource-constraint';
    if (limited) decided.refused += 1;
    else decided.served += 1;
    past.push({ sentAt, answeredAt, took: limited ? 'none' : 'one' });
  };
  const judgeUnauthorized = (first: Answered, twin: Answered): void => {
    for (const sent of [first, twin])
      past.push({ sentAt: sent.sentAt, answeredAt: sent.answeredAt, took: 'maybe' });
    const expected = expectationOf(world, principal, first.operation);
    const judgement = judgeReply(expected, first.exchange, pageKindOf(first.operation));
    const limitedFirst =
      first.exchange.parsed.type === 'error' &&
      first.exchange.parsed.error.condition === 'resource-constraint';
    if (judgement.verdict === 'fail' || first.exchange.parsed.type !== 'error')
      fail(
        // A limit answered before authorization breaks the order rule itself, not only the
        // equivalence with a nonexistent object that follows from it.
        limitedFirst ? 'json-encoding.authorize-before-limits' : 'errors.not-found-equivalence',
        `${describeExpectation(expected)}\n(an unauthorized request keeps its refusal over the rate limit: never resource-constraint, interp-42)`,
        first.exchange.reply.xml,
      );
    try {
      expectSameErrorPayload([first.exchange, twin.exchange], 'errors.not-found-equivalence');
    } catch (problem) {
      if (problem instanceof RequirementViolation)
        fail(problem.requirement, problem.expected, problem.received);
      throw problem;
    }
    decided.unauthorized += 1;
    checkHeld('json-encoding.authorize-before-limits');
  };
  /** Sends `count` authorized requests `pace` refill intervals apart (0: at once), then the unauthorized pair; judges in order. */
  const phase = async (count: number, pace: number): Promise<void> => {
    const pending: Promise<Answered>[] = [];
    for (let index = 0; index < count; index++) {
      if (index > 0 && pace > 0) await delay(pace * interval * 1000);
      pending.push(send(probe.authorized));
    }
    const unauthorized =
      probe.unauthorized === undefined
        ? []
        : [send(probe.unauthorized.hidden), send(probe.unauthorized.absent)];
    const answered = await Promise.all(pending);
    const refusals = await Promise.all(unauthorized);
    for (const item of [...answered, ...refusals])
      log.push(
        `[${(item.sentAt - fullAt).toFixed(3)}] sent: ${item.exchange.requestXml}`,
        `[${(item.answeredAt - fullAt).toFixed(3)}] received: ${item.exchange.reply.xml}`,
      );
    for (const item of answered) judgeAuthorized(item);
    const [first, twin] = refusals;
    if (first !== undefined && twin !== undefined) judgeUnauthorized(first, twin);
  };
  // Twice the burst at once: a gateway that serves them all meets must-refuse answers, however
  // slowly they come back; one that limits shows its refusals.
  await phase(2 * bucket.burst + 4, 0);
  await phase(OVERLOAD_REQUESTS, OVERLOAD_PACE);
  for (let index = 0; index < SUSTAINED_REQUESTS; index++) {
    await delay(SUSTAINED_PACE * interval * 1000);
    await phase(1, 0);
  }
  if (decided.served === 0) {
    // The bucket is a ceiling, so no single token obliges the gateway to serve; but a surface
    // that refuses every request is closed, not rate-limited (#security), and resource-constraint
    // is for a limit reached (#errors). Once the documented bucket has been left idle for a full
    // refill, on the gateway's clock, one more authorized request must be served.
    const answered = await afterFullRefill(bucket, fullAt, past, () => send(probe.authorized));
    log.push(
      `[${(answered.sentAt - fullAt).toFixed(3)}] sent after a full refill: ${answered.exchange.requestXml}`,
      `[${(answered.answeredAt - fullAt).toFixed(3)}] received: ${answered.exchange.reply.xml}`,
    );
    const { parsed } = answered.exchange;
    if (parsed.type === 'error' && parsed.error.condition === 'resource-constraint')
      fail(
        'security.rate-limits',
        `an authorized ${surface} request served once the documented bucket (${String(bucket.burst)} at ${String(bucket.perSecond)}/s) had been idle for a full refill: a limit refuses a sender that asks too fast, never every request`,
        `${answered.exchange.reply.xml} (and resource-constraint for all ${String(decided.refused)} authorized requests before it)`,
      );
    judgeAuthorized(answered);
  }
  // Evidence both ways: answers the bucket had to serve, and the limit seen biting (a refusal the
  // bucket allowed, or one it required).
  if (decided.serve === 0 || decided.limit + decided.refused === 0)
    throw new CannotTell(
      `${surface}: ${decided.serve === 0 ? 'no answer fell where the documented bucket must serve' : 'the gateway refused nothing, and no answer fell where the documented bucket must refuse'} (${String(decided.serve)} must-serve, ${String(decided.limit)} must-refuse, ${String(decided.refused)} refused; the round trips were too slow to tell)`,
    );
  return decided.serve + decided.limit + decided.unauthorized;
}
