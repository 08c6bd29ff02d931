import { describe, expect, it } from 'vitest';
import { NS, NS_AGENT_API, NS_AGENT_TASK } from '../namespaces.ts';
import { committedSchemaTexts } from './schema-bundle.ts';
import { XmllintRunError } from './xmllint-batch.ts';
import { validateElements, XsdValidator, type XsdResult } from './validator.ts';

const HASH = `<hash xmlns='${NS.hashes}' algo='sha-256'>K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=</hash>`;
const REQUEST_ID = 'req-91a6d2f49c514f44a2d223f0f97bd9fe';
const TASK_ID = 'task-7f2a9c41d8804e96bb478af6453c0371';

function invoke({
  requestId = `request-id='${REQUEST_ID}'`,
  media = 'application/json',
  deadline = '<deadline>2026-07-27T19:15:00Z</deadline>',
} = {}): string {
  return [
    `<invoke xmlns='${NS_AGENT_TASK}' api-version='1.4.0' ${requestId} tool='forecast.get'>`,
    `  <manifest-hash>${HASH}</manifest-hash>`,
    `  <arguments media-type='${media}'>{"city":"Riga"}</arguments>`,
    `  ${deadline}`,
    `</invoke>`,
  ].join('\n');
}

const event = (revision: string): string =>
  `<event xmlns='${NS_AGENT_TASK}' event-id='evt-00d7b9a9b0864dcf9308d56e8f54b392' revision='${revision}' ` +
  `task-id='${TASK_ID}' type='status'>{"state":"running"}</event>`;

const schemaRequest = (child: string): string =>
  `<schema-request xmlns='${NS_AGENT_API}' direction='input' tool='forecast.get' version='1.4.0'>${child}</schema-request>`;

function messages(result: XsdResult | undefined): string {
  return result !== undefined && !result.valid ? result.errors.map((error) => error.message).join('\n') : '';
}

describe('validateElements against the normative XSDs (#schema)', () => {
  it('accepts valid agent-task and agent-api elements and names the schema used', async () => {
    const results = await validateElements([
      invoke(),
      invoke({ deadline: '' }),
      event('0'),
      schemaRequest(HASH),
      `<manifest-request xmlns='${NS_AGENT_API}'/>`,
      `<a:manifest xmlns:a='${NS_AGENT_API}' media-type='application/json' version='1.4.0'>${HASH}<a:json>{}</a:json></a:manifest>`,
    ]);
    expect(results).toEqual([
      { valid: true, schema: 'agent-task' },
      { valid: true, schema: 'agent-task' },
      { valid: true, schema: 'agent-task' },
      { valid: true, schema: 'agent-api' },
      { valid: true, schema: 'agent-api' },
      { valid: true, schema: 'agent-api' },
    ]);
  });

  it('validates the lax urn:xmpp:hashes:2 wildcard: any hash element passes, others do not', async () => {
    const [unusualHash, noHash, foreign, twoHashes] = await validateElements([
      schemaRequest(`<hash xmlns='${NS.hashes}' algo='sha3-512' extra='1'><anything/></hash>`),
      schemaRequest(''),
      schemaRequest(`<hash xmlns='urn:example:not-hashes'>x</hash>`),
      schemaRequest(HASH + HASH),
    ]);
    expect(unusualHash).toEqual({ valid: true, schema: 'agent-api' });
    expect(noHash).toMatchObject({ valid: false, failure: 'invalid' });
    expect(foreign).toMatchObject({ valid: false, failure: 'invalid' });
    expect(twoHashes).toMatchObject({ valid: false, failure: 'invalid' });
  });

  it('rejects schema violations with line numbers and the offending item', async () => {
    const [noRequestId, badId, wrongMedia, negativeRevision, badVersion, extraChild] = await validateElements([
      invoke({ requestId: '' }),
      `<task-state-request xmlns='${NS_AGENT_TASK}' task-id='too-short'/>`,
      invoke({ media: 'text/plain' }),
      event('-1'),
      `<manifest-request xmlns='${NS_AGENT_API}' version='1.4.0 beta'/>`,
      `<active xmlns='${NS_AGENT_API}' jid='weather@agents.example' version='1'>\n  <x/>\n</active>`,
    ]);
    expect(noRequestId).toMatchObject({ valid: false, failure: 'invalid', errors: [{ line: 1 }] });
    expect(messages(noRequestId)).toContain("'request-id' is required");
    expect(messages(badId)).toContain("The value 'too-short' is not accepted by the pattern");
    expect(wrongMedia).toMatchObject({ valid: false, failure: 'invalid', errors: [{ line: 3 }] });
    expect(messages(wrongMedia)).toContain("'application/json'");
    expect(messages(negativeRevision)).toContain("'-1' is not a valid value");
    expect(messages(badVersion)).toContain("'1.4.0 beta'");
    expect(messages(extraChild)).toContain('Element content is not allowed');
  });

  it('answers unknown-namespace, not-well-formed and DTD input without running or crashing', async () => {
    const [stanza, unqualified, broken, dtd, valid] = await validateElements([
      `<iq xmlns='${NS.client}' type='get' id='1'/>`,
      `<invoke request-id='${REQUEST_ID}'/>`,
      `<invoke xmlns='${NS_AGENT_TASK}'><arguments></invoke>`,
      `<!DOCTYPE invoke><invoke xmlns='${NS_AGENT_TASK}'/>`,
      event('7'),
    ]);
    expect(stanza).toMatchObject({ valid: false, failure: 'unknown-namespace' });
    expect(messages(stanza)).toContain(`namespace ${NS.client}`);
    expect(unqualified).toMatchObject({ valid: false, failure: 'unknown-namespace' });
    expect(messages(unqualified)).toContain('no namespace');
    expect(broken).toMatchObject({ valid: false, failure: 'not-well-formed' });
    expect(messages(broken)).toContain('Opening and ending tag mismatch');
    expect(dtd).toMatchObject({ valid: false, failure: 'invalid' });
    expect(valid).toEqual({ valid: true, schema: 'agent-task' });
  });

  it('keeps results in input order across a mixed batch', async () => {
    const inputs = Array.from({ length: 60 }, (_, i) => (i % 3 === 0 ? event(String(i)) : event(`-${i}`)));
    const results = await validateElements(inputs);
    expect(results.map((result) => result.valid)).toEqual(inputs.map((_, i) => i % 3 === 0));
    results.forEach((result, i) => {
      if (!result.valid) expect(messages(result)).toContain(`'-${i}'`);
    });
  });

  it('validates 500 documents in one run (timing printed, not asserted)', async () => {
    const validator = new XsdValidator();
    const inputs = Array.from({ length: 500 }, (_, i) => (i === 250 ? invoke({ requestId: '' }) : invoke()));
    const single = performance.now();
    await validator.validateAll([invoke()]);
    const singleMs = performance.now() - single;
    const started = performance.now();
    const results = await validator.validateAll(inputs);
    const batchMs = performance.now() - started;
    process.stdout.write(
      `xsd timing: 1 document ${singleMs.toFixed(1)} ms; 500 documents ${batchMs.toFixed(1)} ms in one run ` +
        `(${((batchMs - singleMs) / 499).toFixed(3)} ms per extra document)\n`,
    );
    expect(validator.xmllintRuns).toBe(2);
    expect(results.filter((result) => !result.valid)).toHaveLength(1);
    expect(results[250]).toMatchObject({ valid: false, failure: 'invalid' });
  });
});

