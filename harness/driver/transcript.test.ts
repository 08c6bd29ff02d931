import { describe, expect, it } from 'vitest';

import { Transcript } from './transcript.ts';

function steppingClock(stepsMs: readonly number[]): () => number {
  let index = 0;
  return () => stepsMs[Math.min(index++, stepsMs.length - 1)] ?? 0;
}

describe('Transcript', () => {
  it('numbers entries and times them on the monotonic clock, relative to its creation', () => {
    const transcript = new Transcript('case', {
      now: steppingClock([1000, 1000.25, 1002.5]),
      wallClock: () => 0,
    });
    const sent = transcript.record({
      kind: 'stanza',
      direction: 'sent',
      jid: 'a@example.com/r',
      xml: '<iq/>',
    });
    const note = transcript.note('freezing s2sAToB');
    expect(sent).toEqual({
      seq: 1,
      atMs: 0.25,
      kind: 'stanza',
      direction: 'sent',
      jid: 'a@example.com/r',
      xml: '<iq/>',
    });
    expect(note).toEqual({ seq: 2, atMs: 2.5, kind: 'note', text: 'freezing s2sAToB' });
    expect(transcript.startedAt).toBe('1970-01-01T00:00:00.000Z');
  });

  it('renders one line per entry, with remarks under their stanza and long XML cut', () => {
    const transcript = new Transcript('case', { now: steppingClock([0, 1, 2, 3, 4]), wallClock: () => 0 });
    transcript.record({ kind: 'stanza', direction: 'sent', jid: 'a@example.com/r', xml: `<iq id='1'/>` });
    transcript.record({
      kind: 'stanza',
      direction: 'received',
      jid: 'a@example.com/r',
      xml: `<iq id='1' type='result'/>`,
      text: 'late reply: iq 1 timed out after 250 ms',
    });
    transcript.record({ kind: 'status', jid: 'a@example.com/r', text: 'online' });
    transcript.record({
      kind: 'stream-error',
      direction: 'received',
      jid: 'a@example.com/r',
      xml: 'x'.repeat(30),
    });
    expect(transcript.toText({ maxXmlChars: 26 }).split('\n')).toEqual([
      'transcript "case" (4 entries, began 1970-01-01T00:00:00.000Z)',
      "     +1.000 ms  a@example.com/r  SEND  <iq id='1'/>",
      "     +2.000 ms  a@example.com/r  RECV  <iq id='1' type='result'/>",
      '                                 ^ late reply: iq 1 timed out after 250 ms',
      '     +3.000 ms  a@example.com/r  ----  status online',
      '     +4.000 ms  a@example.com/r  RECV  stream-error xxxxxxxxxxxxxxxxxxxxxxxxxx… (4 more chars)',
    ]);
  });

  it('serializes to JSON with every entry in full', () => {
    const transcript = new Transcript('case', { wallClock: () => Date.UTC(2025, 0, 2) });
    transcript.record({ kind: 'raw', direction: 'sent', jid: 'a@example.com/r', xml: '<iq' });
    const json = JSON.parse(JSON.stringify(transcript)) as unknown;
    expect(json).toMatchObject({
      title: 'case',
      startedAt: '2025-01-02T00:00:00.000Z',
      entries: [{ seq: 1, kind: 'raw', direction: 'sent', jid: 'a@example.com/r', xml: '<iq' }],
    });
  });
});

describe('Transcript redactions', () => {
  it('records a redacted secret, as is or XML-escaped, as its label in XML and text', () => {
    const secret = "s3cr3t-'per-run'-&-more";
    const transcript = new Transcript('t', { redactions: [{ secret, label: '[component secret]' }] });
    transcript.record({
      kind: 'stanza',
      direction: 'received',
      xml: '<message><body>s3cr3t-&apos;per-run&apos;-&amp;-more</body></message>',
    });
    transcript.note(`saw ${secret}`);
    const rendered = JSON.stringify(transcript.entries) + transcript.toText();
    expect(rendered).not.toContain('s3cr3t');
    expect(transcript.entries.map((entry) => entry.xml ?? entry.text)).toEqual([
      '<message><body>[component secret]</body></message>',
      'saw [component secret]',
    ]);
  });
});
