// The stanza log's waits, without a federation: an aborted wait ends at once and leaves nothing
// behind to wake later (call-settled.ts abandons the losing side of each race this way).
import { xml } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';

import { StanzaLog, StanzaWaitTimeout } from './stanza-log.ts';

function message(id: string) {
  return xml('message', { id, from: 'caller@example.com/a', to: 'x@target.example' });
}

describe('StanzaLog waits', () => {
  it('an aborted wait rejects with the abort reason and takes no later stanza', async () => {
    const log = new StanzaLog();
    const stream = log.stream({ kind: 'message' });
    const stop = new AbortController();
    const waiting = stream.next(60_000, stop.signal);
    stop.abort(new Error('given up'));
    await expect(waiting).rejects.toThrow('given up');
    log.record('message', message('m1'));
    // The cursor did not move: the stanza is still the stream's next one.
    await expect(stream.next(10)).resolves.toMatchObject({ id: 'm1' });
  });

  it('a wait on an already aborted signal rejects before waiting', async () => {
    const log = new StanzaLog();
    const stop = new AbortController();
    stop.abort(new Error('before'));
    await expect(
      log.waitFor({ kind: 'message' }, { timeoutMs: 60_000, signal: stop.signal }),
    ).rejects.toThrow('before');
  });

  it('a stanza that arrives in time wins over the abort and the timeout', async () => {
    const log = new StanzaLog();
    const stop = new AbortController();
    const waiting = log.waitFor({ kind: 'message' }, { timeoutMs: 60_000, signal: stop.signal });
    log.record('message', message('m2'));
    stop.abort();
    await expect(waiting).resolves.toMatchObject({ id: 'm2' });
    await expect(log.waitFor({ kind: 'presence' }, { timeoutMs: 5 })).rejects.toBeInstanceOf(
      StanzaWaitTimeout,
    );
  });
});
