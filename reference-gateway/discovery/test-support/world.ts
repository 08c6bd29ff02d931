/**
 * The fixture world most discovery tests share. Juliet (example.net) sees alpha, calendar and
 * weather; secret is visible only to Romeo; dormant is registered but deactivated. weather is
 * the spec's full example manifest (interp-01: fixtures use it with computed hashes).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { JsonValue } from '../../../protocol/json/json-value.ts';
import { REPO_ROOT } from '../../../protocol/test-support/shared-paths.ts';
import type { ManifestRecord } from '../../catalog/catalog.ts';
import { MemoryCatalog, manifestJson, manifestRecord, onlyTo } from './memory-catalog.ts';

export const ROMEO = 'romeo@example.net/balcony';

export const JID = {
  alpha: 'alpha@agents.example',
  calendar: 'calendar@agents.example',
  dormant: 'dormant@agents.example',
  secret: 'secret@agents.example',
  weather: 'weather@agents.example',
  /** Registered nowhere, but sorting where secret does: between calendar and weather. */
  missing: 'sea@agents.example',
} as const;

export function readFixtureManifest(name: string): JsonValue {
  return JSON.parse(readFileSync(resolve(REPO_ROOT, 'fixtures', 'manifests', name), 'utf8')) as JsonValue;
}

export interface World {
  readonly catalog: MemoryCatalog;
  readonly weather: ManifestRecord;
  readonly weatherNext: ManifestRecord;
  readonly secret: ManifestRecord;
  readonly dormant: ManifestRecord;
}

export async function buildWorld(): Promise<World> {
  const weather = await manifestRecord(readFixtureManifest('weather-full.json'));
  const weatherNext = await manifestRecord(
    manifestJson({
      jid: JID.weather,
      name: 'weather',
      title: 'Weather Agent',
      version: '2.0.0',
      tools: [{ name: 'forecast.get' }, { name: 'alerts.list', title: 'List Alerts' }],
    }),
  );
  const secret = await manifestRecord(
    manifestJson({
      jid: JID.secret,
      name: 'secret',
      title: 'Secret Agent',
      tools: [{ name: 'forecast.get', extension: { tags: ['weather'] } }],
    }),
  );
  const dormant = await manifestRecord(
    manifestJson({ jid: JID.dormant, name: 'dormant', tools: [{ name: 'sleep' }] }),
  );
  const catalog = new MemoryCatalog()
    .add(await manifestRecord(manifestJson({ jid: JID.calendar, name: 'calendar', title: 'Calendar Agent' })))
    .add(weather)
    .add(weatherNext)
    .add(await manifestRecord(manifestJson({ jid: JID.alpha, name: 'alpha' })))
    .add(secret, onlyTo('romeo@example.net'))
    .add(dormant)
    .activate(JID.dormant, undefined);
  return { catalog, weather, weatherNext, secret, dormant };
}