describe('XsdValidator queue', () => {
  it('collects validate() calls made in the same turn into one xmllint run', async () => {
    const validator = new XsdValidator();
    const pending = [validator.validate(event('1')), validator.validate(event('-1'))];
    const chained = Promise.resolve().then(() => validator.validate(event('2')));
    const results = await Promise.all([...pending, chained]);
    expect(results.map((result) => result.valid)).toEqual([true, false, true]);
    expect(validator.xmllintRuns).toBe(1);
  });

  it('queues requests made during a run into the next run and splits by the batch limit', async () => {
    const validator = new XsdValidator({ maxBatchDocuments: 3 });
    const first = validator.validateAll([event('1'), event('2'), event('3'), event('4')]);
    const late = new Promise<XsdResult>((resolve) => {
      setImmediate(() => {
        resolve(validator.validate(event('-5')));
      });
    });
    const results = [...(await first), await late];
    expect(results.map((result) => result.valid)).toEqual([true, true, true, true, false]);
    expect(validator.xmllintRuns).toBe(2);
  });

  it('uses the schema texts it is given', async () => {
    const committed = committedSchemaTexts();
    const stricter = committed.agentApi.replace(`value='[A-Za-z0-9._~-]{1,64}'`, `value='[0-9.]{1,64}'`);
    expect(stricter).not.toBe(committed.agentApi);
    const validator = new XsdValidator({ schemas: { ...committed, agentApi: stricter } });
    const [result] = await validator.validateAll([`<manifest-request xmlns='${NS_AGENT_API}' version='v1'/>`]);
    expect(result).toMatchObject({ valid: false, failure: 'invalid' });
  });

  it('rejects every request in a run when the schemas do not compile', async () => {
    const committed = committedSchemaTexts();
    const broken = committed.agentTask.replace(`type='identifier'`, `type='no-such-type'`);
    const validator = new XsdValidator({ schemas: { ...committed, agentTask: broken } });
    await expect(validator.validateAll([event('1'), event('2')])).rejects.toBeInstanceOf(XmllintRunError);
  });
});
