import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../protocol/json/json-value.ts';
import { DEFAULT_LIMITS } from '../config/limits.ts';
import { intakeManifest, type ManifestLimits } from './manifest-intake.ts';
import type { Outcome, RegistrationFault } from './registration-fault.ts';
import {
  fixtureManifestText,
  manifestObject,
  manifestText,
  MANIFESTS_DIR,
} from './test-support/manifests.ts';

function faultOf<T>(outcome: Outcome<T>): RegistrationFault {
  if (outcome.ok) expect.fail('expected a refusal');
  return outcome.fault;
}

function limits(overrides: Partial<ManifestLimits>): ManifestLimits {
  return { ...DEFAULT_LIMITS, ...overrides };
}

describe('valid manifests (#registration-flow)', () => {
  it('accepts the full example with the hash of interp-01', async () => {
    const outcome = await intakeManifest(fixtureManifestText('weather-full.json'), DEFAULT_LIMITS);
    if (!outcome.ok) expect.fail(JSON.stringify(outcome.fault));
    expect(outcome.value.endpointJid).toBe('weather@agents.example');
    expect(outcome.value.version).toBe('1.4.0');
    expect(outcome.value.document.hash).toEqual({
      algo: 'sha-256',
      value: 'fFqwrKetRrAKF1IPjZ8z2G6O6OKLd5RwO0DG0RtyDhg=',
    });
  });

  it('hashes the minimal example as register-1 does', async () => {
    const outcome = await intakeManifest(fixtureManifestText('weather-minimal.json'), DEFAULT_LIMITS);
    if (!outcome.ok) expect.fail(JSON.stringify(outcome.fault));
    expect(outcome.value.document.hash.value).toBe('K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=');
    expect(outcome.value.document.bytes.toString('utf8')).toBe(
      '{"agent":{"jid":"weather@agents.example","name":"weather","version":"1.4.0"},"manifestSpecVersion":"0","tools":[]}',
    );
  });

  it('normalizes a mixed-case agent.jid for the key, keeping the bytes as written (interp-25)', async () => {
    const outcome = await intakeManifest(manifestText({ jid: 'Weather@Agents.Example' }), DEFAULT_LIMITS);
    if (!outcome.ok) expect.fail(JSON.stringify(outcome.fault));
    expect(outcome.value.endpointJid).toBe('weather@agents.example');
    expect(outcome.value.document.bytes.toString('utf8')).toContain('"jid":"Weather@Agents.Example"');
  });
});

describe('error mapping (#json-encoding, #errors, interp-11)', () => {
  it.each([
    ['{"manifestSpecVersion":"0",', 'json-syntax', 'bad-request', 'modify'],
    ['{"a":1,"a":2}', 'json-ijson', 'not-acceptable', 'modify'],
    ['{"a":"\\ud800"}', 'json-ijson', 'not-acceptable', 'modify'],
    ['{"a":1e400}', 'json-ijson', 'not-acceptable', 'modify'],
    ['{"manifestSpecVersion":"1"}', 'manifest-invalid', 'not-acceptable', 'modify'],
  ])('%s → %s', async (text, reason, condition, type) => {
    const fault = faultOf(await intakeManifest(text, DEFAULT_LIMITS));
    expect(fault).toMatchObject({ reason, condition, type });
  });

  it('maps every bad fixture manifest by its family', async () => {
    const bad = resolve(MANIFESTS_DIR, 'bad');
    for (const name of readdirSync(bad)) {
      const fault = faultOf(await intakeManifest(readFileSync(resolve(bad, name)), DEFAULT_LIMITS));
      // Syntax → bad-request; I-JSON and every other defect → not-acceptable.
      const expected = name.startsWith('json.syntax') ? 'bad-request' : 'not-acceptable';
      expect({ name, condition: fault.condition }).toEqual({ name, condition: expected });
    }
  });

  it('reports every defect of a manifest, by rule and pointer', async () => {
    const manifest = manifestObject();
    (manifest['agent'] as JsonObject)['jid'] = 'weather@agents.example/runtime';
    manifest['extra'] = true;
    const fault = faultOf(await intakeManifest(JSON.stringify(manifest), DEFAULT_LIMITS));
    expect(fault.violations?.map((v) => [v.rule, v.path])).toEqual(
      expect.arrayContaining([
        ['jid:resource-present', '/agent/jid'],
        ['schema:additionalProperties', '/extra'],
      ]),
    );
  });

  it('never reflects the submitted JSON (#errors)', async () => {
    const canary = 'CANARY-7f3e-secret';
    const cases = [
      `{"${canary}":1,"${canary}":2}`,
      JSON.stringify({ ...manifestObject(), [canary]: canary }),
      JSON.stringify(manifestObject({ version: canary + '!' })),
      `{"a":"${canary}"`,
    ];
    for (const text of cases) {
      const fault = faultOf(await intakeManifest(text, DEFAULT_LIMITS));
      const messages = (fault.violations ?? []).map((v) => v.message).join('\n');
      expect(messages).not.toContain(canary);
    }
  });
});

describe('documented limits → resource-constraint (#json-encoding, #rules)', () => {
  it('manifest bytes', async () => {
    const text = manifestText();
    const fault = faultOf(await intakeManifest(text, limits({ manifestMaxBytes: text.length - 1 })));
    expect(fault).toMatchObject({ reason: 'json-limit', condition: 'resource-constraint', type: 'wait' });
  });

  it('JSON depth', async () => {
    const fault = faultOf(await intakeManifest(manifestText(), limits({ jsonMaxDepth: 2 })));
    expect(fault.reason).toBe('json-limit');
  });

  it('tools per manifest', async () => {
    const tools = [1, 2, 3].map((i) => ({ name: `t${i}`, inputSchema: { type: 'object' } }));
    const fault = faultOf(await intakeManifest(manifestText({ tools }), limits({ toolsPerManifest: 2 })));
    expect(fault).toMatchObject({ reason: 'manifest-limit', condition: 'resource-constraint' });
    expect(fault.violations?.[0]).toMatchObject({ rule: 'limit:tools', path: '/tools' });
  });

  it('schema bytes, measured in canonical form', async () => {
    const big = { type: 'object', description: 'x'.repeat(200) };
    const tools = [{ name: 't', inputSchema: { type: 'object' }, outputSchema: big }];
    const fault = faultOf(await intakeManifest(manifestText({ tools }), limits({ schemaMaxBytes: 100 })));
    expect(fault.violations?.[0]).toMatchObject({
      rule: 'limit:schema-bytes',
      path: '/tools/0/outputSchema',
    });
  });

  it('schema complexity alone is a limit; with another defect the manifest is invalid', async () => {
    const properties: JsonObject = {};
    for (let i = 0; i <= 10_000; i++) properties[`p${i}`] = {};
    const tools = [{ name: 't', inputSchema: { type: 'object', properties } }];
    const alone = faultOf(await intakeManifest(manifestText({ tools }), DEFAULT_LIMITS));
    expect(alone.violations?.map((v) => v.rule)).toEqual(['tool-schema:schema-too-complex']);
    expect(alone.condition).toBe('resource-constraint');
    const withDefect = faultOf(
      await intakeManifest(manifestText({ tools, version: 'not a version' }), DEFAULT_LIMITS),
    );
    expect(withDefect.condition).toBe('not-acceptable');
  });
});
