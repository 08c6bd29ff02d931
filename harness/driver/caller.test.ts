// The driver against a real federation: alice@example.com calls echo@agents.example across s2s.
import { readFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';

import { xml, type Element } from '@xmpp/xml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { generateIdentifier } from '../../protocol/identifiers.ts';
import { NS } from '../../protocol/namespaces.ts';
import {
  buildEvent,
  buildLifecycleMessage,
  buildMessage,
  serialize,
  StanzaParseError,
  type TaskEvent,
} from '../../protocol/stanza/index.ts';
import { nativeProvider } from '../federation/native-provider.ts';
import type { Federation } from '../federation/server-provider.ts';
import {
  ECHO_NS,
  startEchoComponent,
  type EchoComponent,
} from '../federation/test-support/echo-component.ts';
import { Caller } from './caller.ts';
import { createDriver, type Driver } from './driver.ts';
import { CallerDisconnected, IqTimeout, LoginFailed, StanzaErrorReply } from './errors.ts';
import { Transcript } from './transcript.ts';
import { transcriptPerTest } from './test-support/vitest-transcripts.ts';

const ECHO = 'echo@agents.example';
const APP_NS = 'urn:agentconf:test:app';

function echo(text: string): Element {
  return xml('echo', { xmlns: ECHO_NS }, text);
}

function echoedText(payload: Element | undefined): string | undefined {
  return payload?.is('echo', ECHO_NS) === true ? payload.getText() : undefined;
}

function taskEvent(taskId: string, revision: number, type: TaskEvent['type'], json: string): TaskEvent {
  return { taskId, eventId: generateIdentifier('event-'), revision, type, json };
}

describe('test driver', () => {
  let federation: Federation;
  let component: EchoComponent;
  let driver: Driver;
  let alice: Caller;

  beforeAll(async () => {
    // The first run on a machine may install Prosody from Debian.
    federation = await nativeProvider.start();
    const { host, port, domain, secret } = federation.component;
    component = await startEchoComponent({ host, port, domain, secret });
    driver = createDriver(federation, { timeoutMs: 5000 });
    alice = await driver.connect('alice@example.com', 'laptop');
  }, 300_000);

  afterAll(async () => {
    await driver.closeAll();
    await component.stop();
    await federation.stop();
  });

  transcriptPerTest(() => driver);

  it('connects with the requested resource and resolves an IQ across s2s with the result payload', async () => {
    expect(alice.jid).toBe('alice@example.com/laptop');
    expect(alice.status).toBe('online');
    const payload = await alice.iq(ECHO, 'get', echo('across'));
    expect(payload?.is('echo', ECHO_NS)).toBe(true);
    expect(echoedText(payload)).toBe('across');
    // An empty result resolves with undefined (XEP-0199 ping of the caller's own server).
    expect(await alice.iq('example.com', 'get', xml('ping', { xmlns: NS.ping }))).toBeUndefined();
  });

  it("refuses a send its driver's gate refuses, unpaced callers included, and writes nothing", async () => {
    let closed = false;
    const gated = createDriver(federation, {
      timeoutMs: 5000,
      sendGate: () => {
        if (closed) throw new Error('gate closed');
      },
    });
    try {
      const bob = await gated.connect('alice@example.com', 'gated', { unpaced: true });
      expect(echoedText(await bob.iq(ECHO, 'get', echo('open')))).toBe('open');
      closed = true;
      const entries = bob.transcript.entries.length;
      await expect(bob.iq(ECHO, 'get', echo('closed'))).rejects.toThrow('gate closed');
      await expect(bob.send(xml('presence'))).rejects.toThrow('gate closed');
      await expect(bob.sendRaw('<presence/>')).rejects.toThrow('gate closed');
      expect(bob.transcript.entries.length).toBe(entries);
    } finally {
      closed = false;
      await gated.closeAll();
    }
  });

  it('rejects with a typed stanza error carrying every part of the error and the raw XML', async () => {
    const scripted = xml(
      'fail',
      { xmlns: ECHO_NS },
      xml(
        'error',
        { type: 'modify', by: ECHO },
        xml('bad-request', { xmlns: NS.stanzas }),
        xml('text', { xmlns: NS.stanzas, 'xml:lang': 'en' }, 'scripted failure'),
        xml('quota-exceeded', { xmlns: APP_NS }),
      ),
    );
    const failure = await alice.iq(ECHO, 'get', scripted).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(StanzaErrorReply);
    if (!(failure instanceof StanzaErrorReply)) return;
    expect(failure).toMatchObject({
      condition: 'bad-request',
      type: 'modify',
      text: 'scripted failure',
      by: ECHO,
      from: ECHO,
      to: ECHO,
      caller: 'alice@example.com/laptop',
    });
    expect(failure.applicationCondition?.is('quota-exceeded', APP_NS)).toBe(true);
    expect(failure.echoedPayload?.is('fail', ECHO_NS)).toBe(true);
    expect(failure.replyXml).toMatch(/^<iq [^>]*type=['"]error['"]/);
    expect(failure.replyXml).toContain('quota-exceeded');
    expect(failure.requestXml).toContain(`id='${failure.requestId}'`);
    expect(failure.message).toContain('modify/bad-request "scripted failure"');

    // The library's default answer to an unhandled IQ set, from the component's side.
    await expect(alice.iq(ECHO, 'set', echo('nobody handles sets'))).rejects.toMatchObject({
      name: 'StanzaErrorReply',
      condition: 'service-unavailable',
      type: 'cancel',
    });
  });

  it('rejects with IqTimeout when the s2s link holds the request, and marks the late reply', async () => {
    const link = federation.links.s2sAToB;
    expect(echoedText(await alice.iq(ECHO, 'get', echo('warm up')))).toBe('warm up');
    driver.transcript.note('freezing s2sAToB');
    link.freeze();
    try {
      const failure = await alice.iq(ECHO, 'get', echo('held'), { timeoutMs: 250 }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(IqTimeout);
      if (!(failure instanceof IqTimeout)) return;
      expect(failure).toMatchObject({ timeoutMs: 250, to: ECHO, caller: 'alice@example.com/laptop' });
      expect(failure.requestXml).toContain('held');

      const late = alice.waitForStanza((stanza) => stanza.id === failure.requestId, {
        description: 'the late reply',
      });
      driver.transcript.note('resuming s2sAToB');
      link.resume();
      expect((await late).type).toBe('result');
      const lateEntry = driver.transcript.entries.find((entry) => entry.text?.startsWith('late reply'));
      expect(lateEntry).toMatchObject({ direction: 'received', kind: 'stanza' });
      expect(lateEntry?.xml).toContain(failure.requestId);
    } finally {
      federation.links.restoreAll();
    }
    expect(echoedText(await alice.iq(ECHO, 'get', echo('after')))).toBe('after');
  });

  it('records a second reply to an answered IQ, naming the transcript the request was sent in', async () => {
    const sentIn = driver.transcript.title;
    const since = alice.inbound.length;
    expect(await alice.iq(ECHO, 'get', xml('twice', { xmlns: ECHO_NS }))).toBeUndefined();
    const second = await alice.waitForStanza((stanza) => stanza.name === 'iq' && stanza.type === 'error', {
      since,
    });
    const found = alice.secondReplies.filter((reply) => reply.id === second.id);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      caller: alice.jid,
      to: ECHO,
      sentDuring: sentIn,
      secondXml: second.xml,
    });
    expect(driver.secondReplies()).toContainEqual(found[0]);
    expect(driver.transcript.toText()).toContain(
      `second reply: iq ${String(second.id)} was already answered`,
    );
  });

  it('does not count the answer that follows a routing error as a second reply (a server may have sent the error)', async () => {
    const bounced = xml(
      'fail',
      { xmlns: ECHO_NS },
      xml('error', { type: 'wait' }, xml('recipient-unavailable', { xmlns: NS.stanzas })),
    );
    const failure = await alice.iq(ECHO, 'get', bounced).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(StanzaErrorReply);
    if (!(failure instanceof StanzaErrorReply)) return;
    const before = alice.secondReplies.length;
    // The addressee's own answer, after the error a server might have sent in its name.
    await component.sendRaw(`<iq type='result' id='${failure.requestId}' from='${ECHO}' to='${alice.jid}'/>`);
    const late = await alice.waitForStanza(
      (stanza) => stanza.id === failure.requestId && stanza.type === 'result',
    );
    expect(late.from).toBe(ECHO);
    expect(alice.secondReplies).toHaveLength(before);
    expect(driver.transcript.toText()).toContain(
      'reply after recipient-unavailable: a server may have sent that error',
    );
  });

  it('gives each of two resources of one account its own replies', async () => {
    const phone = await driver.connect('alice@example.com', 'phone');
    try {
      expect(phone.jid).toBe('alice@example.com/phone');
      expect(() => driver.caller('alice@example.com', 'phone')).toThrow(/already online/);
      const [fromLaptop, fromPhone] = await Promise.all([
        alice.exchangeIq(ECHO, 'get', echo('laptop')),
        phone.exchangeIq(ECHO, 'get', echo('phone')),
      ]);
      expect(echoedText(fromLaptop.parsed.payload)).toBe('laptop');
      expect(echoedText(fromPhone.parsed.payload)).toBe('phone');
      expect(fromLaptop.reply.to).toBe('alice@example.com/laptop');
      expect(fromPhone.reply.to).toBe('alice@example.com/phone');
      // Neither session saw the other's reply.
      expect(alice.inbound.some((stanza) => stanza.id === fromPhone.id)).toBe(false);
      expect(phone.inbound.some((stanza) => stanza.id === fromLaptop.id)).toBe(false);
    } finally {
      await phone.close();
    }
    expect(phone.status).toBe('closed');
  });

  it('queues task events from the component per task, valid and malformed', async () => {
    const taskId = generateIdentifier('task-');
    const progress = taskEvent(taskId, 1, 'progress', '{"message":"working"}');
    const done = taskEvent(taskId, 2, 'completed', '{"result":{"ok":true}}');
    // To the full JID, and to the bare JID: the initial presence makes the session available.
    await component.sendRaw(serialize(buildLifecycleMessage({ from: ECHO, to: alice.jid }, progress)));
    await component.sendRaw(serialize(buildLifecycleMessage({ from: ECHO, to: alice.bareJid }, done)));

    const first = await alice.events.next(taskId);
    expect(first).toMatchObject({ valid: true, taskId, from: ECHO, event: progress });
    const last = await alice.events.waitFor(
      taskId,
      (event) => event.valid && event.event.type === 'completed',
    );
    expect(last.valid && last.event).toEqual(done);

    // Two events in one message break #events; it is kept, flagged, under the first event's task.
    const broken = generateIdentifier('task-');
    await component.sendRaw(
      serialize(
        buildMessage(
          { from: ECHO, to: alice.jid, type: 'normal' },
          buildEvent(taskEvent(broken, 1, 'status', '{}')),
          buildEvent(taskEvent(broken, 2, 'status', '{}')),
        ),
      ),
    );
    const flagged = await alice.events.next(broken);
    expect(flagged.valid).toBe(false);
    expect(!flagged.valid && flagged.problem).toBeInstanceOf(StanzaParseError);
    expect(flagged.stanza.xml).toContain(broken);
    expect(alice.events.all(taskId)).toHaveLength(2);
    expect(alice.events.malformed().map((event) => event.taskId)).toContain(broken);
  });

  it('records both directions in order, with the exact XML, as text and as JSON', async () => {
    const since = driver.transcript.entries.length;
    const exchange = await alice.exchangeIq(
      ECHO,
      'get',
      xml('echo', { xmlns: ECHO_NS, note: 'tab\there' }, 'in order'),
    );
    const entries = driver.transcript.entries.slice(since);
    const sent = entries.find((entry) => entry.direction === 'sent' && entry.xml === exchange.requestXml);
    const received = entries.find(
      (entry) => entry.direction === 'received' && entry.xml === exchange.reply.xml,
    );
    expect(sent).toMatchObject({ kind: 'stanza', jid: 'alice@example.com/laptop' });
    expect(received).toMatchObject({ kind: 'stanza', jid: 'alice@example.com/laptop' });
    expect(received?.seq).toBeGreaterThan(sent?.seq ?? Infinity);
    expect(received?.atMs).toBeGreaterThanOrEqual(sent?.atMs ?? Infinity);
    // serialize() wrote the request: a TAB in an attribute survives as a character reference.
    expect(exchange.requestXml).toContain("note='tab&#9;here'");
    expect(echoedText(exchange.parsed.payload)).toBe('in order');

    const lines = driver.transcript.toText().split('\n');
    const line = (direction: string, text: string): boolean =>
      lines.some(
        (candidate) =>
          /alice@example\.com\/laptop +(SEND|RECV) /.exec(candidate)?.[1] === direction &&
          candidate.endsWith(text),
      );
    expect(line('SEND', exchange.requestXml)).toBe(true);
    expect(line('RECV', exchange.reply.xml)).toBe(true);
    const json = JSON.parse(JSON.stringify(driver.transcript)) as { entries: { xml?: string }[] };
    expect(json.entries.map((entry) => entry.xml)).toContain(exchange.requestXml);
  });

  it('sends raw stanzas and waits for what comes back', async () => {
    const id = generateIdentifier('raw-');
    const answer = alice.waitForStanza((stanza) => stanza.id === id);
    // Two payloads in an IQ get: RFC 6120 §8.2.3 forbids it, and the server says so.
    await alice.sendRaw(`<iq type='get' id='${id}' to='${ECHO}'><a xmlns='urn:x'/><b xmlns='urn:x'/></iq>`);
    const reply = await answer;
    expect(reply.type).toBe('error');
    expect(reply.element?.getChild('error')?.getChild('bad-request', NS.stanzas)).toBeDefined();
    expect(driver.transcript.entries.some((entry) => entry.kind === 'raw' && entry.xml?.includes(id))).toBe(
      true,
    );
  });

  it('records the stream error when the server ends the stream, and fails what was waiting', async () => {
    const broken = await driver.connect('alice@example.com', 'broken');
    const waiting = broken.waitForStanza(() => false).catch((error: unknown) => error);
    const eventWait = broken.events.next(generateIdentifier('task-')).catch((error: unknown) => error);
    await broken.sendRaw('<message to=unquoted/>');
    const ended = await broken.waitUntilEnded();
    expect(ended.reason).toBe('connection lost');
    expect(broken.status).toBe('lost');
    expect(await waiting).toBeInstanceOf(CallerDisconnected);
    expect(await eventWait).toBeInstanceOf(CallerDisconnected);
    const streamError = driver.transcript.entries.find(
      (entry) => entry.kind === 'stream-error' && entry.jid === 'alice@example.com/broken',
    );
    expect(streamError?.direction).toBe('received');
    expect(streamError?.xml).toContain('not-well-formed');
  });

  it('names the JID when the login fails, and refuses further use of the caller', async () => {
    const transcript = new Transcript('login failure');
    const wrong = new Caller({
      account: { ...federation.account('alice@example.com'), password: 'not-the-password' },
      resource: 'wrong',
      ca: () => readFile(federation.caCertPath, 'utf8'),
      transcript,
    });
    const failure = await wrong.connect().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(LoginFailed);
    expect(failure).toMatchObject({ jid: 'alice@example.com/wrong', condition: 'not-authorized' });
    expect((failure as Error).message).toMatch(
      /^login as alice@example\.com\/wrong at xmpps:\/\/.* failed: not-authorized/,
    );
    expect(wrong.status).toBe('failed');
    expect(transcript.entries.at(-1)).toMatchObject({ kind: 'status', jid: 'alice@example.com/wrong' });
    await expect(wrong.iq(ECHO, 'get', echo('x'))).rejects.toThrow(/not online \(failed\)/);
    await wrong.close();
  });

  it('gives up a login that the server never answers, at its deadline, and closes the socket', async () => {
    // Accepts TCP and stays silent: the TLS handshake never completes.
    const accepted: Socket[] = [];
    const silent = createServer((socket) => {
      // The login giving up at its deadline may reset the connection: expected here.
      socket.on('error', () => undefined);
      accepted.push(socket);
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const serverSideClosed = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error('the caller left its socket open'));
        }, 2000);
        silent.once('connection', (socket: Socket) => {
          socket.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
        });
      });
      const { port } = silent.address() as AddressInfo;
      const account = federation.account('alice@example.com');
      const mute = new Caller({
        account: { ...account, c2sDirectTls: { host: '127.0.0.1', port } },
        resource: 'mute',
        ca: () => readFile(federation.caCertPath, 'utf8'),
        transcript: new Transcript('silent server'),
        loginTimeoutMs: 300,
      });
      await expect(mute.connect()).rejects.toThrow(
        /^login as alice@example\.com\/mute .* not online within 300 ms/,
      );
      await serverSideClosed;
      expect(accepted).toHaveLength(1);
    } finally {
      for (const socket of accepted) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
