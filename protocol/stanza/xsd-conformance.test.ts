/**
 * What the builders emit is valid against the spec's XML Schemas (checked by libxml2), and for
 * rules XML Schema can express, the parsers refuse exactly what the schemas refuse.
 */
import type { Element } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import { NS_AGENT_API, NS_AGENT_TASK } from '../namespaces.ts';
import {
  buildActivate,
  buildActive,
  buildDeactivate,
  buildDeactivated,
  buildRegister,
  buildRegistered,
  buildRegistration,
  buildRegistrationStatus,
  buildRemoveEndpoint,
  buildRemoveVersion,
  buildRemoved,
} from './agent-admin.ts';
import { buildManifest, buildManifestRequest } from './agent-manifest.ts';
import { buildSchema, buildSchemaRequest } from './agent-schema.ts';
import { parseXml } from '../xml/parse-xml.ts';
import { serialize } from './xml-serialize.ts';
import { buildCancel, buildCancelAccepted, parseCancel } from './task-cancel.ts';
import { buildEvent, parseEvent } from './task-event.ts';
import { buildInputAccepted, buildProvideInput } from './task-input.ts';
import { buildAccepted, buildInvoke, parseAccepted, parseInvoke } from './task-invoke.ts';
import {
  buildTaskResult,
  buildTaskResultRequest,
  buildTaskState,
  buildTaskStateRequest,
  parseTaskState,
} from './task-recovery.ts';
import {
  EVENT_ID,
  INPUT_REQUEST_ID,
  MANIFEST_HASH,
  REQUEST_ID,
  SCHEMA_HASH,
  TASK_ID,
  XSD_AGENT_API,
  XSD_AGENT_TASK,
  at,
  validateWithXsd,
} from './test-support/stanza-test-kit.ts';

const JID = 'weather@agents.example';
const JSON_TEXT = '{"q":"<&>]]>\\"\'","n":[1,2]}\n';

const AGENT_API_ELEMENTS: readonly Element[] = [
  buildRegister({ manifestJson: JSON_TEXT }),
  buildRegistered({ jid: JID, version: '1.4.0', hash: MANIFEST_HASH }),
  buildActivate({ jid: JID, version: '1.4.0', hash: MANIFEST_HASH }),
  buildActive({ jid: JID, version: '1.4.0' }),
  buildDeactivate({ jid: JID }),
  buildDeactivated({ jid: JID }),
  buildRegistrationStatus({ jid: JID }),
  buildRegistration({ jid: JID, versions: [] }),
  buildRegistration({
    jid: JID,
    versions: [
      { id: '1.4.0', active: true, removable: false, hash: MANIFEST_HASH },
      { id: '1.3.0', active: false, removable: true, hash: SCHEMA_HASH },
    ],
  }),
  buildRemoveVersion({ jid: JID, version: '1.3.0' }),
  buildRemoveEndpoint({ jid: JID }),
  buildRemoved({ jid: JID }),
  buildRemoved({ jid: JID, version: '1.3.0' }),
  buildManifestRequest({}),
  buildManifestRequest({ version: '1.4.0' }),
  buildManifest({ version: '1.4.0', hash: MANIFEST_HASH, json: JSON_TEXT }),
  buildSchemaRequest({ tool: 'a\tb c', version: '1.4.0', direction: 'output', manifestHash: MANIFEST_HASH }),
  buildSchema({
    tool: 'forecast.get',
    version: '1.4.0',
    direction: 'input',
    manifestHash: MANIFEST_HASH,
    schemaHash: SCHEMA_HASH,
    json: JSON_TEXT,
  }),
];

const STATE = {
  taskId: TASK_ID,
  endpoint: JID,
  state: 'input_required',
  revision: 3,
  apiVersion: '1.4.0',
  created: at('2026-07-27T19:14:01Z'),
  updated: at('2026-07-27T19:14:03.25+02:00'),
  retainUntil: at('2026-07-28T19:14:01Z'),
  resultAvailable: false,
  manifestHash: MANIFEST_HASH,
} as const;

