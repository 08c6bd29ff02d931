// The task engine wired into the reference gateway, end to end through the native federation:
// task features advertised where tasks run, one invocation from a local and one from a remote
// caller with their events, state and result. The task-*.test.ts files beside this one cover
// each item of the task profile in depth.
import { describe, expect, it } from 'vitest';
import { FEATURE } from '../protocol/namespaces.ts';
import { buildDiscoInfoRequest, parseDiscoInfo } from '../protocol/stanza/index.ts';
import { encodeToolNode } from '../protocol/tool-node.ts';
import { JID } from './test-support/fixtures.ts';
import { ALICE, BOB, GATEWAY, useGatewayFederation } from './test-support/gateway-federation.ts';
import {
  CONFORMANCE,
  CONFORMANCE_VERSION,
  eventsUntilTerminal,
  expectResultMatches,
  invokeAccepted,
  invokeOf,
  taskResult,
  taskState,
  withConformanceEndpoint,
} from './test-support/tasks.ts';
import { resultPayload } from './test-support/wire.ts';

const world = useGatewayFederation({ world: withConformanceEndpoint, connect: [BOB, ALICE] });

const TASK_FEATURES = [FEATURE.task, FEATURE.taskProgress, FEATURE.taskCancel, FEATURE.taskInput];

describe('task engine wiring (#execution)', () => {
  it('advertises the task features at executable endpoints and tools, never at the gateway (#conformance)', async () => {
    const bob = await world().caller(BOB);
    const features = async (to: string, node?: string): Promise<string[]> =>
      parseDiscoInfo(
        resultPayload(
          await bob.exchangeIq(to, 'get', buildDiscoInfoRequest(node === undefined ? {} : { node })),
        ),
      ).features.filter((feature) => feature.startsWith(FEATURE.task));
    expect(await features(GATEWAY)).toEqual([]);
    expect((await features(CONFORMANCE)).toSorted()).toEqual(TASK_FEATURES.toSorted());
    // Weather runs on the conformance runtime in the reference world too.
    expect((await features(JID.weather)).toSorted()).toEqual(TASK_FEATURES.toSorted());
    const tool = (name: string): string => encodeToolNode(CONFORMANCE_VERSION, name);
    expect((await features(CONFORMANCE, tool('script'))).toSorted()).toEqual(
      [FEATURE.taskProgress, FEATURE.taskCancel, FEATURE.taskInput].toSorted(),
    );
    // Effective support needs the tool's declaration too: script.plain and counter declare none.
    expect(await features(CONFORMANCE, tool('script.plain'))).toEqual([]);
    expect(await features(CONFORMANCE, tool('counter'))).toEqual([]);
  });

  for (const [who, jid] of [
    ['a local caller', BOB],
    ['a remote caller across s2s', ALICE],
  ] as const) {
    it(`runs a task for ${who}: accepted, events at the invoking full JID, state and result`, async () => {
      const caller = await world().caller(jid);
      const invoke = invokeOf({
        steps: [{ progress: { percent: 50 } }, { complete: { content: [{ type: 'text', text: 'ok' }] } }],
      });
      const accepted = await invokeAccepted(caller, invoke);
      const history = await eventsUntilTerminal(caller, accepted.taskId);
      expect(history.kinds).toEqual(['status:running', 'progress', 'completed']);
      for (const event of history.events) expect(event.stanza.to).toBe(caller.jid);
      const state = await taskState(caller, accepted.taskId);
      expect({
        state: state.state,
        revision: state.revision,
        resultAvailable: state.resultAvailable,
      }).toEqual({
        state: 'completed',
        revision: 3,
        resultAvailable: true,
      });
      const terminal = history.events.at(-1);
      if (terminal === undefined) throw new Error('no terminal event');
      expectResultMatches(await taskResult(caller, accepted.taskId), terminal);
    });
  }
});
