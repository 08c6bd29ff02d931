// The outbound-IQ tracker with hand-moved timers: replies matched by id and sender, deadlines,
// and every pending request failing when the stream goes down or the gateway stops.
import { xml, type Element } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import { NS } from '../../protocol/namespaces.ts';
import { parseXml, serialize } from '../../protocol/stanza/index.ts';
import { OutboundIqError, OutboundIqTracker, type OutboundIqFailure } from './outbound-iq.ts';
import { FakeTiming } from './test-support/fake-timing.ts';

const PING = xml('ping', { xmlns: NS.ping });

function setup(options: { online?: boolean; maxPending?: number; writeFails?: boolean } = {}) {
  const timing = new FakeTiming();
  const written: string[] = [];
  let online = options.online ?? true;
  let counter = 0;
  const tracker = new OutboundIqTracker({
    write: (stanza: Element) => {
      if (options.writeFails === true) return Promise.reject(new Error('socket closed'));
      written.push(serialize(stanza));
      return Promise.resolve();
    },
    online: () => online,
    timing,
    newId: () => `iq-${String(++counter)}`,
    ...(options.maxPending === undefined ? {} : { maxPending: options.maxPending }),
  });
  const request = (to = 'server.example', timeoutMs = 1000) =>
    tracker.request({ to, type: 'get', payload: PING, from: 'agents.example', timeoutMs });
  return {
    timing,
    tracker,
    written,
    request,
    setOnline: (value: boolean) => (online = value),
  };
}

/** A reply stanza as the component receives it, detached and strictly parsed. */
function reply(text: string): Element {
  return parseXml(text);
}

async function failure(promise: Promise<unknown>): Promise<OutboundIqFailure> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OutboundIqError) return error.reason;
    throw error;
  }
  return expect.fail('the request did not fail');
}

describe('OutboundIqTracker', () => {
  it('writes the request and resolves with the reply from its addressee', async () => {
    const { tracker, written, request, timing } = setup();
    const pending = request();
    expect(written).toEqual([
      "<iq id='iq-1' type='get' from='agents.example' to='server.example'><ping xmlns='urn:xmpp:ping'/></iq>",
    ]);
    expect(tracker.pending).toBe(1);
    expect(
      tracker.settle(reply("<iq type='result' id='iq-1' from='server.example' to='agents.example'/>")),
    ).toBe(true);
    expect(await pending).toMatchObject({ type: 'result', id: 'iq-1', from: 'server.example' });
    expect(tracker.pending).toBe(0);
    expect(timing.pendingTimers).toBe(0);
  });

  it('resolves with an error reply too: an answer is an answer', async () => {
    const { tracker, request } = setup();
    const pending = request('weather@agents.example');
    const error = reply(
      "<iq type='error' id='iq-1' from='Weather@Agents.Example'><error type='cancel'>" +
        "<service-unavailable xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>",
    );
    // The sender is compared after JID normalization.
    expect(tracker.settle(error)).toBe(true);
    const answer = await pending;
    expect(answer.type).toBe('error');
    if (answer.type === 'error') expect(answer.error.condition).toBe('service-unavailable');
  });

  it('ignores a reply with the right id from anyone else, and replies to unknown ids', async () => {
    const { tracker, request, timing } = setup();
    const pending = request('server.example', 1000);
    const forged = [
      "<iq type='result' id='iq-1' from='mallory@hostile.example/x'/>",
      "<iq type='result' id='iq-1' from='server.example/resource'/>",
      "<iq type='result' id='iq-1'/>",
      "<iq type='result' id='iq-2' from='server.example'/>",
      "<iq type='get' id='iq-1' from='server.example'><ping xmlns='urn:xmpp:ping'/></iq>",
      "<iq type='result' id='iq-1' from='not a jid@@'/>",
    ];
    for (const text of forged) expect(tracker.settle(reply(text)), text).toBe(false);
    expect(tracker.pending).toBe(1);
    // Still waiting for the real answer: the forged ones did not settle it.
    expect(tracker.settle(reply("<iq type='result' id='iq-1' from='server.example'/>"))).toBe(true);
    expect((await pending).type).toBe('result');
    // A late duplicate of the real answer is nobody's reply any more.
    expect(tracker.settle(reply("<iq type='result' id='iq-1' from='server.example'/>"))).toBe(false);
    await timing.advance(5000);
  });

  it('rejects with "timeout" at the deadline, not before', async () => {
    const { tracker, request, timing } = setup();
    const pending = request('server.example', 1000);
    let settled = false;
    pending.catch(() => undefined).finally(() => (settled = true));
    await timing.advance(999);
    expect(settled).toBe(false);
    await timing.advance(1);
    expect(await failure(pending)).toBe('timeout');
    expect(tracker.pending).toBe(0);
    // The answer that comes after the deadline settles nothing.
    expect(tracker.settle(reply("<iq type='result' id='iq-1' from='server.example'/>"))).toBe(false);
  });

  it('fails every pending request at once when the stream is lost, and when the gateway stops', async () => {
    const { tracker, request, timing } = setup();
    const first = request('server.example');
    const second = request('weather@agents.example');
    tracker.failAll('stream-lost');
    expect(await failure(first)).toBe('stream-lost');
    expect(await failure(second)).toBe('stream-lost');
    const third = request();
    tracker.failAll('stopped');
    expect(await failure(third)).toBe('stopped');
    expect(tracker.pending).toBe(0);
    expect(timing.pendingTimers).toBe(0);
  });

  it('sends nothing while offline, and fails a request whose write fails as stream-lost', async () => {
    const offline = setup({ online: false });
    expect(await failure(offline.request())).toBe('offline');
    expect(offline.written).toEqual([]);
    const broken = setup({ writeFails: true });
    expect(await failure(broken.request())).toBe('stream-lost');
    expect(broken.tracker.pending).toBe(0);
    expect(broken.timing.pendingTimers).toBe(0);
  });

  it('bounds the pending requests (#rules)', async () => {
    const { request, written } = setup({ maxPending: 2 });
    const kept = [request(), request()];
    expect(await failure(request())).toBe('overloaded');
    expect(written).toHaveLength(2);
    for (const promise of kept) promise.catch(() => undefined);
  });

  it('names the addressee and id in its error, never the payload', async () => {
    const { request, timing } = setup();
    const pending = request('server.example', 10);
    pending.catch(() => undefined); // inspected below, after the deadline
    await timing.advance(10);
    await expect(pending).rejects.toThrow(new OutboundIqError('timeout', 'server.example', 'iq-1'));
    await expect(pending).rejects.toThrow('IQ iq-1 to server.example: timeout');
  });

  it('refuses an addressee that is not a JID', () => {
    const { tracker } = setup();
    expect(() =>
      tracker.request({ to: 'a@@b', type: 'get', payload: PING, from: 'agents.example', timeoutMs: 1 }),
    ).toThrow(TypeError);
  });
});
