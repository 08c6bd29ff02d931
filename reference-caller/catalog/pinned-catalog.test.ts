// #find-gateway, #manifest-retrieval, #list-tools, #tool-info, #schemas, #use-case-discovery:
// the catalog verifies the gateway by its feature, pins the manifest it retrieved, walks every
// RSM page, checks each schema against two hashes, and treats a failed discovery as no evidence
// about existence.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT_FOR_TESTS } from '../test-support/repo-root.ts';
import { isJsonObject, type JsonObject } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { localNameOf } from '../../protocol/stanza/element-access.ts';
import { parseManifestRequest } from '../../protocol/stanza/index.ts';
import { scriptedQuerier } from '../test-support/scripted-querier.ts';
import { scriptedWorld, type WorldOptions } from '../test-support/scripted-world.ts';
import { PinRefused } from './manifest-pin.ts';
import { QueryFailed } from './discovery-queries.ts';
import { PinnedCatalog } from './pinned-catalog.ts';

const CONFORMANCE = 'conformance@agents.example';
const manifest = parseStrictJson(readFileSync(`${REPO_ROOT_FOR_TESTS}/fixtures/manifests/conformance.json`));
if (!isJsonObject(manifest)) throw new Error('fixture manifest is not an object');
const manifestTools = manifest['tools'] as JsonObject[];

function catalogFor(options: WorldOptions = {}, version?: string) {
  const log: string[] = [];
  const { querier, sent } = scriptedQuerier(scriptedWorld(manifest as JsonObject, options));
  const catalog = new PinnedCatalog(
    querier,
    [{ jid: CONFORMANCE, ...(version === undefined ? {} : { version }) }],
    (line) => log.push(line),
  );
  return { catalog, sent, log };
}

describe('PinnedCatalog', () => {
  it('walks every RSM page of the pinned collection and lists each tool once', async () => {
    const { catalog, sent } = catalogFor({ pageSize: 2 });
    const listed = await catalog.list();
    expect(listed.map((entry) => entry.remote.tool).toSorted()).toEqual(
      manifestTools.map((tool) => tool['name']).toSorted(),
    );
    expect(
      sent.filter(
        (iq) => localNameOf(iq.payload) === 'query' && iq.payload.attrs['xmlns']?.endsWith('#items'),
      ).length,
    ).toBe(Math.ceil(manifestTools.length / 2));
  });

  it('pins the returned version when none is configured, and asks for the configured one otherwise', async () => {
    const active = catalogFor();
    await active.catalog.list();
    const request = active.sent.find((iq) => localNameOf(iq.payload) === 'manifest-request');
    expect(request === undefined ? undefined : parseManifestRequest(request.payload)).toEqual({});
    const pinned = catalogFor({}, '1.0.0');
    await pinned.catalog.list();
    const exact = pinned.sent.find((iq) => localNameOf(iq.payload) === 'manifest-request');
    expect(exact === undefined ? undefined : parseManifestRequest(exact.payload)).toEqual({
      version: '1.0.0',
    });
    // The pin holds: a second listing asks nothing again.
    const before = pinned.sent.length;
    await pinned.catalog.list();
    expect(pinned.sent.length).toBe(before);
  });

  it('refuses a gateway without the directory feature, concludes nothing, and tries again next time', async () => {
    const { catalog, sent, log } = catalogFor({ gatewayFeatures: ['http://jabber.org/protocol/disco#info'] });
    expect(await catalog.list()).toEqual([]);
    expect(log.join('\n')).toMatch(
      /not listed this time: .*urn:xmpp:agent-directory:0.*says nothing about whether it exists/,
    );
    const before = sent.length;
    await catalog.list();
    expect(sent.length).toBeGreaterThan(before);
  });

  it('refuses a manifest whose bytes do not hash to the advertised value', async () => {
    const { catalog, log } = catalogFor({
      tamper: {
        manifest: (m) => ({
          ...m,
          hash: { algo: 'sha-256', value: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' },
        }),
      },
    });
    expect(await catalog.list()).toEqual([]);
    expect(log.join('\n')).toMatch(/do not hash to the advertised value/);
  });

  it('pins one endpoint on demand, naming what failed instead of concluding it does not exist', async () => {
    const pinned = await catalogFor({}, '1.0.0').catalog.pin({ jid: CONFORMANCE, version: '1.0.0' });
    expect(pinned.version).toBe('1.0.0');
    expect(pinned.tools.find((tool) => tool.remote.tool === 'script')?.remote).toEqual({
      jid: CONFORMANCE,
      version: '1.0.0',
      tool: 'script',
    });
    const withoutDirectory = catalogFor({ gatewayFeatures: ['http://jabber.org/protocol/disco#info'] });
    await expect(withoutDirectory.catalog.pin({ jid: CONFORMANCE })).rejects.toThrow(QueryFailed);
    const tampered = catalogFor({
      tamper: { manifest: (m) => ({ ...m, hash: { algo: 'sha-256', value: 'A'.repeat(43) + '=' } }) },
    });
    await expect(tampered.catalog.pin({ jid: CONFORMANCE })).rejects.toThrow(PinRefused);
  });
});
