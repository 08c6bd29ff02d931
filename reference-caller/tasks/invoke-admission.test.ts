// #invocation: a lost <accepted/> is answered by the identical request, never a new one; no
// retry once the replay window may have passed; a refusal is final.
import { describe, expect, it } from 'vitest';
import { parseDateTime } from '../../protocol/datetime.ts';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import { serialize, buildAccepted, parseInvoke } from '../../protocol/stanza/index.ts';
import { scriptedQuerier, type SentIq } from '../test-support/scripted-querier.ts';
import { TARGET } from '../test-support/stanzas.ts';
import { admit, type AdmissionTarget } from './invoke-admission.ts';

const HASH = { algo: 'sha-256', value: 'K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=' };
const TOOL: AdmissionTarget = {
  jid: TARGET,
  tool: 'forecast.get',
  version: '1.4.0',
  manifestHash: HASH,
  replaySeconds: 60,
};

function acceptedFor(sent: SentIq) {
  const invoke = parseInvoke(sent.payload);
  return buildAccepted({
    requestId: invoke.requestId,
    taskId: generateIdentifier('task-'),
    revision: 0,
    created: parseDateTime('2026-07-27T19:14:01Z'),
    retainUntil: parseDateTime('2026-07-28T19:14:01Z'),
  });
}

/** A clock the test moves: each IQ takes `stepMs`. */
function steppingClock(stepMs: number): () => number {
  let now = 0;
  return () => (now += stepMs);
}

describe('admit (#invocation)', () => {
  it('repeats the identical invoke, to the bare JID, after lost answers', async () => {
    const { querier, sent } = scriptedQuerier((iq, index) =>
      index < 2 ? 'lost' : { result: acceptedFor(iq) },
    );
    const admission = await admit(TOOL, '{"city":"Riga"}', { querier, now: steppingClock(1000) });
    expect(admission).toMatchObject({ kind: 'accepted', attempts: 3 });
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((iq) => serialize(iq.payload))).size).toBe(1);
    expect(sent.every((iq) => iq.to === TARGET && iq.type === 'set')).toBe(true);
  });

  it('gives up without retrying once the replay window may have passed', async () => {
    const { querier, sent } = scriptedQuerier(() => 'lost');
    const admission = await admit({ ...TOOL, replaySeconds: 5 }, '{}', { querier, now: steppingClock(2000) });
    expect(admission).toMatchObject({
      kind: 'uncertain',
      reason: expect.stringContaining('replay window') as unknown,
    });
    // Sent at t=0, 2 s and 4 s; the answer to the third is lost at 6 s, past the 5 s window.
    expect(sent).toHaveLength(3);
  });

  it('uses a fresh request ID for each call', async () => {
    const { querier, sent } = scriptedQuerier((iq) => ({ result: acceptedFor(iq) }));
    await admit(TOOL, '{}', { querier, now: steppingClock(1) });
    await admit(TOOL, '{}', { querier, now: steppingClock(1) });
    const [first, second] = sent.map((iq) => parseInvoke(iq.payload).requestId);
    expect(first).not.toBe(second);
  });

  it('stops retrying when told to (the call was cancelled, the local limit passed)', async () => {
    const { querier, sent } = scriptedQuerier(() => 'lost');
    const admission = await admit(TOOL, '{}', { querier, now: steppingClock(1), stop: () => 'cancelled' });
    expect(admission).toMatchObject({ kind: 'uncertain', reason: 'cancelled' });
    expect(sent).toHaveLength(1);
  });

  it('takes a refusal as final', async () => {
    const { querier, sent } = scriptedQuerier(() => ({ error: 'item-not-found' }));
    const admission = await admit(TOOL, '{}', { querier, now: steppingClock(1) });
    expect(admission).toMatchObject({ kind: 'refused', error: { condition: 'item-not-found' } });
    expect(sent).toHaveLength(1);
  });
});
