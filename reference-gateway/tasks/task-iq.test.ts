import { xml } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import { NS_AGENT_TASK } from '../../protocol/namespaces.ts';
import { buildInvoke, buildTaskStateRequest, parseAccepted } from '../../protocol/stanza/index.ts';
import { FAULT } from '../iq/faults.ts';
import { TASK_REQUEST_ELEMENTS, respondToTaskIq } from './task-iq.ts';
import { BOB, WEATHER, invokeRequest } from './test-support/engine-kit.ts';
import { useEngineKit } from './test-support/use-engine-kit.ts';

const kit = useEngineKit();

describe('respondToTaskIq (#errors, #task-recovery)', () => {
  it('parses and routes an invoke, then a state request for the task it created', async () => {
    const invoke = buildInvoke(invokeRequest(kit.store));
    const admitted = await respondToTaskIq(kit.engine, BOB, WEATHER, 'set', invoke);
    if (admitted?.ok !== true) throw new Error('not admitted');
    const { taskId } = parseAccepted(admitted.payload);
    const state = await respondToTaskIq(kit.engine, BOB, WEATHER, 'get', buildTaskStateRequest({ taskId }));
    expect(state?.ok).toBe(true);
  });

  it('answers bad-request for an invalid task ID and for the wrong IQ type', async () => {
    const invalid = xml('task-state-request', { xmlns: NS_AGENT_TASK, 'task-id': 'short' });
    expect(await respondToTaskIq(kit.engine, BOB, WEATHER, 'get', invalid)).toEqual({
      ok: false,
      fault: FAULT.badRequest,
    });
    const valid = buildTaskStateRequest({ taskId: 'task-0000000000000000000000' });
    expect(await respondToTaskIq(kit.engine, BOB, WEATHER, 'set', valid)).toEqual({
      ok: false,
      fault: FAULT.badRequest,
    });
  });

  it('leaves payloads that are not task requests alone', async () => {
    const other = xml('query', { xmlns: 'http://jabber.org/protocol/disco#info' });
    expect(await respondToTaskIq(kit.engine, BOB, WEATHER, 'get', other)).toBeUndefined();
    const accepted = xml('accepted', { xmlns: NS_AGENT_TASK });
    expect(TASK_REQUEST_ELEMENTS).not.toContain('accepted');
    expect(await respondToTaskIq(kit.engine, BOB, WEATHER, 'set', accepted)).toBeUndefined();
  });
});
