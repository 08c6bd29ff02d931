import { describe, expect, it } from 'vitest';
import { FEATURE, FORM_TYPE, IDENTITY_CATEGORY, IDENTITY_TYPE, NS } from '../namespaces.ts';
import {
  buildDiscoInfo,
  buildDiscoInfoRequest,
  extensionForms,
  hasFeature,
  parseDiscoInfo,
  parseDiscoInfoRequest,
} from './disco-info.ts';
import type { DiscoInfo } from './disco-info.ts';
import {
  expectBuildError,
  expectParseError,
  expectRoundTrip,
  titled,
} from './test-support/stanza-test-kit.ts';
import { parseXml } from '../xml/parse-xml.ts';

const QUERY = `{${NS.discoInfo}}query`;
const queryXml = (content: string, attributes = ''): string =>
  `<query xmlns='${NS.discoInfo}'${attributes}>${content}</query>`;
const IDENTITY = "<identity category='automation' type='agent-endpoint' name='Weather Agent'/>";
const FEATURE_XML = `<feature var='${NS.discoInfo}'/>`;

const TOOL_INFO: DiscoInfo = {
  node: 'urn:xmpp:agent-tool:0#1.4.0#Zm9yZWNhc3QuZ2V0',
  identities: [
    { category: IDENTITY_CATEGORY, type: IDENTITY_TYPE.tool, name: 'Get Forecast' },
    { category: IDENTITY_CATEGORY, type: IDENTITY_TYPE.tool, name: 'Prognose', lang: 'de' },
  ],
  features: [NS.discoInfo, FEATURE.tool, FEATURE.taskProgress],
  forms: [
    {
      type: 'result',
      instructions: [],
      fields: [
        { var: 'FORM_TYPE', type: 'hidden', required: false, values: [FORM_TYPE.toolInfo], options: [] },
        { var: 'name', required: false, values: ['forecast.get'], options: [] },
        { var: 'read_only', required: false, values: ['1'], options: [] },
      ],
      items: [],
    },
  ],
};

describe('disco#info', () => {
  it('round-trips requests and results with identities, features and extension forms', () => {
    expectRoundTrip(buildDiscoInfoRequest, parseDiscoInfoRequest, {});
    expectRoundTrip(buildDiscoInfoRequest, parseDiscoInfoRequest, { node: TOOL_INFO.node ?? '' });
    expectRoundTrip(buildDiscoInfo, parseDiscoInfo, TOOL_INFO);
  });

  it('finds extension forms by FORM_TYPE and features by var', () => {
    expect(extensionForms(TOOL_INFO, FORM_TYPE.toolInfo)).toHaveLength(1);
    expect(extensionForms(TOOL_INFO, FORM_TYPE.endpointInfo)).toEqual([]);
    expect(hasFeature(TOOL_INFO, FEATURE.tool)).toBe(true);
    expect(hasFeature(TOOL_INFO, FEATURE.taskCancel)).toBe(false);
  });

  it('keeps duplicate features for the caller to judge, and skips foreign extensions', () => {
    const info = parseDiscoInfo(
      parseXml(queryXml(`${IDENTITY}${FEATURE_XML}${FEATURE_XML}<c xmlns='urn:x'/>`)),
    );
    expect(info.features).toEqual([NS.discoInfo, NS.discoInfo]);
    expect(info.forms).toEqual([]);
  });

  it.each(
    titled([
      [parseDiscoInfoRequest, queryXml(FEATURE_XML), { rule: 'unexpected-child', element: QUERY }],
      [parseDiscoInfo, queryXml(FEATURE_XML), { rule: 'missing-child', element: QUERY }],
      [parseDiscoInfo, queryXml(IDENTITY), { rule: 'missing-child', element: QUERY }],
      [
        parseDiscoInfo,
        queryXml(`<identity type='t'/>${FEATURE_XML}`),
        { rule: 'missing-attribute', element: `{${NS.discoInfo}}identity`, attribute: 'category' },
      ],
      [
        parseDiscoInfo,
        queryXml(`<identity category='' type='t'/>${FEATURE_XML}`),
        { rule: 'invalid-attribute', element: `{${NS.discoInfo}}identity`, attribute: 'category' },
      ],
      [
        parseDiscoInfo,
        queryXml(`${IDENTITY}<feature var='x'><y/></feature>`),
        { rule: 'unexpected-child', element: `{${NS.discoInfo}}feature` },
      ],
      [
        parseDiscoInfo,
        queryXml(`${IDENTITY}<feature/>`),
        { rule: 'missing-attribute', element: `{${NS.discoInfo}}feature`, attribute: 'var' },
      ],
      [
        parseDiscoInfo,
        queryXml(
          `${IDENTITY}<identity category='automation' type='agent-endpoint' name='Other'/>${FEATURE_XML}`,
        ),
        { rule: 'duplicate-identity', element: QUERY },
      ],
      [
        parseDiscoInfo,
        queryXml(`${IDENTITY}${FEATURE_XML}<item jid='x'/>`),
        { rule: 'unexpected-child', element: QUERY },
      ],
      [
        parseDiscoInfo,
        queryXml(`${IDENTITY}${FEATURE_XML}<x xmlns='${NS.dataForms}' type='result'><field/></x>`),
        { rule: 'missing-attribute', element: `{${NS.dataForms}}field`, attribute: 'var' },
      ],
      [
        parseDiscoInfo,
        `<query xmlns='${NS.discoItems}'/>`,
        { rule: 'wrong-namespace', element: `{${NS.discoItems}}query` },
      ],
    ]),
  )('%s', (_title, parse, text, expected) => {
    expectParseError(parse, text, expected);
  });

  it('refuses to build a result without identity or feature', () => {
    expectBuildError(() => buildDiscoInfo({ identities: [], features: [NS.discoInfo] }), {
      rule: 'missing-child',
      element: QUERY,
    });
  });
});
