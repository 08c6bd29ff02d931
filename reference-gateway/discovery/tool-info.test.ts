import { describe, expect, it } from 'vitest';
import { FEATURE, FORM_TYPE, NS } from '../../protocol/namespaces.ts';
import { extensionForms, parseDiscoInfo, parseDiscoItems } from '../../protocol/stanza/index.ts';
import type { DiscoInfo } from '../../protocol/stanza/index.ts';
import { encodeToolNode } from '../../protocol/tool-node.ts';
import {
  ask,
  discoInfo,
  discoItems,
  expectIdenticalFaults,
  resultOf,
  withSettings,
} from './test-support/discovery-kit.ts';
import type { Ask } from './test-support/discovery-kit.ts';
import { MemoryCatalog, manifestJson, manifestRecord } from './test-support/memory-catalog.ts';
import type { ToolSketch } from './test-support/memory-catalog.ts';
import { JID, buildWorld } from './test-support/world.ts';

const { catalog } = await buildWorld();
const FORECAST = encodeToolNode('1.4.0', 'forecast.get');

function toolInfo(to: string, node: string, request: Partial<Ask> = {}, world = catalog): DiscoInfo {
  return parseDiscoInfo(resultOf(ask(world, { to, xml: discoInfo(node), ...request })));
}

function formValues(info: DiscoInfo): Record<string, readonly string[]> {
  const [form] = extensionForms(info, FORM_TYPE.toolInfo);
  if (form === undefined) throw new Error('no tool-info form');
  return Object.fromEntries(form.fields.map((field) => [field.var ?? '', field.values]));
}

const LAB = 'lab@agents.example';

async function lab(...tools: ToolSketch[]): Promise<MemoryCatalog> {
  return new MemoryCatalog().add(await manifestRecord(manifestJson({ jid: LAB, name: 'lab', tools })));
}

describe('tool information (#tool-info)', () => {
  it('describes the spec example tool from its pinned manifest, hashes computed (interp-01, interp-08)', () => {
    const info = toolInfo(JID.weather, FORECAST);
    expect(info.node).toBe(FORECAST);
    expect(info.identities).toEqual([{ category: 'automation', type: 'agent-tool', name: 'Get Forecast' }]);
    expect(info.features).toEqual([NS.discoInfo, FEATURE.tool, FEATURE.taskProgress, FEATURE.taskCancel]);
    expect(formValues(info)).toEqual({
      FORM_TYPE: [FORM_TYPE.toolInfo],
      name: ['forecast.get'],
      title: ['Get Forecast'],
      description: ['Gets a forecast for one city.'],
      api_version: ['1.4.0'],
      input_schema_hash_algo: ['sha-256'],
      input_schema_hash_value: ['XxGP62PwgOW9NLxx8ysunvuijMhSd0y4j1SSRTAbt7c='],
      output_schema_hash_algo: ['sha-256'],
      output_schema_hash_value: ['JK2ilcD8njJXVkTPU99lYYmhxbaGg3SKqalwaR1GOuA='],
      read_only: ['1'],
      destructive: ['0'],
      idempotent: ['1'],
      open_world: ['1'],
    });
  });

  it('leaves out title, description, the output pair and annotations the manifest lacks', async () => {
    const world = await lab({ name: 'bare' });
    const info = toolInfo(LAB, encodeToolNode('1.0.0', 'bare'), {}, world);
    expect(info.identities[0]?.name).toBe('bare');
    expect(Object.keys(formValues(info))).toEqual([
      'FORM_TYPE',
      'name',
      'api_version',
      'input_schema_hash_algo',
      'input_schema_hash_value',
    ]);
  });

  it('maps only the boolean annotations that are present, never inventing the others', async () => {
    const world = await lab(
      { name: 'some', annotations: { destructiveHint: true, title: 'MCP title' } },
      { name: 'odd', annotations: { readOnlyHint: 'yes', idempotentHint: 1, openWorldHint: false } },
    );
    const some = formValues(toolInfo(LAB, encodeToolNode('1.0.0', 'some'), {}, world));
    expect(some['destructive']).toEqual(['1']);
    expect(
      Object.keys(some).filter((name) => ['read_only', 'idempotent', 'open_world'].includes(name)),
    ).toEqual([]);
    const odd = formValues(toolInfo(LAB, encodeToolNode('1.0.0', 'odd'), {}, world));
    expect(
      Object.keys(odd).filter((name) => ['read_only', 'destructive', 'idempotent'].includes(name)),
    ).toEqual([]);
    expect(odd['open_world']).toEqual(['0']);
  });

  it('advertises a task feature only when the endpoint supports it and the tool declares it (#conformance)', async () => {
    const world = await lab(
      { name: 'all', extension: { supportsProgress: true, supportsCancellation: true, supportsInput: true } },
      { name: 'declines', extension: { supportsProgress: false } },
    );
    const features = (name: string, settings = withSettings({})): readonly string[] =>
      toolInfo(LAB, encodeToolNode('1.0.0', name), { settings }, world).features;
    expect(features('all')).toEqual([NS.discoInfo, FEATURE.tool, FEATURE.taskProgress, FEATURE.taskCancel]);
    const everything = withSettings({
      taskFeatures: { core: true, progress: true, cancel: true, input: true },
    });
    expect(features('all', everything)).toContain(FEATURE.taskInput);
    const nothing = withSettings({
      taskFeatures: { core: true, progress: false, cancel: false, input: false },
    });
    expect(features('all', nothing)).toEqual([NS.discoInfo, FEATURE.tool]);
    expect(features('declines', everything)).toEqual([NS.discoInfo, FEATURE.tool]);
  });

  it('serves a non-active version pinned by its node', () => {
    const info = toolInfo(JID.weather, encodeToolNode('2.0.0', 'alerts.list'));
    expect(formValues(info)['api_version']).toEqual(['2.0.0']);
  });

  it('answers malformed nodes, unknown tools, hidden and nonexistent endpoints with one item-not-found', () => {
    const base = 'urn:xmpp:agent-tool:0#1.4.0#';
    const nodes = [
      `${base}Zm9yZWNhc3QuZ2V0==`,
      `${base}Zm9yZWNhc3QuZ2V0=`,
      `${base}Zm9y+WNhc3QuZ2V0`,
      `${base}QR`,
      `${base}_w`,
      base,
      'urn:xmpp:agent-tool:0#1.4.0',
      encodeToolNode('1.4.0', 'nope'),
      encodeToolNode('9.9.9', 'forecast.get'),
    ];
    const outcomes = [
      ...nodes.map((node) => ask(catalog, { to: JID.weather, xml: discoInfo(node) })),
      ask(catalog, { to: JID.secret, xml: discoInfo(encodeToolNode('1.0.0', 'forecast.get')) }),
      ask(catalog, { to: JID.missing, xml: discoInfo(encodeToolNode('1.0.0', 'forecast.get')) }),
      ask(catalog, { to: JID.secret, xml: discoItems(encodeToolNode('1.0.0', 'forecast.get')) }),
      ask(catalog, { to: JID.missing, xml: discoItems(encodeToolNode('1.0.0', 'forecast.get')) }),
    ];
    expectIdenticalFaults(outcomes, 'item-not-found');
  });

  it('answers disco#items at a tool node with an empty query (XEP-0030 §4.1)', () => {
    expect(parseDiscoItems(resultOf(ask(catalog, { to: JID.weather, xml: discoItems(FORECAST) })))).toEqual({
      node: FORECAST,
      items: [],
    });
  });
});
