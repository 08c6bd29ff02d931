import { describe, expect, it } from 'vitest';
import type { Caller, ReceivedStanza, ReceivedTaskEvent } from '../harness/driver/index.ts';
import { parseXml } from '../protocol/stanza/index.ts';
import { accountsThatBlocked } from './attempt-blocks.ts';
import { unsettledTasks } from './attempt-tasks.ts';

const TARGET = 'conformance@agents.example';

function accepted(index: number, taskId: string): ReceivedStanza {
  const xml = `<iq type='result' id='i${String(index)}' from='${TARGET}'><accepted xmlns='urn:xmpp:agent-task:0' task-id='${taskId}' revision='0'/></iq>`;
  return {
    index,
    name: 'iq',
    xml,
    element: parseXml(xml),
    parseError: undefined,
    receivedAt: 0,
    id: `i${String(index)}`,
    from: TARGET,
    to: 'bob@server.example/r',
    type: 'result',
  };
}

/** A caller as unsettledTasks reads one: what it received, and the task events by task. */
function fakeCaller(inbound: ReceivedStanza[], terminal: readonly string[] = []): Caller {
  const events = {
    all: (taskId: string): ReceivedTaskEvent[] =>
      terminal.includes(taskId) ? [{ valid: true, event: { type: 'completed' } } as ReceivedTaskEvent] : [],
  };
  return { bareJid: 'bob@server.example', status: 'online', inbound, events } as unknown as Caller;
}

describe('unsettledTasks', () => {
  it('lists what the attempt got admitted and saw no terminal event of, once each', () => {
    const caller = fakeCaller(
      [
        accepted(0, 'task-before-the-attempt'),
        accepted(1, 'task-open'),
        accepted(2, 'task-open'),
        accepted(3, 'task-done'),
      ],
      ['task-done'],
    );
    expect(
      unsettledTasks([{ caller, since: 1 }]).map((task) => [task.taskId, task.owner, task.target]),
    ).toEqual([['task-open', 'bob@server.example', TARGET]]);
  });

  it('counts a terminal event any caller of the attempt received', () => {
    const invoker = fakeCaller([accepted(0, 'task-x')]);
    const sibling = fakeCaller([], ['task-x']);
    expect(
      unsettledTasks([
        { caller: invoker, since: 0 },
        { caller: sibling, since: 0 },
      ]),
    ).toEqual([]);
  });
});

describe('accountsThatBlocked', () => {
  it('names the accounts that sent an XEP-0191 <block/>, not an unblock or a blocklist query', () => {
    const entry = (jid: string, direction: 'sent' | 'received', xml: string) => ({
      seq: 1,
      atMs: 0,
      kind: 'stanza' as const,
      direction,
      jid,
      xml,
    });
    const block =
      "<iq type='set' id='b'><block xmlns='urn:xmpp:blocking'><item jid='agents.example'/></block></iq>";
    expect(
      accountsThatBlocked([
        entry('alice@example.com/r1', 'sent', block),
        entry('alice@example.com/r2', 'sent', block),
        entry(
          'dave@server.example/r',
          'sent',
          block.replaceAll('block', 'unblock').replace('urn:xmpp:unblocking', 'urn:xmpp:blocking'),
        ),
        entry(
          'carol@example.com/r',
          'sent',
          "<iq type='get' id='q'><blocklist xmlns='urn:xmpp:blocking'/></iq>",
        ),
        entry('bob@server.example/r', 'received', block),
      ]),
    ).toEqual(['alice@example.com']);
  });
});
