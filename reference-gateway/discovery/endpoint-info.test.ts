import { describe, expect, it } from 'vitest';
import { FEATURE, FORM_TYPE, NS } from '../../protocol/namespaces.ts';
import { extensionForms, fieldOf, parseDiscoInfo, parseDiscoItems } from '../../protocol/stanza/index.ts';
import type { DataForm } from '../../protocol/stanza/index.ts';
import {
  ask,
  discoInfo,
  discoItems,
  expectIdenticalFaults,
  resultOf,
  rsmSet,
  withSettings,
} from './test-support/discovery-kit.ts';
import type { Ask } from './test-support/discovery-kit.ts';
import { MemoryCatalog, manifestJson, manifestRecord } from './test-support/memory-catalog.ts';
import { JID, ROMEO, buildWorld } from './test-support/world.ts';

const { catalog, weather } = await buildWorld();

function info(to: string, request: Partial<Ask> = {}, world: MemoryCatalog = catalog) {
  return parseDiscoInfo(resultOf(ask(world, { to, xml: discoInfo(), ...request })));
}

function infoForm(to: string, request: Partial<Ask> = {}, world: MemoryCatalog = catalog): DataForm {
  const [form, extra] = extensionForms(info(to, request, world), FORM_TYPE.endpointInfo);
  expect(extra).toBeUndefined();
  if (form === undefined) throw new Error('no endpoint-info form');
  return form;
}

function fieldValues(form: DataForm): Record<string, readonly string[]> {
  return Object.fromEntries(form.fields.map((field) => [field.var ?? '', field.values]));
}

describe('endpoint information (#endpoint-info)', () => {
  it('describes the active version with identity, features and the endpoint-info form', () => {
    const result = info(JID.weather);
    expect(result.node).toBeUndefined();
    expect(result.identities).toEqual([
      { category: 'automation', type: 'agent-endpoint', name: 'Weather Agent' },
    ]);
    expect(result.features).toEqual([
      NS.discoInfo,
      NS.discoItems,
      FEATURE.endpoint,
      FEATURE.manifest,
      FEATURE.schema,
      FEATURE.task,
      FEATURE.taskProgress,
      FEATURE.taskCancel,
      NS.ping,
    ]);
    expect(fieldValues(infoForm(JID.weather))).toEqual({
      FORM_TYPE: [FORM_TYPE.endpointInfo],
      server_name: ['weather'],
      server_title: ['Weather Agent'],
      description: ['Provides weather forecasts.'],
      version: ['1.4.0'],
      manifest_hash_algo: ['sha-256'],
      manifest_hash_value: ['fFqwrKetRrAKF1IPjZ8z2G6O6OKLd5RwO0DG0RtyDhg='],
      cold_start_supported: ['1'],
      request_replay_seconds: ['86400'],
    });
    expect(weather.document.hash.value).toBe('fFqwrKetRrAKF1IPjZ8z2G6O6OKLd5RwO0DG0RtyDhg=');
    expect(fieldOf(infoForm(JID.weather).fields, 'FORM_TYPE')?.type).toBe('hidden');
  });

  it('falls back to agent.name for the title, leaves out an absent description, and emits 0', () => {
    const settings = withSettings({ coldStartSupported: false, requestReplaySeconds: 600 });
    const values = fieldValues(infoForm(JID.alpha, { settings }));
    expect(values).toMatchObject({ server_name: ['alpha'], server_title: ['alpha'] });
    expect(values).not.toHaveProperty('description');
    expect(values['cold_start_supported']).toEqual(['0']);
    expect(values['request_replay_seconds']).toEqual(['600']);
    expect(info(JID.alpha).identities[0]?.name).toBe('alpha');
  });

  it('splits a multi-line description into text-multi values', async () => {
    const world = new MemoryCatalog().add(
      await manifestRecord(
        manifestJson({ jid: JID.alpha, name: 'alpha', description: 'One.\r\nTwo.\rThree.\n\nFive.' }),
      ),
    );
    const description = fieldOf(infoForm(JID.alpha, {}, world).fields, 'description');
    expect(description).toMatchObject({
      type: 'text-multi',
      values: ['One.', 'Two.', 'Three.', '', 'Five.'],
    });
  });

  it('advertises only the task features the settings switch on', () => {
    const none = withSettings({
      taskFeatures: { core: false, progress: false, cancel: false, input: false },
    });
    expect(info(JID.weather, { settings: none }).features).toEqual([
      NS.discoInfo,
      NS.discoItems,
      FEATURE.endpoint,
      FEATURE.manifest,
      FEATURE.schema,
      NS.ping,
    ]);
    const all = withSettings({ taskFeatures: { core: true, progress: true, cancel: true, input: true } });
    expect(info(JID.weather, { settings: all }).features).toContain(FEATURE.taskInput);
  });

  it('answers hidden, nonexistent and deactivated endpoints with the same item-not-found', () => {
    expect(info(JID.secret, { from: ROMEO }).identities[0]?.name).toBe('Secret Agent');
    const outcomes = [JID.secret, JID.missing, JID.dormant].map((to) =>
      ask(catalog, { to, xml: discoInfo() }),
    );
    expectIdenticalFaults(outcomes, 'item-not-found');
    expect(catalog.calls.slice(-3)).toEqual([
      `visibleEndpoint ${JID.secret}`,
      `visibleEndpoint ${JID.missing}`,
      `visibleEndpoint ${JID.dormant}`,
    ]);
  });

  it('refuses the endpoint feature var used as a node, like an unknown endpoint (#endpoint-info)', () => {
    const outcomes = [
      ask(catalog, { to: JID.weather, xml: discoInfo(FEATURE.endpoint) }),
      ask(catalog, { to: JID.weather, xml: discoItems(FEATURE.endpoint) }),
      ask(catalog, { to: JID.weather, xml: discoInfo('urn:example:unknown') }),
      ask(catalog, { to: JID.missing, xml: discoInfo() }),
    ];
    expectIdenticalFaults(outcomes, 'item-not-found');
  });

  it('lists the active collection node as its node-less items (interp-16)', () => {
    const items = parseDiscoItems(resultOf(ask(catalog, { to: JID.weather, xml: discoItems() })));
    expect(items).toEqual({ items: [{ jid: JID.weather, node: 'urn:xmpp:agent-tools:0#1.4.0' }] });
    const paged = parseDiscoItems(
      resultOf(ask(catalog, { to: JID.weather, xml: discoItems(undefined, rsmSet('<max>5</max>')) })),
    );
    expect(paged.rsm).toEqual({
      first: { uid: 'urn:xmpp:agent-tools:0#1.4.0', index: 0 },
      last: 'urn:xmpp:agent-tools:0#1.4.0',
      count: 1,
    });
    const outcomes = [JID.secret, JID.missing, JID.dormant].map((to) =>
      ask(catalog, { to, xml: discoItems() }),
    );
    expectIdenticalFaults(outcomes, 'item-not-found');
  });
});
