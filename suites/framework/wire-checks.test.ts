import { describe, expect, it } from 'vitest';
import { Transcript } from '../../harness/driver/index.ts';
import {
  DeferredWireChecks,
  REDACTED_SECRET,
  checkGatewayElements,
  credentialViolation,
  errorTextViolation,
  eventPayloadViolation,
} from './wire-checks.ts';
import { RequirementViolation } from './verdicts.ts';

const GATEWAY = 'agents.example';

function received(xml: string): Transcript {
  const transcript = new Transcript('t');
  transcript.record({ kind: 'stanza', direction: 'received', jid: 'bob@server.example/t', xml });
  return transcript;
}

const VALID_REGISTERED =
  "<iq xmlns='jabber:client' type='result' id='1' from='agents.example' to='bob@server.example/t'>" +
  "<registered xmlns='urn:xmpp:agent-api:0' jid='weather@agents.example' version='1.0.0'>" +
  "<hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=</hash>" +
  '</registered></iq>';

describe('checkGatewayElements', () => {
  it('accepts stanzas whose agent-api elements are schema-valid, and ignores other senders', async () => {
    const transcript = received(VALID_REGISTERED);
    transcript.record({
      kind: 'stanza',
      direction: 'received',
      xml: "<iq xmlns='jabber:client' type='result' id='2' from='example.com'><registered xmlns='urn:xmpp:agent-api:0'/></iq>",
    });
    await expect(checkGatewayElements(transcript.entries, GATEWAY)).resolves.toBeUndefined();
  });

  it('fails with the stanza as received when an element from the gateway or an endpoint is invalid', async () => {
    const invalid =
      "<iq xmlns='jabber:client' type='result' id='3' from='weather@agents.example/x'>" +
      "<registered xmlns='urn:xmpp:agent-api:0' bogus='1'/></iq>";
    const failure = await checkGatewayElements(received(invalid).entries, GATEWAY).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(RequirementViolation);
    expect(failure).toMatchObject({ requirement: 'schema.base-structures-valid', received: invalid });
  });

  it('does not judge the request payload an IQ error echoes (#errors lets it be included), but judges the rest', async () => {
    // The echoed <invoke/> lacks what the schema requires of a request the gateway would send.
    const echoed =
      "<iq xmlns='jabber:client' type='error' id='4' from='weather@agents.example'>" +
      "<invoke xmlns='urn:xmpp:agent-task:0' tool='x' bogus='1'/>" +
      "<error type='modify'><bad-request xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>";
    await expect(checkGatewayElements(received(echoed).entries, GATEWAY)).resolves.toBeUndefined();
    const invalidResult =
      "<iq xmlns='jabber:client' type='result' id='5' from='weather@agents.example'>" +
      "<invoke xmlns='urn:xmpp:agent-task:0' tool='x' bogus='1'/></iq>";
    await expect(checkGatewayElements(received(invalidResult).entries, GATEWAY)).rejects.toBeInstanceOf(
      RequirementViolation,
    );
  });

  it('validates a whole run in one batch and names the cases that received invalid elements', async () => {
    const invalid =
      "<iq xmlns='jabber:client' type='result' id='4' from='agents.example'>" +
      "<registered xmlns='urn:xmpp:agent-api:0'/></iq>";
    const checks = new DeferredWireChecks(GATEWAY);
    checks.record('a.valid', received(VALID_REGISTERED).entries);
    checks.record('b.invalid', received(invalid).entries);
    checks.record('c.nothing', new Transcript('t').entries);
    const violations = await checks.violations();
    expect([...violations.keys()]).toEqual(['b.invalid']);
    expect(violations.get('b.invalid')).toMatchObject({
      requirement: 'schema.base-structures-valid',
      received: invalid,
    });
  });

  it('names the first lifecycle event whose payload breaks the event schema, and passes valid ones', () => {
    const event = (json: string, type = 'progress') =>
      "<message xmlns='jabber:client' type='normal' from='conformance@agents.example' to='bob@server.example/t'>" +
      `<event xmlns='urn:xmpp:agent-task:0' task-id='task-aaaaaaaaaaaaaaaaaaaaaaaa' event-id='evt-bbbbbbbbbbbbbbbbbbbbbbbb' revision='2' type='${type}'>${json}</event></message>`;
    expect(eventPayloadViolation(received(event('{"percent":50}')).entries, GATEWAY)).toBeUndefined();
    const outOfRange = event('{"percent":150}');
    // A percent out of range has a requirement of its own (#events); any other break is the schema's.
    expect(eventPayloadViolation(received(outOfRange).entries, GATEWAY)).toMatchObject({
      requirement: 'events.progress-percent-range',
      received: outOfRange,
    });
    const unknownMember = event('{"percent":50,"eta":5}');
    expect(eventPayloadViolation(received(unknownMember).entries, GATEWAY)).toMatchObject({
      requirement: 'event-json-schemas.payloads-valid',
      received: unknownMember,
    });
    const duplicateKey = event('{"percent":1,"percent":2}');
    expect(eventPayloadViolation(received(duplicateKey).entries, GATEWAY)?.message).toMatch(/I-JSON/);
  });

  it('names the first error text from the gateway that carries a stack trace or a source path', () => {
    const iqError = (text: string) =>
      "<iq xmlns='jabber:client' type='error' id='5' from='conformance@agents.example' to='bob@server.example/t'>" +
      "<error type='wait'><internal-server-error xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/>" +
      `<text xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'>${text}</text></error></iq>`;
    const failed = (message: string) =>
      "<message xmlns='jabber:client' type='normal' from='conformance@agents.example' to='bob@server.example/t'>" +
      "<event xmlns='urn:xmpp:agent-task:0' task-id='task-aaaaaaaaaaaaaaaaaaaaaaaa' event-id='evt-bbbbbbbbbbbbbbbbbbbbbbbb' revision='2' type='failed'>" +
      `{"error":{"code":"internal-error","message":${JSON.stringify(message)},"retryable":false}}</event></message>`;
    expect(errorTextViolation(received(iqError('Try again later.')).entries, GATEWAY)).toBeUndefined();
    expect(errorTextViolation(received(failed('/steps/0: not an object')).entries, GATEWAY)).toBeUndefined();
    const traced = iqError('TypeError: x is undefined\n    at run (/srv/gw/engine.js:10:3)');
    expect(errorTextViolation(received(traced).entries, GATEWAY)).toMatchObject({
      requirement: 'errors.safe-messages',
      received: traced,
    });
    const pathInFailure = failed('cannot open /srv/gw/store/db.ts');
    expect(errorTextViolation(received(pathInFailure).entries, GATEWAY)?.message).toMatch(/source file path/);
    // Only what the gateway's domain sent counts.
    const fromElsewhere = traced.replace("from='conformance@agents.example'", "from='example.com'");
    expect(errorTextViolation(received(fromElsewhere).entries, GATEWAY)).toBeUndefined();
  });
});

