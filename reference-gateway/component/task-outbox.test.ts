import type { Element } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import { buildLifecycleMessage } from '../../protocol/stanza/index.ts';
import { TaskOutbox } from './task-outbox.ts';

function eventMessage(taskId: string, revision: number, to = 'bob@server.example/desk'): Element {
  const eventId = `evt-${taskId}-${String(revision)}-aaaaaaaaaaaaaaaa`;
  return buildLifecycleMessage(
    { from: 'conformance@agents.example', to, id: eventId },
    {
      taskId,
      eventId,
      revision,
      type: 'status',
      json: '{"state":"running","updatedAt":"2026-01-01T00:00:00Z"}',
    },
  );
}

/** A sender whose answer the test decides; it records what it was given. */
function scriptedSender(answers: () => boolean) {
  const sent: Element[] = [];
  return {
    sent,
    send: (stanza: Element): Promise<boolean> => {
      sent.push(stanza);
      return Promise.resolve(answers());
    },
  };
}

async function settle(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

describe('TaskOutbox (#events: no committed event is lost to a link that is down)', () => {
  it('keeps what arrives before a sender is attached, as task and first revision', () => {
    const outbox = new TaskOutbox();
    outbox.deliver(eventMessage('task-aaaaaaaaaaaaaaaaaaaaaa', 2));
    outbox.deliver(eventMessage('task-aaaaaaaaaaaaaaaaaaaaaa', 1));
    outbox.deliver(eventMessage('task-bbbbbbbbbbbbbbbbbbbbbb', 5));
    expect([...outbox.undelivered]).toEqual([
      ['task-aaaaaaaaaaaaaaaaaaaaaa', 1],
      ['task-bbbbbbbbbbbbbbbbbbbbbb', 5],
    ]);
    const resent: string[] = [];
    expect(outbox.flush((taskId, from) => resent.push(`${taskId}@${String(from)}`))).toBe(2);
    expect(resent).toEqual(['task-aaaaaaaaaaaaaaaaaaaaaa@1', 'task-bbbbbbbbbbbbbbbbbbbbbb@5']);
    expect(outbox.undelivered.size).toBe(0);
    expect(outbox.flush(() => undefined)).toBe(0);
  });

  it('remembers what the link refused or failed to write, and records what it took', async () => {
    let online = true;
    const sender = scriptedSender(() => online);
    const outbox = new TaskOutbox();
    outbox.attach(sender.send);
    outbox.deliver(eventMessage('task-aaaaaaaaaaaaaaaaaaaaaa', 1));
    online = false;
    outbox.deliver(eventMessage('task-aaaaaaaaaaaaaaaaaaaaaa', 2));
    outbox.deliver(eventMessage('task-aaaaaaaaaaaaaaaaaaaaaa', 3));
    await settle();
    expect(sender.sent).toHaveLength(3);
    expect([...outbox.undelivered]).toEqual([['task-aaaaaaaaaaaaaaaaaaaaaa', 2]]);
    expect(outbox.sentEvent('evt-task-aaaaaaaaaaaaaaaaaaaaaa-1-aaaaaaaaaaaaaaaa')).toEqual({
      taskId: 'task-aaaaaaaaaaaaaaaaaaaaaa',
      revision: 1,
      to: 'bob@server.example/desk',
    });
    expect(outbox.sentEvent('evt-task-aaaaaaaaaaaaaaaaaaaaaa-2-aaaaaaaaaaaaaaaa')).toBeUndefined();
  });

  it('treats a sender that rejects like one that refused', async () => {
    const outbox = new TaskOutbox();
    outbox.attach(() => Promise.reject(new Error('socket gone')));
    outbox.deliver(eventMessage('task-aaaaaaaaaaaaaaaaaaaaaa', 4));
    await settle();
    expect([...outbox.undelivered]).toEqual([['task-aaaaaaaaaaaaaaaaaaaaaa', 4]]);
  });

  it('forgets the oldest sends beyond its memory, and logs a message that is no task event', async () => {
    const log: string[] = [];
    const outbox = new TaskOutbox({ sentMemory: 2, log: (line) => log.push(line) });
    outbox.attach(() => Promise.resolve(true));
    for (const revision of [1, 2, 3]) outbox.deliver(eventMessage('task-aaaaaaaaaaaaaaaaaaaaaa', revision));
    await settle();
    const id = (revision: number): string =>
      `evt-task-aaaaaaaaaaaaaaaaaaaaaa-${String(revision)}-aaaaaaaaaaaaaaaa`;
    expect([1, 2, 3].map((revision) => outbox.sentEvent(id(revision))?.revision)).toEqual([undefined, 2, 3]);
    const broken = eventMessage('task-aaaaaaaaaaaaaaaaaaaaaa', 9);
    delete broken.attrs['to'];
    outbox.deliver(broken);
    expect(log).toHaveLength(1);
    expect(outbox.undelivered.size).toBe(0);
  });
});