const AGENT_TASK_ELEMENTS: readonly Element[] = [
  buildInvoke({
    requestId: REQUEST_ID,
    tool: 'forecast.get',
    apiVersion: '1.4.0',
    manifestHash: MANIFEST_HASH,
    argumentsJson: JSON_TEXT,
  }),
  buildInvoke({
    requestId: REQUEST_ID,
    tool: 'forecast.get',
    apiVersion: '1.4.0',
    manifestHash: MANIFEST_HASH,
    argumentsJson: '{}',
    deadline: at('2026-07-27T19:15:00.123456789-05:30'),
  }),
  buildAccepted({
    requestId: REQUEST_ID,
    taskId: TASK_ID,
    revision: 0,
    created: at('2026-07-27T19:14:01Z'),
    retainUntil: at('2026-07-28T19:14:01Z'),
  }),
  buildProvideInput({
    taskId: TASK_ID,
    requestId: INPUT_REQUEST_ID,
    expectedRevision: 3,
    inputJson: JSON_TEXT,
  }),
  buildInputAccepted({ taskId: TASK_ID, revision: 4 }),
  buildCancel({ taskId: TASK_ID, expectedRevision: 4 }),
  buildCancel({ taskId: TASK_ID, expectedRevision: 4, reason: '' }),
  buildCancel({ taskId: TASK_ID, expectedRevision: 4, reason: 'Trip\r\nwas <cancelled>' }),
  buildCancelAccepted({ taskId: TASK_ID, revision: 5 }),
  buildEvent({ taskId: TASK_ID, eventId: EVENT_ID, revision: 2, type: 'input_required', json: JSON_TEXT }),
  buildTaskStateRequest({ taskId: TASK_ID }),
  buildTaskState({ ...STATE, state: 'running' }),
  buildTaskState({ ...STATE, deadline: at('2026-07-27T19:15:00Z'), pendingInputJson: JSON_TEXT }),
  buildTaskResultRequest({ taskId: TASK_ID }),
  buildTaskResult({ taskId: TASK_ID, state: 'cancelled', revision: 6, json: '{}' }),
];

function invalidDocuments(
  errors: readonly { readonly loc: { readonly fileName: string } | null }[],
): number[] {
  const indexes = errors.flatMap((error) =>
    error.loc === null ? [] : [Number(/doc-(\d+)/.exec(error.loc.fileName)?.[1])],
  );
  return [...new Set(indexes)].sort((a, b) => a - b);
}

