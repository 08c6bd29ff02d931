/**
 * Every example stanza of the spec parses end to end: envelope, then payload. Where an example
 * is defective (interp-01-#9), parsing still succeeds and returns what is on the wire;
 * judging it is the suites' job.
 */
import { readFileSync } from 'node:fs';
import type { Element } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import { FEATURE, FORM_TYPE, IDENTITY_TYPE, NODE_DIRECTORY } from '../namespaces.ts';
import { SPEC_PATH, sharedAvailable } from '../test-support/shared-paths.ts';
import { parseActivate, parseActive, parseRegister, parseRegistered } from './agent-admin.ts';
import { parseManifest, parseManifestRequest } from './agent-manifest.ts';
import { parseSchema, parseSchemaRequest } from './agent-schema.ts';
import { extensionForms, parseDiscoInfo, parseDiscoInfoRequest } from './disco-info.ts';
import { parseDiscoItems, parseDiscoItemsRequest } from './disco-items.ts';
import { fieldOf, formBoolean, formTypeOf } from './data-form.ts';
import { parseIq } from './envelope.ts';
import { parseSearchForm, parseSearchRequest, parseSearchResults } from './search.ts';
import { parseCancel, parseCancelAccepted } from './task-cancel.ts';
import { parseLifecycleMessage } from './task-event.ts';
import { parseInputAccepted, parseProvideInput } from './task-input.ts';
import { parseAccepted, parseInvoke } from './task-invoke.ts';
import {
  parseTaskResult,
  parseTaskResultRequest,
  parseTaskState,
  parseTaskStateRequest,
} from './task-recovery.ts';
import { SPEC_STANZAS } from './test-support/spec-example-stanzas.ts';
import type { SpecStanzaKey } from './test-support/spec-example-stanzas.ts';
import {
  INPUT_REQUEST_ID,
  MANIFEST_HASH,
  REQUEST_ID,
  SCHEMA_HASH,
  TASK_ID,
} from './test-support/stanza-test-kit.ts';
import { parseXml } from '../xml/parse-xml.ts';

function payloadOf(key: SpecStanzaKey): Element {
  const iq = parseIq(parseXml(SPEC_STANZAS[key]));
  if (iq.payload === undefined) throw new Error(`${key} has no payload`);
  return iq.payload;
}

function eventOf(key: SpecStanzaKey) {
  return parseLifecycleMessage(parseXml(SPEC_STANZAS[key]));
}

describe('the example stanzas are copied verbatim from the spec', () => {
  it.runIf(sharedAvailable(SPEC_PATH, 'spec example provenance check'))(
    'each one occurs in the spec text',
    () => {
      const spec = readFileSync(SPEC_PATH, 'utf8');
      for (const stanza of Object.values(SPEC_STANZAS)) expect(spec).toContain(stanza);
    },
  );
});

