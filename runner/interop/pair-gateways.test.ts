import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAIR_COMPONENT_DOMAIN } from '../../harness/federation/domains.ts';
import type { Federation } from '../../harness/federation/server-provider.ts';
import { loadSutConfig } from '../../harness/sut/sut-config.ts';
import { sutConfigForSide } from './pair-gateways.ts';

const REFERENCE_SUT = join(import.meta.dirname, '..', '..', 'fixtures', 'sut', 'reference-gateway.json');

/** Only what sutConfigForSide reads of a pair federation: its two component links. */
const pair = {
  component: { domain: 'agents.example' },
  pairComponent: { domain: PAIR_COMPONENT_DOMAIN },
} as unknown as Federation;

describe('the SUT config of each side of an interop pair', () => {
  it('side B runs the file as written, on the component domain the pair gives it', async () => {
    const config = await loadSutConfig(REFERENCE_SUT);
    const b = sutConfigForSide(config, pair, 'b');
    expect(b).toEqual({ ...config, component: { ...config.component, domain: 'agents.example' } });
  });

  it('side A mirrors every address the file names for the reference world, and nothing else', async () => {
    const config = await loadSutConfig(REFERENCE_SUT);
    const a = sutConfigForSide(config, pair, 'a');
    expect(a.component.domain).toBe(PAIR_COMPONENT_DOMAIN);
    expect(a.source).toBe(config.source);
    expect(a.adminJid).toBe(config.adminJid?.replace('@server.example', '@example.com'));
    expect(Object.keys(a.limits.principalRateLimits ?? {})).toEqual(['prober@example.com']);
    expect(a.limits.rateLimits).toEqual(config.limits.rateLimits);
    const text = JSON.stringify(a.launch);
    expect(text).not.toContain('@server.example');
    expect(text).toContain('prober@example.com');
    // What is no address stays as written.
    expect(a.name).toBe(config.name);
    expect(a.timeouts).toEqual(config.timeouts);
    expect(a.profiles).toEqual(config.profiles);
  });
});
