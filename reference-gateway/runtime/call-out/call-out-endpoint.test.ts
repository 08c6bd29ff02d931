// docs/gateway-config.md "Call-out": the declared endpoint joins the world active, with the
// built-in manifest and the call-out runtime; a world that already lists its JID is refused.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../protocol/json/config-file.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import { parseFixtureWorld } from '../../config/fixture-world.ts';
import { withCallOutEndpoint } from './call-out-endpoint.ts';
import { CALL_OUT_TOOL, CALL_OUT_VERSION } from './call-out-manifest.ts';

const CALL_OUT = { endpoint: 'caller@agents.example', iqTimeoutMs: 1000, pollMs: 1000 };

describe('withCallOutEndpoint', () => {
  it('adds the endpoint, active, run by the call-out runtime, with conformance.call-out', () => {
    const world = withCallOutEndpoint(undefined, CALL_OUT, 'gateway.json');
    const [endpoint] = world.endpoints;
    expect(endpoint).toMatchObject({ jid: CALL_OUT.endpoint, active: CALL_OUT_VERSION, runtime: 'call-out' });
    expect(world.endpointRuntimes.get(CALL_OUT.endpoint)).toBe('call-out');
    const manifest = parseStrictJson(endpoint?.versions[0]?.text ?? '') as {
      agent: { jid: string };
      tools: { name: string }[];
    };
    expect(manifest.agent.jid).toBe(CALL_OUT.endpoint);
    expect(manifest.tools.map((tool) => tool.name)).toEqual([CALL_OUT_TOOL]);
  });

  it('refuses a world that already lists the endpoint', () => {
    const world = parseFixtureWorld(
      {
        endpoints: [
          {
            jid: CALL_OUT.endpoint,
            versions: [{ manifest: { manifestSpecVersion: '0', agent: {}, tools: [] } }],
          },
        ],
      },
      { source: 'world.json', baseDir: '/' },
    );
    expect(() => withCallOutEndpoint(world, CALL_OUT, 'gateway.json')).toThrow(ConfigError);
  });
});
