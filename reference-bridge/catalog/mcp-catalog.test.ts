// #mcp-mapping, #tool-info: the bridge lists each pinned tool as an MCP Tool that keeps the MCP
// members the manifest has, leaves absent ones absent, and names its remote target in _meta.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isJsonObject, type JsonObject } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { PinnedCatalog } from '../../reference-caller/catalog/pinned-catalog.ts';
import { REPO_ROOT_FOR_TESTS } from '../../reference-caller/test-support/repo-root.ts';
import { scriptedQuerier } from '../../reference-caller/test-support/scripted-querier.ts';
import { scriptedWorld } from '../../reference-caller/test-support/scripted-world.ts';
import { McpCatalog } from './mcp-catalog.ts';
import { TARGET_META_KEY } from './mcp-tool.ts';

const CONFORMANCE = 'conformance@agents.example';
const manifest = parseStrictJson(readFileSync(`${REPO_ROOT_FOR_TESTS}/fixtures/manifests/conformance.json`));
if (!isJsonObject(manifest)) throw new Error('fixture manifest is not an object');
const manifestTools = manifest['tools'] as JsonObject[];

function catalogFor() {
  const { querier } = scriptedQuerier(scriptedWorld(manifest as JsonObject));
  return new McpCatalog(new PinnedCatalog(querier, [{ jid: CONFORMANCE }], () => undefined));
}

describe('McpCatalog', () => {
  it('keeps the MCP members the manifest has and leaves absent ones absent', async () => {
    const catalog = catalogFor();
    const listed = await catalog.list();
    const counter = listed.find((entry) => entry.name === 'counter')?.mcp;
    const script = listed.find((entry) => entry.name === 'script')?.mcp;
    expect(counter && Object.hasOwn(counter, 'execution')).toBe(false);
    expect(script?.['execution']).toEqual({ taskSupport: 'optional' });
    expect(script?.['annotations']).toEqual(
      manifestTools.find((tool) => tool['name'] === 'script')?.['annotations'],
    );
    expect(script && Object.hasOwn(script, 'outputSchema')).toBe(false);
    expect((script?.['_meta'] as JsonObject)[TARGET_META_KEY]).toEqual({
      jid: CONFORMANCE,
      version: '1.0.0',
      tool: 'script',
    });
  });

  it('finds a listed tool by its MCP name, listing first when nothing was listed', async () => {
    const catalog = catalogFor();
    expect((await catalog.find('script'))?.tool.remote.tool).toBe('script');
    expect(await catalog.find('no-such-tool')).toBeUndefined();
  });
});
