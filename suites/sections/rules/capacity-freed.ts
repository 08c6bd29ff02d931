/**
 * rules.resource-bounds on every terminal path: the documented task capacity counts open tasks
 * (limits.activeTasksPerCaller), so once one of a full caller's tasks settles — completed,
 * failed, cancelled or past its deadline — the caller may invoke again. A gateway that frees the
 * slot on only some paths leaks capacity until the caller is locked out.
 */
import type { JsonObject } from '../../../protocol/json/json-value.ts';
import type { CaseDeclaration } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectStanzaError, expectThat } from '../../framework/expect.ts';
import { CannotTell, MissingFixture, RequirementViolation } from '../../framework/verdicts.ts';
import { measureGatewayClock } from '../support/gateway-clock.ts';
import { prober } from '../support/task-accounts.ts';
import { inputRequestId, terminalPayload } from '../support/task-events.ts';
import { expectAccepted, expectCancelAccepted, expectInputAccepted } from '../support/task-replies.ts';
import { TaskSession, type SentInvoke, type StartedTask } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { requireToolFeatures } from '../support/tool-features.ts';
import { cancelAndSettle, invokeOpenWaits, MAX_FILLED_CAPACITY, OPEN_WAIT } from './task-capacity.ts';

const FAILURE = { code: 'org.agentconf.suite:capacity', message: 'failed on purpose', retryable: false };

/** How far ahead the deadline of the task that frees its slot by expiring lies. */
const DEADLINE_AHEAD_MS = 300;

/** One terminal path: the task that takes the last slot, and how it is then made to settle. */
interface TerminalPath {
  readonly name: string;
  readonly state: string;
  readonly features: readonly Parameters<typeof requireToolFeatures>[2][number][];
  /**
   * Prepares (before the other slots are filled) the start of the task that takes the last slot,
   * non-terminal until `settle`: a deadline path measures the gateway's clock first, so that its
   * deadline counts from the last slot, not from before the filling (which a stricter rate limit
   * may stretch past it).
   */
  readonly prepare: (tasks: TaskSession) => Promise<() => Promise<SentInvoke>>;
  readonly settle: (tasks: TaskSession, task: StartedTask) => Promise<void>;
}

/** A task waiting for an answer, which then runs `last`. */
function answered(last: JsonObject): Pick<TerminalPath, 'prepare' | 'settle'> {
  return {
    prepare: (tasks) =>
      Promise.resolve(() =>
        tasks.invokePatiently('script', {
          steps: [{ input: { question: 'Go on?', inputSchema: { type: 'object' } } }, last],
        }),
      ),
    settle: async (tasks, { accepted }) => {
      const asked = await tasks.awaitEvent(accepted.taskId, 'input_required');
      expectInputAccepted(
        await tasks.provideInput(accepted.taskId, inputRequestId(asked), asked.event.revision, {}),
        'rules.resource-bounds',
      );
    },
  };
}

const PATHS = {
  completion: { name: 'completes', state: 'completed', features: ['input'], ...answered({ complete: {} }) },
  failure: { name: 'fails', state: 'failed', features: ['input'], ...answered({ fail: FAILURE }) },
  cancellation: {
    name: 'is cancelled',
    state: 'cancelled',
    features: ['cancel'],
    prepare: (tasks) => Promise.resolve(() => tasks.invokePatiently('script', OPEN_WAIT)),
    settle: async (tasks, { accepted }) => {
      const running = await tasks.awaitEvent(accepted.taskId, 'status');
      expectCancelAccepted(
        await tasks.cancel(accepted.taskId, running.event.revision),
        'rules.resource-bounds',
      );
    },
  },
  deadline: {
    name: 'reaches its deadline',
    state: 'failed',
    features: [],
    prepare: async (tasks) => {
      const clock = await measureGatewayClock(tasks);
      return () => tasks.invokePatiently('script', OPEN_WAIT, { deadline: clock.ahead(DEADLINE_AHEAD_MS) });
    },
    settle: () => Promise.resolve(),
  },
} satisfies Readonly<Record<string, TerminalPath>>;

function documentedCapacity(context: CaseContext): number {
  const capacity = context.sut.limits?.activeTasksPerCaller;
  if (capacity === undefined) {
    throw new MissingFixture(
      'the SUT file documents no task capacity (limits.activeTasksPerCaller): document it to have the task-count bound of #rules tested',
    );
  }
  if (capacity > MAX_FILLED_CAPACITY) {
    throw new MissingFixture(
      `the documented task capacity per caller (${String(capacity)}) is more than a run fills (${String(MAX_FILLED_CAPACITY)})`,
    );
  }
  return capacity;
}

