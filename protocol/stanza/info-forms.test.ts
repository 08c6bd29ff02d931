import { describe, expect, it } from 'vitest';
import { FORM_TYPE } from '../namespaces.ts';
import type { FormFieldInput } from './data-form.ts';
import { endpointInfoFields, toolInfoFields } from './info-forms.ts';

const HASH = { algo: 'sha-256', value: 'AAAA' };

const valuesOf = (fields: readonly FormFieldInput[]): Record<string, readonly string[]> =>
  Object.fromEntries(
    fields.map((field): [string, readonly string[]] => [field.var ?? '', field.values ?? []]),
  );

describe('endpointInfoFields', () => {
  it('falls back to agent.name for server_title and splits the description into lines', () => {
    const fields = endpointInfoFields({
      agent: { name: 'weather', description: 'one\r\ntwo\rthree' },
      version: '1.0.0',
      manifestHash: HASH,
      coldStartSupported: false,
      requestReplaySeconds: 300,
    });
    expect(valuesOf(fields)).toEqual({
      FORM_TYPE: [FORM_TYPE.endpointInfo],
      server_name: ['weather'],
      server_title: ['weather'],
      description: ['one', 'two', 'three'],
      version: ['1.0.0'],
      manifest_hash_algo: ['sha-256'],
      manifest_hash_value: ['AAAA'],
      cold_start_supported: ['0'],
      request_replay_seconds: ['300'],
    });
    expect(fields[0]?.type).toBe('hidden');
  });
});

describe('toolInfoFields', () => {
  it('leaves out what the manifest does not state: title, output hash pair, non-boolean hints', () => {
    const fields = toolInfoFields('2.0.0', {
      name: 'forecast',
      definition: { annotations: { readOnlyHint: true, destructiveHint: 'yes' } },
      inputSchema: { hash: HASH },
    });
    expect(valuesOf(fields)).toEqual({
      FORM_TYPE: [FORM_TYPE.toolInfo],
      name: ['forecast'],
      api_version: ['2.0.0'],
      input_schema_hash_algo: ['sha-256'],
      input_schema_hash_value: ['AAAA'],
      read_only: ['1'],
    });
  });

  it('carries the output hash pair and the title when the tool has them', () => {
    const fields = toolInfoFields('2.0.0', {
      name: 'forecast',
      definition: { title: 'Forecast', annotations: { openWorldHint: false } },
      inputSchema: { hash: HASH },
      outputSchema: { hash: { algo: 'sha-256', value: 'BBBB' } },
    });
    expect(valuesOf(fields)).toMatchObject({
      title: ['Forecast'],
      output_schema_hash_algo: ['sha-256'],
      output_schema_hash_value: ['BBBB'],
      open_world: ['0'],
    });
  });
});
