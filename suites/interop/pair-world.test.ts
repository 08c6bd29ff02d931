import { describe, expect, it } from 'vitest';

import { inlineWorldFile } from '../../protocol/fixture-world-file.ts';
import { REPO_ROOT } from '../../protocol/test-support/shared-paths.ts';
import { mirrorAddress, mirrorAddresses, pairAccounts, pairWorld } from './pair-world.ts';

const reference = inlineWorldFile(`${REPO_ROOT}/fixtures/worlds/reference.json`);

describe('the fixture worlds of an interop pair', () => {
  it('mirrors the gateway domain and swaps the two user domains, leaving others alone', () => {
    expect(mirrorAddress('weather@agents.example')).toBe('weather@agents.example.com');
    expect(mirrorAddress('agents.example')).toBe('agents.example.com');
    expect(mirrorAddress('alice@example.com')).toBe('alice@server.example');
    expect(mirrorAddress('server.example')).toBe('example.com');
    expect(mirrorAddress('mallory@hostile.example')).toBe('mallory@hostile.example');
  });

  it('gives gateway B the reference world as it is and gateway A its mirror image', () => {
    const worldB = pairWorld(reference, 'b') as { grants: unknown[]; endpoints: unknown };
    expect(worldB.endpoints).toBe((reference as { endpoints: unknown }).endpoints);
    // Each side lets the other gateway's domain call its conformance endpoint, nothing more.
    expect(worldB.grants.at(-1)).toEqual({
      domain: 'agents.example.com',
      see: ['conformance@agents.example'],
      invoke: ['conformance@agents.example'],
    });
    expect((pairWorld(reference, 'a') as { grants: unknown[] }).grants.at(-1)).toEqual({
      domain: 'agents.example',
      see: ['conformance@agents.example.com'],
      invoke: ['conformance@agents.example.com'],
    });
    const mirrored = JSON.stringify(pairWorld(reference, 'a'));
    expect(mirrored).not.toMatch(/@agents\.example"/);
    expect(mirrored).toContain('"principal":"alice@server.example"');
    expect(mirrored).toContain('"domain":"example.com"');
    // Tools are untouched: the same names and schemas on both sides.
    const toolNames = (world: string): string[] =>
      [...world.matchAll(/"name":"([^"]+)","title"/g)].map((m) => m[1] ?? '');
    expect(toolNames(mirrored)).toEqual(toolNames(JSON.stringify(reference)));
  });

  it('mirrors the addresses a SUT file writes into its config, keys included, and nothing else', () => {
    expect(
      mirrorAddresses({
        localDomains: ['server.example'],
        maxActiveTasksOf: { 'prober@server.example': 5 },
        chat: ['conformance@{componentDomain}'],
        note: 'server.example users',
      }),
    ).toEqual({
      localDomains: ['example.com'],
      maxActiveTasksOf: { 'prober@example.com': 5 },
      chat: ['conformance@{componentDomain}'],
      note: 'server.example users',
    });
  });

  it('creates every suite account of both worlds, the hostile one once', () => {
    const jids = pairAccounts().map(({ username, domain }) => `${username}@${domain}`);
    expect(jids).toEqual(
      expect.arrayContaining(['alice@example.com', 'alice@server.example', 'bob@example.com']),
    );
    expect(jids.filter((jid) => jid === 'mallory@hostile.example')).toHaveLength(1);
    expect(new Set(jids).size).toBe(jids.length);
  });
});