describe('discovery examples (#find-gateway … #tool-info)', () => {
  it('services-1: node-less items request and the gateway item', () => {
    expect(parseDiscoItemsRequest(payloadOf('services-1 get'))).toEqual({});
    expect(parseDiscoItems(payloadOf('services-1 result'))).toEqual({
      items: [{ jid: 'agents.example', name: 'Example Agent Gateway' }],
    });
  });

  it('gateway-info-1: the gateway identity and features', () => {
    expect(parseDiscoInfoRequest(payloadOf('gateway-info-1 get'))).toEqual({});
    const info = parseDiscoInfo(payloadOf('gateway-info-1 result'));
    expect(info.identities).toEqual([
      { category: 'automation', type: IDENTITY_TYPE.gateway, name: 'Example Agent Gateway' },
    ]);
    expect(info.features).toContain(FEATURE.directory);
    expect(info.features).toContain(FEATURE.admin);
  });

  it('agents-1: parses the directory page as sent, out-of-order items included (interp-02)', () => {
    expect(parseDiscoItemsRequest(payloadOf('agents-1 get'))).toEqual({
      node: NODE_DIRECTORY,
      rsm: { max: 50 },
    });
    const page = parseDiscoItems(payloadOf('agents-1 result'));
    expect(page.items.map((item) => item.jid)).toEqual(['weather@agents.example', 'calendar@agents.example']);
    expect(page.rsm).toEqual({
      first: { uid: 'calendar@agents.example' },
      last: 'weather@agents.example',
      count: 2,
    });
  });

  it('endpoint-info-1: the endpoint-info extension form', () => {
    const info = parseDiscoInfo(payloadOf('endpoint-info-1 result'));
    const [form] = extensionForms(info, FORM_TYPE.endpointInfo);
    expect(form && formTypeOf(form)).toBe(FORM_TYPE.endpointInfo);
    expect(form && fieldOf(form.fields, 'manifest_hash_value')?.values).toEqual([MANIFEST_HASH.value]);
    const coldStart = form && fieldOf(form.fields, 'cold_start_supported')?.values[0];
    expect(coldStart === undefined ? undefined : formBoolean(coldStart)).toBe(true);
    expect(form && fieldOf(form.fields, 'request_replay_seconds')?.values).toEqual(['86400']);
  });

  it('tools-1: the version-pinned tool collection page', () => {
    expect(parseDiscoItemsRequest(payloadOf('tools-1 get'))).toEqual({
      node: 'urn:xmpp:agent-tools:0#1.4.0',
      rsm: { max: 50 },
    });
    const page = parseDiscoItems(payloadOf('tools-1 result'));
    const node = 'urn:xmpp:agent-tool:0#1.4.0#Zm9yZWNhc3QuZ2V0';
    expect(page.items).toEqual([{ jid: 'weather@agents.example', name: 'Get Forecast', node }]);
    expect(page.rsm).toEqual({ first: { uid: node }, last: node, count: 1 });
  });

  it('tool-info-1: the tool-info extension form', () => {
    expect(parseDiscoInfoRequest(payloadOf('tool-info-1 get'))).toEqual({
      node: 'urn:xmpp:agent-tool:0#1.4.0#Zm9yZWNhc3QuZ2V0',
    });
    const info = parseDiscoInfo(payloadOf('tool-info-1 result'));
    const [form] = extensionForms(info, FORM_TYPE.toolInfo);
    expect(form && fieldOf(form.fields, 'input_schema_hash_value')?.values).toEqual([SCHEMA_HASH.value]);
    expect(form && fieldOf(form.fields, 'open_world')).toBeUndefined();
  });

  it('schema-1: the schema request and the schema', () => {
    expect(parseSchemaRequest(payloadOf('schema-1 get'))).toEqual({
      tool: 'forecast.get',
      version: '1.4.0',
      direction: 'input',
      manifestHash: MANIFEST_HASH,
    });
    expect(parseSchema(payloadOf('schema-1 result'))).toEqual({
      tool: 'forecast.get',
      version: '1.4.0',
      direction: 'input',
      manifestHash: MANIFEST_HASH,
      schemaHash: SCHEMA_HASH,
      json: '{"additionalProperties":false,"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}',
    });
  });
});

describe('search examples (#search)', () => {
  it('search-form-1: legacy nick plus the form', () => {
    const form = parseSearchForm(payloadOf('search-form-1 result'));
    expect(form.legacyFields).toEqual(['nick']);
    expect(form.instructions).toBe('Enter a nickname to search for matching agents.');
    expect(form.form && formTypeOf(form.form)).toBe(FORM_TYPE.search);
  });

  it('search-1: a form submission with RSM, and a multi-item result form with RSM outside it', () => {
    const request = parseSearchRequest(payloadOf('search-1 set'));
    expect(request.kind).toBe('form');
    expect(request.rsm).toEqual({ max: 50 });
    const results = parseSearchResults(payloadOf('search-1 result'));
    expect(results.kind).toBe('form');
    expect(results.kind === 'form' && results.form.items.length).toBe(1);
    expect(results.rsm).toEqual({
      first: { uid: 'weather@agents.example' },
      last: 'weather@agents.example',
      count: 1,
    });
  });
});

describe('registration and manifest examples (#registration-flow, #manifest-retrieval)', () => {
  it('register-1: the manifest text with its source formatting', () => {
    const { manifestJson } = parseRegister(payloadOf('register-1 set'));
    expect(manifestJson).toContain('{"manifestSpecVersion":"0",');
    expect(manifestJson.startsWith('\n      {')).toBe(true);
    expect(parseRegistered(payloadOf('register-1 result'))).toEqual({
      jid: 'weather@agents.example',
      version: '1.4.0',
      hash: MANIFEST_HASH,
    });
  });

  it('activate-1', () => {
    expect(parseActivate(payloadOf('activate-1 set'))).toEqual({
      jid: 'weather@agents.example',
      version: '1.4.0',
      hash: MANIFEST_HASH,
    });
    expect(parseActive(payloadOf('activate-1 result'))).toEqual({
      jid: 'weather@agents.example',
      version: '1.4.0',
    });
  });

  it('manifest-1: the canonical manifest', () => {
    expect(parseManifestRequest(payloadOf('manifest-1 get'))).toEqual({});
    expect(parseManifest(payloadOf('manifest-1 result'))).toEqual({
      version: '1.4.0',
      hash: MANIFEST_HASH,
      json: '{"agent":{"jid":"weather@agents.example","name":"weather","version":"1.4.0"},"manifestSpecVersion":"0","tools":[]}',
    });
  });
});

