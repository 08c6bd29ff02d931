// The run's callers against a real federation. A sibling an attempt opened closes when the
// attempt ends; its graceful close is what ends the listening for second replies to its
// requests (suites/framework/second-replies.ts): the server's closing tag comes after whatever was
// queued for it, so a second reply the gateway wrote before is still recorded.
import { xml } from '@xmpp/xml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createDriver, Transcript, type Driver } from '../harness/driver/index.ts';
import { nativeProvider } from '../harness/federation/native-provider.ts';
import type { Federation } from '../harness/federation/server-provider.ts';
import {
  ECHO_NS,
  startEchoComponent,
  type EchoComponent,
} from '../harness/federation/test-support/echo-component.ts';
import { RunCallers } from './caller-pool.ts';

const ECHO = 'echo@agents.example';
const ALICE = 'alice@example.com';
const ROLES = {
  local: ALICE,
  remote: ALICE,
  remotePeer: ALICE,
  denied: ALICE,
  admin: undefined,
  registrant: ALICE,
};

/** The full JIDs that sent a stanza recorded in `transcript`. */
function senders(transcript: Transcript): Set<string | undefined> {
  return new Set(transcript.entries.filter((entry) => entry.direction === 'sent').map((entry) => entry.jid));
}

describe('RunCallers', () => {
  let federation: Federation;
  let component: EchoComponent;
  let driver: Driver;

  beforeAll(async () => {
    federation = await nativeProvider.start();
    const { host, port, domain, secret } = federation.component;
    component = await startEchoComponent({ host, port, domain, secret });
    driver = createDriver(federation, { timeoutMs: 5000 });
  }, 300_000);

  afterAll(async () => {
    await driver.closeAll();
    await component.stop();
    await federation.stop();
  });

  it("records the second reply to a sibling's request, though the sibling closes as the attempt ends", async () => {
    const roles = {
      local: ALICE,
      remote: ALICE,
      remotePeer: ALICE,
      denied: ALICE,
      admin: undefined,
      registrant: ALICE,
    };
    const pool = new RunCallers(driver, roles).forAttempt(new Transcript('the attempt'));
    const sibling = await pool.sibling(await pool.local());
    // Answered twice: an empty result, then at once a service-unavailable error.
    expect(await sibling.iq(ECHO, 'get', xml('twice', { xmlns: ECHO_NS }))).toBeUndefined();
    await pool.release();
    expect(sibling.status).not.toBe('online');
    const seconds = driver.secondReplies().filter((reply) => reply.caller === sibling.jid);
    expect(seconds).toHaveLength(1);
    expect(seconds[0]).toMatchObject({ to: ECHO, sentDuring: 'the attempt' });
  });

  it('gives attempts side by side callers of their own, each recording only into its transcript', async () => {
    const callers = new RunCallers(driver, ROLES);
    const [first, second] = [new Transcript('first'), new Transcript('second')];
    const one = callers.forAttempt(first, { own: true });
    const other = callers.forAttempt(second, { own: true });
    const [mine, theirs] = await Promise.all([one.local(), other.local()]);
    expect(mine).not.toBe(theirs);
    expect(await one.local()).toBe(mine);
    // An attempt on the shared callers switches the driver; the pinned ones keep their transcripts.
    const shared = callers.forAttempt(new Transcript('shared'));
    await (await shared.local()).iq(ECHO, 'get', xml('hello', { xmlns: ECHO_NS }));
    await Promise.all([
      mine.iq(ECHO, 'get', xml('hello', { xmlns: ECHO_NS })),
      theirs.iq(ECHO, 'get', xml('hello', { xmlns: ECHO_NS })),
    ]);
    expect(senders(first)).toEqual(new Set([mine.jid]));
    expect(senders(second)).toEqual(new Set([theirs.jid]));
    await Promise.all([one.release(), other.release(), shared.release()]);
    // Left online for the next attempts of their kind, one set each, which record where they say.
    expect([mine.status, theirs.status]).toEqual(['online', 'online']);
    const [third, fourth] = [new Transcript('third'), new Transcript('fourth')];
    const next = callers.forAttempt(third, { own: true });
    const after = callers.forAttempt(fourth, { own: true });
    const [again, also] = await Promise.all([next.local(), after.local()]);
    expect(new Set([again, also])).toEqual(new Set([mine, theirs]));
    await Promise.all([
      again.iq(ECHO, 'get', xml('hello', { xmlns: ECHO_NS })),
      also.iq(ECHO, 'get', xml('hello', { xmlns: ECHO_NS })),
    ]);
    expect(senders(third)).toEqual(new Set([again.jid]));
    expect(senders(fourth)).toEqual(new Set([also.jid]));
    await Promise.all([next.release(), after.release()]);
    // Before a case alone on a quiet gateway, none stays online.
    await callers.closeIdleOwn();
    expect([mine.status, theirs.status]).toEqual(['closed', 'closed']);
  });

  it('opens a caller anew for an attempt when the one left to it is no longer online', async () => {
    const callers = new RunCallers(driver, ROLES);
    const first = callers.forAttempt(new Transcript('first'), { own: true });
    const lost = await first.local();
    await first.release();
    await lost.close();
    const transcript = new Transcript('second');
    const second = callers.forAttempt(transcript, { own: true });
    const fresh = await second.local();
    expect(fresh).not.toBe(lost);
    expect(fresh.status).toBe('online');
    await fresh.iq(ECHO, 'get', xml('hello', { xmlns: ECHO_NS }));
    expect(senders(transcript)).toEqual(new Set([fresh.jid]));
    await second.release();
    await callers.closeIdleOwn();
    expect(fresh.status).toBe('closed');
  });
});
