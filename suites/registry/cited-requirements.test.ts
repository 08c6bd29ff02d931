import { describe, expect, it } from 'vitest';
import { citedRequirementLines } from './cited-requirements.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { registryFromJson } from './registry.ts';

/** A one-entry registry document, untyped like the file it stands for. */
const document: Record<string, unknown> = {
  spec: { title: 'T', version: '0.0.5' },
  fingerprint: 'sha-256, 12 hex digits',
  fixtures: { 'access-policy': 'a world with hidden endpoints' },
  requirements: [
    {
      id: 'list-agents.octet-order',
      anchor: 'list-agents',
      level: 'MUST',
      profiles: ['core-directory'],
      role: 'gateway',
      summary: 'Items come in octet order.',
      testability: 'black-box',
      sources: [
        { anchor: 'list-agents', sentence: '0123456789ab' },
        { anchor: 'rsm', sentence: 'ba9876543210' },
      ],
    },
  ],
};
const registry = registryFromJson(document as JsonValue, 'test');

describe('citedRequirementLines', () => {
  it('gives each cited requirement its summary and every spec sentence it comes from', () => {
    expect(citedRequirementLines(['list-agents.octet-order', 'list-agents.nowhere'], registry)).toEqual([
      'list-agents.octet-order (MUST): Items come in octet order.',
      '  spec 0.0.5 #list-agents, sentence 0123456789ab',
      '  spec 0.0.5 #rsm, sentence ba9876543210',
      'list-agents.nowhere: not in the requirement registry',
    ]);
  });

  it('reads the committed registry by default', () => {
    const [first] = citedRequirementLines(['json-encoding.canonical-replay-comparison']);
    expect(first).toMatch(/^json-encoding\.canonical-replay-comparison \((MUST|SHOULD|MAY)\): \S/);
  });
});
