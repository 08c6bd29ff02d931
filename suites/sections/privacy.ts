/**
 * #privacy: being listed is not being authorized. An endpoint a caller finds in the directory,
 * with its endpoint information, gives that caller no invocation right (the world's restricted
 * endpoint: visible to local callers, invocable by none of them), and an endpoint hidden from a
 * caller keeps its tools' schemas private from it (interp-26).
 *
 * Side channels (privacy.enumeration-side-channels, and task-recovery.timing-equivalence for task
 * IDs): hidden and nonexistent endpoints, and another caller's and nonexistent task IDs, should
 * take similar time to refuse. The comparison is deliberately coarse so that it cannot flake on
 * a loaded machine: interleaved pairs in seeded order, medians, and a warning only when they
 * differ by more than 25 ms and by more than twice the faster one. A gateway that looks up a
 * hidden endpoint in a slow store while refusing unknown ones from memory shows up; jitter does
 * not. Shared rate limits cannot be checked: the SUT config documents none.
 */
import type { Element } from '@xmpp/xml';
import type { IqExchange } from '../../harness/driver/index.ts';
import { NODE_DIRECTORY } from '../../protocol/namespaces.ts';
import { normalizeBareJid } from '../../protocol/jid/index.ts';
import { buildSchemaRequest } from '../../protocol/stanza/index.ts';
import { defineSuite } from '../framework/case.ts';
import type { CaseContext } from '../framework/context.ts';
import {
  expectDiscoInfo,
  expectStanzaError,
  expectThat,
  requirePositiveControl,
} from '../framework/expect.ts';
import { MissingFixture, RequirementViolation } from '../framework/verdicts.ts';
import { requireWorld } from '../fixtures/reference-world.ts';
import { callerFor, discoInfo, listing, roleThatMaySee, traverse } from './support/discovery.ts';
import { exampleArguments } from './support/manifests.ts';
import {
  awaitSettled,
  conformanceTarget,
  freshRequestId,
  sendInvoke,
  startTask,
  targetOf,
  taskStateRequest,
} from './support/tasks.ts';
import type { RequirementId } from '../registry/requirement-ids.ts';

/** Pairs measured per comparison, after two unmeasured warm-up pairs. */
const SAMPLES = 24;

interface Probe {
  readonly label: string;
  readonly send: () => Promise<IqExchange>;
}

function median(values: readonly number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/**
 * Round-trip times of the two probes, sent one after the other in pairs whose order the case
 * seed decides; every reply must be item-not-found. Real time, not the context's: what is
 * measured is the gateway's latency.
 */
async function compareTimings(
  context: CaseContext,
  requirement: RequirementId,
  first: Probe,
  second: Probe,
): Promise<void> {
  const times: [number[], number[]] = [[], []];
  const probes = [first, second] as const;
  for (let pair = 0; pair < SAMPLES + 2; pair++) {
    for (const index of context.random.shuffle([0, 1] as const)) {
      const started = performance.now();
      const exchange = await probes[index].send();
      const elapsed = performance.now() - started;
      expectStanzaError(exchange, requirement, 'item-not-found', context);
      if (pair >= 2) times[index].push(elapsed);
    }
  }
  const [a, b] = [median(times[0]), median(times[1])];
  const [fast, slow] = a <= b ? [a, b] : [b, a];
  if (slow - fast > 25 && slow > 2 * fast) {
    context.warn(
      requirement,
      `median answer times differ: ${first.label} ${a.toFixed(1)} ms, ${second.label} ${b.toFixed(1)} ms over ${String(SAMPLES)} interleaved pairs`,
    );
  }
}

export const privacySuite = defineSuite('privacy', 'Privacy Considerations', [
  {
    id: 'privacy.listing-grants-nothing',
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
      requirePositiveControl(
        (
          await sendInvoke(
            context,
            await callerFor(context, invoker),
            target,
            invocable.name,
            exampleArguments(invocable.inputSchema.bytes),
          )
        ).exchange,
        `the ${invoker} caller, whom the world lets invoke it, invoking ${restricted.jid} ${invocable.name}`,
      );
      for (const tool of restricted.active.tools) {
        const { exchange } = await sendInvoke(context, caller, target, tool.name, {});
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
    id: 'privacy.not-found-timing',
    requirements: ['privacy.enumeration-side-channels', 'task-recovery.timing-equivalence'],
    profiles: ['core-directory', 'task-execution'],
    level: 'SHOULD',
    statement:
      'Endpoint information for the endpoint hidden from the local caller and for a nonexistent one, and (with task execution) task state for a federated caller’s task and for a nonexistent task ID, take similar time: interleaved in seeded order, their median times may not differ by more than 25 ms and twice the faster one (a warning otherwise).',
    run: async (context) => {
      const world = requireWorld(context);
      const caller = await context.callers.local();
      const hidden = world.hiddenEndpoint.jid;
      const nobody = world.nonexistentJid;
      await compareTimings(
        context,
        'privacy.enumeration-side-channels',
        { label: `hidden ${hidden}`, send: () => discoInfo(caller, hidden) },
        { label: `nonexistent ${nobody}`, send: () => discoInfo(caller, nobody) },
      );
      if (!context.sut.profiles.has('task-execution')) return;
      const target = conformanceTarget(context);
      const owner = await context.callers.remote();
      const { accepted } = await startTask(context, owner, target, 'script', { steps: [{ complete: {} }] });
      await awaitSettled(context, owner, accepted.taskId);
      const unknown = `task-${freshRequestId(context)}`;
      await compareTimings(
        context,
        'task-recovery.timing-equivalence',
        { label: 'another caller’s task', send: () => taskStateRequest(caller, target, accepted.taskId) },
        { label: 'a nonexistent task', send: () => taskStateRequest(caller, target, unknown) },
      );
    },
  },
]);