describe('execution examples (#invocation … #task-recovery)', () => {
  it('invoke-1 and its durable acceptance', () => {
    const invoke = parseInvoke(payloadOf('invoke-1 set'));
    expect(invoke).toMatchObject({
      requestId: REQUEST_ID,
      tool: 'forecast.get',
      apiVersion: '1.4.0',
      argumentsJson: '{"city":"Riga"}',
    });
    expect(invoke.deadline?.text).toBe('2026-07-27T19:15:00Z');
    const accepted = parseAccepted(payloadOf('invoke-1 result'));
    expect(accepted).toMatchObject({ requestId: REQUEST_ID, taskId: TASK_ID, revision: 0 });
    expect(accepted.retainUntil.text).toBe('2026-07-28T19:14:01Z');
  });

  it('the federated example, including a hash whose attribute spans lines', () => {
    const info = parseDiscoInfo(payloadOf('federated-disco-1 result'));
    expect(info.identities).toEqual([{ category: 'automation', type: IDENTITY_TYPE.gateway }]);
    const invoke = parseInvoke(payloadOf('federated-invoke-1 set'));
    expect(invoke.manifestHash).toEqual(MANIFEST_HASH);
    expect(invoke.deadline).toBeUndefined();
    expect(parseAccepted(payloadOf('federated-invoke-1 result')).taskId).toBe(
      'task-c27daf5e3a9b45e086a6616e28139dcb',
    );
    expect(eventOf('federated-result-1').event).toMatchObject({ type: 'completed', revision: 1 });
  });

  it('lifecycle events keep their JSON text with its surrounding whitespace', () => {
    const status = eventOf('status-task-7f2a9c41d8804e96bb478af6453c0371');
    expect(status.message).toMatchObject({ type: 'normal', from: 'weather@agents.example' });
    expect(status.event).toMatchObject({ taskId: TASK_ID, revision: 1, type: 'status' });
    expect(status.event.json.trim()).toBe('{"state":"running","updatedAt":"2026-07-27T19:14:02Z"}');
    expect(eventOf('progress-task-7f2a9c41d8804e96bb478af6453c0371').event.type).toBe('progress');
    expect(eventOf('input-request-task-7f2a9c41d8804e96bb478af6453c0371').event.json).toContain(
      INPUT_REQUEST_ID,
    );
    expect(eventOf('cancelled-task-7f2a9c41d8804e96bb478af6453c0371').event).toMatchObject({
      type: 'cancelled',
      revision: 6,
      json: '{}',
    });
    expect(eventOf('failed-task-7f2a9c41d8804e96bb478af6453c0371').event).toMatchObject({
      type: 'failed',
      revision: 4,
    });
    expect(eventOf('completed-task-7f2a9c41d8804e96bb478af6453c0371').event).toMatchObject({
      type: 'completed',
      revision: 4,
    });
  });

  it('input-answer-1', () => {
    expect(parseProvideInput(payloadOf('input-answer-1 set'))).toEqual({
      taskId: TASK_ID,
      requestId: INPUT_REQUEST_ID,
      expectedRevision: 3,
      inputJson: '{"unit":"C"}',
    });
    expect(parseInputAccepted(payloadOf('input-answer-1 result'))).toEqual({ taskId: TASK_ID, revision: 4 });
  });

  it('cancel-request-1', () => {
    expect(parseCancel(payloadOf('cancel-request-1 set'))).toEqual({
      taskId: TASK_ID,
      expectedRevision: 4,
      reason: 'Trip was cancelled',
    });
    expect(parseCancelAccepted(payloadOf('cancel-request-1 result'))).toEqual({
      taskId: TASK_ID,
      revision: 5,
    });
  });

  it('task-state-1, without the deadline the task was admitted with (interp-04)', () => {
    expect(parseTaskStateRequest(payloadOf('task-state-1 get'))).toEqual({ taskId: TASK_ID });
    const state = parseTaskState(payloadOf('task-state-1 result'));
    expect(state).toMatchObject({
      taskId: TASK_ID,
      endpoint: 'weather@agents.example',
      state: 'running',
      revision: 2,
      resultAvailable: false,
    });
    expect(state.deadline).toBeUndefined();
    expect(state.manifestHash).toEqual(MANIFEST_HASH);
  });

  it('task-result-1', () => {
    expect(parseTaskResultRequest(payloadOf('task-result-1 get'))).toEqual({ taskId: TASK_ID });
    const result = parseTaskResult(payloadOf('task-result-1 result'));
    expect(result).toMatchObject({ taskId: TASK_ID, state: 'completed', revision: 4 });
    expect(result.json).not.toContain('Forecast ready');
  });
});
