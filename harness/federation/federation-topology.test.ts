import { describe, expect, it } from 'vitest';

import { addressesNeeded, componentSpecs, planTopology } from './federation-topology.ts';

describe('planTopology', () => {
  const addresses = ['127.1.0.1', '127.1.0.2', '127.1.0.3', '127.1.0.4', '127.1.0.5'];

  it("routes each s2s direction through its proxy and the gateway through the component's", () => {
    const { servers, links } = planTopology(addresses, false);
    const [a, b] = servers;
    expect(a?.role).toBe('a');
    expect(b?.role).toBe('b');
    // A reaches B's domains through the A→B proxy, its own domain directly.
    expect(Object.fromEntries(a?.routes ?? [])).toEqual({
      'example.com': '127.1.0.1',
      'server.example': '127.1.0.3',
      'agents.example': '127.1.0.3',
      'target.example': '127.1.0.3',
    });
    expect(Object.fromEntries(b?.routes ?? [])).toEqual({
      'example.com': '127.1.0.4',
      'server.example': '127.1.0.2',
      'agents.example': '127.1.0.2',
      'target.example': '127.1.0.2',
    });
    expect(links).toEqual([
      {
        name: 's2sAToB',
        listen: { host: '127.1.0.3', port: 5269 },
        target: { host: '127.1.0.2', port: 5269 },
      },
      {
        name: 's2sBToA',
        listen: { host: '127.1.0.4', port: 5269 },
        target: { host: '127.1.0.1', port: 5269 },
      },
      {
        name: 'component',
        listen: { host: '127.1.0.5', port: 5347 },
        target: { host: '127.1.0.2', port: 5347 },
      },
    ]);
  });

  it('reaches the hostile server directly, and lets it reach the others directly', () => {
    const { servers } = planTopology([...addresses, '127.1.0.6'], true);
    expect(servers.map((server) => server.role)).toEqual(['a', 'b', 'hostile']);
    const [a, b, hostile] = servers;
    expect(a?.routes.get('hostile.example')).toBe('127.1.0.6');
    expect(b?.routes.get('hostile.example')).toBe('127.1.0.6');
    expect(Object.fromEntries(hostile?.routes ?? [])).toEqual({
      'example.com': '127.1.0.1',
      'server.example': '127.1.0.2',
      'agents.example': '127.1.0.2',
      'target.example': '127.1.0.2',
      'hostile.example': '127.1.0.6',
    });
    expect(hostile?.virtualHosts).toEqual(['hostile.example']);
  });

  it("puts a pair's second gateway on server A, reached from B through the B→A proxy", () => {
    const { servers, links } = planTopology([...addresses, '127.1.0.6', '127.1.0.7'], true, true);
    const [a, b, hostile] = servers;
    expect(a?.componentDomains).toEqual(['agents.example.com']);
    expect(b?.componentDomains).toEqual(['agents.example', 'target.example']);
    expect(a?.routes.get('agents.example.com')).toBe('127.1.0.1');
    expect(b?.routes.get('agents.example.com')).toBe('127.1.0.4');
    expect(hostile?.routes.get('agents.example.com')).toBe('127.1.0.1');
    expect(links.at(-1)).toEqual({
      name: 'pairComponent',
      listen: { host: '127.1.0.7', port: 5347 },
      target: { host: '127.1.0.1', port: 5347 },
    });
    expect(planTopology([...addresses, '127.1.0.6'], false, true).links.at(-1)?.listen.host).toBe(
      '127.1.0.6',
    );
  });

  it('gives the second gateway a secret of its own', () => {
    expect(componentSpecs(['agents.example', 'agents.example.com'], 'one', 'two')).toEqual([
      { domain: 'agents.example', secret: 'one', listed: true },
      { domain: 'agents.example.com', secret: 'two', listed: true },
    ]);
    expect(() => componentSpecs(['agents.example.com'], 'one')).toThrow(/no component secret/);
  });

  it('insists on the number of addresses it needs', () => {
    expect(addressesNeeded(false)).toBe(5);
    expect(addressesNeeded(true)).toBe(6);
    expect(addressesNeeded(true, true)).toBe(7);
    expect(() => planTopology(addresses, true)).toThrow(/needs 6 addresses/);
  });
});
