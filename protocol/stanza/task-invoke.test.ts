import { describe, expect, it } from 'vitest';
import { NS_AGENT_TASK } from '../namespaces.ts';
import { buildAccepted, buildInvoke, parseAccepted, parseInvoke } from './task-invoke.ts';
import type { Invoke } from './task-invoke.ts';
import {
  MANIFEST_HASH,
  REQUEST_ID,
  TASK_ID,
  at,
  expectBuildError,
  expectParseError,
  expectRoundTrip,
  titled,
} from './test-support/stanza-test-kit.ts';
import { parseXml } from '../xml/parse-xml.ts';
import { serialize } from './xml-serialize.ts';

const task = (local: string): string => `{${NS_AGENT_TASK}}${local}`;
const HASH = `<hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>${MANIFEST_HASH.value}</hash>`;
const INVOKE: Invoke = {
  requestId: REQUEST_ID,
  tool: 'forecast.get',
  apiVersion: '1.4.0',
  manifestHash: MANIFEST_HASH,
  argumentsJson: '{"city":"Riga"}',
};

function invokeXml(attributes: string, content: string): string {
  return `<invoke xmlns='${NS_AGENT_TASK}' ${attributes}>${content}</invoke>`;
}
const ATTRIBUTES = `api-version='1.4.0' request-id='${REQUEST_ID}' tool='forecast.get'`;
const MANIFEST_HASH_XML = `<manifest-hash>${HASH}</manifest-hash>`;
const ARGUMENTS_XML = "<arguments media-type='application/json'>{}</arguments>";