describe('credentialViolation (#security: no credentials in payloads)', () => {
  const SECRET = 'Zq3-per-run-secret-8f2&x';
  const body = (text: string) =>
    "<message xmlns='jabber:client' type='chat' from='weather@agents.example' to='bob@server.example/t'>" +
    `<body>${text}</body></message>`;

  it('names a stanza from the gateway carrying the secret, as is or XML-escaped, and redacts it', () => {
    for (const spelled of ['Zq3-per-run-secret-8f2&amp;x', 'Zq3-per-run-secret-8f2&amp;x and more']) {
      const stanza = body(`config: ${spelled}`);
      const violation = credentialViolation(received(stanza).entries, GATEWAY, [SECRET]);
      expect(violation).toMatchObject({ requirement: 'security.no-credentials-in-payloads' });
      expect(violation?.received).toContain('[component secret]');
      expect(violation?.received).not.toContain('per-run-secret');
    }
  });

  it('ignores other senders, stanzas without the secret, and credentials too short to look for', () => {
    const fromElsewhere =
      "<message xmlns='jabber:client' from='example.com' to='bob@server.example/t'>" +
      `<body>${SECRET.replace('&', '&amp;')}</body></message>`;
    expect(credentialViolation(received(fromElsewhere).entries, GATEWAY, [SECRET])).toBeUndefined();
    expect(credentialViolation(received(body('nothing here')).entries, GATEWAY, [SECRET])).toBeUndefined();
    expect(credentialViolation(received(body('a secret word')).entries, GATEWAY, ['secret'])).toBeUndefined();
  });

  it('recognizes the label a redacting transcript recorded instead of the secret', () => {
    const redacting = new Transcript('t', { redactions: [{ secret: SECRET, label: REDACTED_SECRET }] });
    redacting.record({
      kind: 'stanza',
      direction: 'received',
      jid: 'bob@server.example/t',
      xml: body(SECRET.replace('&', '&amp;')),
    });
    expect(credentialViolation(redacting.entries, GATEWAY, [SECRET])).toMatchObject({
      requirement: 'security.no-credentials-in-payloads',
    });
  });

  it('turns a passed case whose stanzas leaked the secret into a failure of the run', async () => {
    const checks = new DeferredWireChecks(GATEWAY, [SECRET]);
    checks.record('a.leak', received(body(SECRET.replace('&', '&amp;'))).entries);
    checks.record('b.clean', received(body('fine')).entries);
    const violations = await checks.violations();
    expect([...violations.keys()]).toEqual(['a.leak']);
  });
});