describe('builder output is schema-valid', () => {
  it('urn:xmpp:agent-api:0', async () => {
    const result = await validateWithXsd(XSD_AGENT_API, AGENT_API_ELEMENTS.map(serialize));
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('urn:xmpp:agent-task:0', async () => {
    const result = await validateWithXsd(XSD_AGENT_TASK, AGENT_TASK_ELEMENTS.map(serialize));
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });
});

/** Documents whose only defect is one XML Schema can express: libxml2 and the parser must both refuse. */
describe('the parsers refuse what the agent-task schema refuses', () => {
  const HASH = `<hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>${MANIFEST_HASH.value}</hash>`;
  const T = `xmlns='${NS_AGENT_TASK}'`;
  const cases: readonly (readonly [string, (element: Element) => unknown])[] = [
    [`<cancel ${T} task-id='${TASK_ID}' expected-revision='4' extra='1'/>`, parseCancel],
    [`<cancel ${T} task-id='${TASK_ID}' expected-revision='4'><reason/><reason/></cancel>`, parseCancel],
    [`<cancel ${T} task-id='${TASK_ID}' expected-revision='4'> x </cancel>`, parseCancel],
    [`<cancel ${T} task-id='short' expected-revision='4'/>`, parseCancel],
    [
      `<accepted ${T} request-id='${REQUEST_ID}' task-id='${TASK_ID}' revision='-1' created='2026-07-27T19:14:01Z' retain-until='2026-07-28T19:14:01Z'/>`,
      parseAccepted,
    ],
    [
      `<accepted ${T} request-id='${REQUEST_ID}' task-id='${TASK_ID}' revision='0' created='2026-07-27T19:14:01Z' retain-until='2026-07-28T19:14:01Z'> </accepted>`,
      parseAccepted,
    ],
    [
      `<invoke ${T} request-id='${REQUEST_ID}' tool='t' api-version='1'><arguments media-type='application/json'>{}</arguments><manifest-hash>${HASH}</manifest-hash></invoke>`,
      parseInvoke,
    ],
    [
      `<invoke ${T} request-id='${REQUEST_ID}' tool='' api-version='1'><manifest-hash>${HASH}</manifest-hash><arguments media-type='application/json'>{}</arguments></invoke>`,
      parseInvoke,
    ],
    [
      `<invoke ${T} request-id='${REQUEST_ID}' tool='t' api-version='1'><manifest-hash>${HASH}${HASH}</manifest-hash><arguments media-type='application/json'>{}</arguments></invoke>`,
      parseInvoke,
    ],
    [
      `<invoke ${T} request-id='${REQUEST_ID}' tool='t' api-version='1'><manifest-hash>${HASH}</manifest-hash><arguments media-type='text/json'>{}</arguments></invoke>`,
      parseInvoke,
    ],
    [
      `<event ${T} task-id='${TASK_ID}' event-id='${EVENT_ID}' revision='1' type='status'>{}<x/></event>`,
      parseEvent,
    ],
    [
      `<event ${T} task-id='${TASK_ID}' event-id='${EVENT_ID}' revision='1' type='done'>{}</event>`,
      parseEvent,
    ],
    [
      `<task-state ${T} task-id='${TASK_ID}' endpoint='e' state='running' revision='1' api-version='1' created='2026-07-27T19:14:01Z' updated='2026-07-27T19:14:01Z' retain-until='2026-07-27T19:14:01Z' result-available='maybe'><manifest-hash>${HASH}</manifest-hash></task-state>`,
      parseTaskState,
    ],
  ];

  it('every case is refused by both', async () => {
    const result = await validateWithXsd(
      XSD_AGENT_TASK,
      cases.map(([text]) => text),
    );
    expect(invalidDocuments(result.errors)).toEqual(cases.map((_, index) => index));
    for (const [text, parse] of cases) expect(() => parse(parseXml(text)), text).toThrow();
  });

  it('XSD-valid variants are accepted by both (collapsed whitespace in integers and booleans, 1/0 booleans)', async () => {
    const valid: readonly (readonly [string, (element: Element) => unknown])[] = [
      [
        `<cancel ${T} task-id='${TASK_ID}' expected-revision=' +04 '><reason>\n</reason></cancel>`,
        parseCancel,
      ],
      [
        `<task-state ${T} task-id='${TASK_ID}' endpoint='' state='completed' revision='1' api-version='1' created='2026-07-27T19:14:01Z' updated='2026-07-27T19:14:01Z' retain-until='2026-07-27T19:14:01Z' result-available=' 1'><manifest-hash>${HASH}</manifest-hash></task-state>`,
        parseTaskState,
      ],
    ];
    const result = await validateWithXsd(
      XSD_AGENT_TASK,
      valid.map(([text]) => text),
    );
    expect(result.errors).toEqual([]);
    for (const [text, parse] of valid) expect(() => parse(parseXml(text))).not.toThrow();
  });
});

describe('namespaces of the built payloads', () => {
  it('declare their own namespace, so they can be sent inside any stanza', () => {
    for (const element of AGENT_API_ELEMENTS) expect(element.attrs['xmlns']).toBe(NS_AGENT_API);
    for (const element of AGENT_TASK_ELEMENTS) expect(element.attrs['xmlns']).toBe(NS_AGENT_TASK);
  });
});