describe('invoke and accepted', () => {
  it('round-trip with and without a deadline', () => {
    expectRoundTrip(buildInvoke, parseInvoke, INVOKE);
    expectRoundTrip(buildInvoke, parseInvoke, {
      ...INVOKE,
      deadline: at('2026-07-27T21:15:00.000123+02:00'),
    });
    expectRoundTrip(buildAccepted, parseAccepted, {
      requestId: REQUEST_ID,
      taskId: TASK_ID,
      revision: 0,
      created: at('2026-07-27T19:14:01Z'),
      retainUntil: at('2026-07-28T19:14:01Z'),
    });
  });

  it('carries argument JSON with markup, CDATA terminators, quotes and line ends through one text node', () => {
    const argumentsJson = '{"q":"<b>&amp;</b> ]]> \\"x\\" \'y\'",\r\n\t"n":1}';
    const element = buildInvoke({ ...INVOKE, argumentsJson });
    const argumentsElement = element.getChild('arguments');
    expect(argumentsElement?.children).toEqual([argumentsJson]);
    expect(parseInvoke(parseXml(serialize(element))).argumentsJson).toBe(argumentsJson);
  });

  it('reads arguments split across text nodes and CDATA sections as one JSON text', () => {
    const invoke = parseInvoke(
      parseXml(
        invokeXml(
          ATTRIBUTES,
          `${MANIFEST_HASH_XML}<arguments media-type='application/json'>{"city":<![CDATA["Ri]]>&#x67;a"}</arguments>`,
        ),
      ),
    );
    expect(invoke.argumentsJson).toBe('{"city":"Riga"}');
  });

  it.each(
    titled([
      [
        parseInvoke,
        invokeXml(ATTRIBUTES.replace(REQUEST_ID, 'req-1'), MANIFEST_HASH_XML + ARGUMENTS_XML),
        { rule: 'invalid-identifier', element: task('invoke'), attribute: 'request-id' },
      ],
      [
        parseInvoke,
        invokeXml(ATTRIBUTES.replace("tool='forecast.get'", ''), MANIFEST_HASH_XML + ARGUMENTS_XML),
        { rule: 'missing-attribute', element: task('invoke'), attribute: 'tool' },
      ],
      [
        parseInvoke,
        invokeXml(ATTRIBUTES.replace("'1.4.0'", "'1.4.0+build'"), MANIFEST_HASH_XML + ARGUMENTS_XML),
        { rule: 'invalid-version', element: task('invoke'), attribute: 'api-version' },
      ],
      [parseInvoke, invokeXml(ATTRIBUTES, ARGUMENTS_XML), { rule: 'missing-child', element: task('invoke') }],
      [
        parseInvoke,
        invokeXml(ATTRIBUTES, ARGUMENTS_XML + MANIFEST_HASH_XML),
        { rule: 'child-order', element: task('invoke') },
      ],
      [
        parseInvoke,
        invokeXml(ATTRIBUTES, `${MANIFEST_HASH_XML}<arguments>{}</arguments>`),
        { rule: 'missing-attribute', element: task('arguments'), attribute: 'media-type' },
      ],
      [
        parseInvoke,
        invokeXml(
          ATTRIBUTES,
          `${MANIFEST_HASH_XML}<arguments media-type='application/json; charset=utf-8'>{}</arguments>`,
        ),
        { rule: 'media-type', element: task('arguments'), attribute: 'media-type' },
      ],
      [
        parseInvoke,
        invokeXml(ATTRIBUTES, `${MANIFEST_HASH_XML + ARGUMENTS_XML}<deadline>2026-07-27T19:15:00</deadline>`),
        { rule: 'invalid-datetime', element: task('deadline') },
      ],
      [
        parseInvoke,
        invokeXml(ATTRIBUTES, `${MANIFEST_HASH_XML + ARGUMENTS_XML}<priority xmlns='urn:example'/>`),
        { rule: 'unexpected-child', element: task('invoke') },
      ],
      [
        parseInvoke,
        invokeXml(
          ATTRIBUTES,
          `${MANIFEST_HASH_XML}<arguments xmlns='urn:xmpp:agent-api:0' media-type='application/json'>{}</arguments>`,
        ),
        { rule: 'wrong-namespace', element: '{urn:xmpp:agent-api:0}arguments' },
      ],
      [
        parseInvoke,
        invokeXml(
          ATTRIBUTES,
          `${MANIFEST_HASH_XML + ARGUMENTS_XML}<deadline>2026-07-27T19:15:00Z</deadline><deadline>2026-07-27T19:15:00Z</deadline>`,
        ),
        { rule: 'duplicate-child', element: task('invoke') },
      ],
      [
        parseInvoke,
        invokeXml(ATTRIBUTES, `x${MANIFEST_HASH_XML + ARGUMENTS_XML}`),
        { rule: 'unexpected-text', element: task('invoke') },
      ],
      [
        parseAccepted,
        `<accepted xmlns='${NS_AGENT_TASK}' created='2026-07-27T19:14:01Z' request-id='${REQUEST_ID}' retain-until='2026-07-28T19:14:01Z' revision='-1' task-id='${TASK_ID}'/>`,
        { rule: 'invalid-integer', element: task('accepted'), attribute: 'revision' },
      ],
      [
        parseAccepted,
        `<accepted xmlns='${NS_AGENT_TASK}' created='2026-07-27T19:14:01Z' request-id='${REQUEST_ID}' retain-until='2026-07-28T19:14:01Z' revision='99999999999999999999' task-id='${TASK_ID}'/>`,
        { rule: 'integer-out-of-range', element: task('accepted'), attribute: 'revision' },
      ],
      [
        parseAccepted,
        `<accepted xmlns='${NS_AGENT_TASK}' created='2026-07-27T19:14:01Z' request-id='${REQUEST_ID}' retain-until='tomorrow' revision='0' task-id='${TASK_ID}'/>`,
        { rule: 'invalid-datetime', element: task('accepted'), attribute: 'retain-until' },
      ],
      [
        parseAccepted,
        `<accepted xmlns='${NS_AGENT_TASK}' created='2026-07-27T19:14:01Z' request-id='${REQUEST_ID}' retain-until='2026-07-28T19:14:01Z' revision='0'/>`,
        { rule: 'missing-attribute', element: task('accepted'), attribute: 'task-id' },
      ],
    ]),
  )('%s', (_title, parse, text, expected) => {
    expectParseError(parse, text, expected);
  });

  it('refuses to build values the schema forbids', () => {
    expectBuildError(() => buildInvoke({ ...INVOKE, requestId: 'short' }), {
      rule: 'invalid-identifier',
      element: task('invoke'),
      attribute: 'request-id',
    });
    expectBuildError(() => buildInvoke({ ...INVOKE, tool: 'bad\u0008tool' }), {
      rule: 'invalid-tool-name',
      element: task('invoke'),
      attribute: 'tool',
    });
    expectBuildError(() => buildInvoke({ ...INVOKE, argumentsJson: '{"a":"\uD800"}' }), {
      rule: 'illegal-xml-character',
      element: task('arguments'),
    });
    expectBuildError(
      () =>
        buildInvoke({ ...INVOKE, deadline: { ...at('2026-07-27T19:15:00Z'), text: '2026-07-27T19:15:00' } }),
      {
        rule: 'invalid-datetime',
        element: task('deadline'),
      },
    );
    const accepted = {
      requestId: REQUEST_ID,
      taskId: TASK_ID,
      revision: 0,
      created: at('2026-07-27T19:14:01Z'),
      retainUntil: at('2026-07-28T19:14:01Z'),
    };
    expectBuildError(() => buildAccepted({ ...accepted, revision: -1 }), {
      rule: 'invalid-integer',
      element: task('accepted'),
      attribute: 'revision',
    });
    expectBuildError(() => buildAccepted({ ...accepted, revision: 1.5 }), {
      rule: 'invalid-integer',
      element: task('accepted'),
      attribute: 'revision',
    });
  });
});