/**
 * The prober fills its capacity (the path's task and open waits), is refused one more, lets the
 * path's task settle, and must then be admitted again.
 */
async function expectSlotFreed(context: CaseContext, path: TerminalPath): Promise<void> {
  const capacity = documentedCapacity(context);
  const tasks = new TaskSession(context, await prober(context), conformanceTarget(context));
  await requireToolFeatures(tasks, 'script', path.features);
  const start = await path.prepare(tasks);
  const open: string[] = [];
  try {
    for (const { exchange, invoke } of await invokeOpenWaits(tasks, capacity - 1)) {
      if (exchange.parsed.type === 'error') {
        throw new CannotTell(
          `filling the documented capacity of ${String(capacity)} got <${exchange.parsed.error.condition}/> before it was full: ${tasks.caller.bareJid} may already hold open tasks (a slot an earlier case's task never gave back?)`,
        );
      }
      open.push(expectAccepted(exchange, 'invocation.required-parts', invoke).taskId);
    }
    const started = await start();
    if (started.exchange.parsed.type === 'error') {
      throw new CannotTell(
        `the last of ${String(capacity)} invocations got <${started.exchange.parsed.error.condition}/> before the capacity was full`,
      );
    }
    const held = {
      ...started,
      accepted: expectAccepted(started.exchange, 'invocation.required-parts', started.invoke),
    };
    const [full] = await invokeOpenWaits(tasks, 1, false);
    if (full === undefined) throw new Error('unreachable: one invocation sent');
    if (full.exchange.parsed.type === 'result') {
      open.push(expectAccepted(full.exchange, 'invocation.required-parts', full.invoke).taskId);
      throw new CannotTell(
        `invocation ${String(capacity + 1)} was admitted: the capacity was not full (rules.task-capacity judges that bound)`,
      );
    }
    expectStanzaError(full.exchange, 'rules.resource-bounds', 'resource-constraint', context);
    await path.settle(tasks, held);
    const history = await tasks.awaitSettled(held.accepted.taskId);
    const { state } = terminalPayload(history);
    if (state !== path.state) {
      throw new CannotTell(`the task meant to settle ${path.state} settled ${state}: another path was taken`);
    }
    // Patient: a rate limit may refuse it briefly; a capacity that is still full refuses it for good.
    const [again] = await invokeOpenWaits(tasks, 1);
    if (again === undefined) throw new Error('unreachable: one invocation sent');
    if (again.exchange.parsed.type === 'error') {
      throw new RequirementViolation(
        'rules.resource-bounds',
        `admission: ${String(capacity - 1)} of the documented ${String(capacity)} open tasks once one ${path.name} (settled ${state})`,
        again.exchange.reply.xml,
        `rules.resource-bounds: the slot of a task that ${path.name} was not freed`,
      );
    }
    open.push(expectAccepted(again.exchange, 'rules.resource-bounds', again.invoke).taskId);
    expectThat(
      again.exchange.reply.xml,
      'rules.resource-bounds',
      `admitted once one task ${path.name}`,
      true,
    );
  } catch (error) {
    await cancelAndSettle(tasks, open).catch(() => undefined);
    throw error;
  }
  await cancelAndSettle(tasks, open);
}

function freedCase(id: `rules.${string}`, path: TerminalPath): CaseDeclaration<'rules'> {
  return {
    id,
    requirements: ['rules.resource-bounds'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-42'],
    statement: `A caller of its own fills its documented task capacity (limits.activeTasksPerCaller) and is refused one more with resource-constraint; once one of its tasks ${path.name} (settled ${path.state}), one more invocation is admitted; every task it made then settles.`,
    run: (context) => expectSlotFreed(context, path),
  };
}

export const capacityFreedCases: readonly CaseDeclaration<'rules'>[] = [
  freedCase('rules.task-capacity-freed-by-completion', PATHS.completion),
  freedCase('rules.task-capacity-freed-by-failure', PATHS.failure),
  freedCase('rules.task-capacity-freed-by-cancellation', PATHS.cancellation),
  freedCase('rules.task-capacity-freed-by-deadline', PATHS.deadline),
];
