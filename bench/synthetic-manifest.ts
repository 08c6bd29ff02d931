/**
 * A deterministic, realistic manifest of roughly the requested size: many tools with
 * nested input/output schemas, descriptions with non-ASCII text and numbers of every kind,
 * so that strict parsing and canonicalization do representative work.
 */
import type { JsonObject, JsonValue } from '../protocol/json/json-value.ts';

/** Small seeded PRNG (mulberry32) so every run measures the same document. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'forecast',
  'city',
  'Zürich',
  'température',
  'ветер',
  '雨',
  'humidity',
  'unit',
  'window',
  'alert',
];

function toolFor(index: number, random: () => number): JsonObject {
  const word = (): string => WORDS[Math.floor(random() * WORDS.length)] ?? 'x';
  const properties: Record<string, JsonValue> = {};
  for (let p = 0; p < 12; p++) {
    properties[`${word()}_${p}`] = {
      type: p % 3 === 0 ? 'number' : 'string',
      description: `${word()} ${word()} ${word()} — ${word()}`,
      ...(p % 3 === 0
        ? { minimum: -random() * 1e6, maximum: random() * 1e21, multipleOf: 0.001 }
        : { maxLength: 256 }),
    };
  }
  return {
    name: `tool.${index}.${word()}`,
    title: `Tool ${index}: ${word()}`,
    description: Array.from({ length: 20 }, word).join(' '),
    inputSchema: {
      type: 'object',
      properties,
      required: Object.keys(properties).slice(0, 3),
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { summary: { type: 'string' }, score: { type: 'number' } } },
    annotations: { readOnlyHint: random() < 0.5, idempotentHint: true },
    'urn:xmpp:agent-api:0': { supportsProgress: true, tags: [word(), `${word()}-${index}`] },
  };
}

export function syntheticManifest(targetBytes: number, seed = 42): JsonObject {
  const random = mulberry32(seed);
  const tools: JsonValue[] = [];
  const manifest: JsonObject = {
    manifestSpecVersion: '0',
    agent: { jid: 'bench@agents.example', name: 'bench', version: '1.0.0' },
    tools,
  };
  let size = 0;
  while (size < targetBytes) {
    const tool = toolFor(tools.length, random);
    tools.push(tool);
    // Counted as pretty-printed (the form the bench feeds in), nested two levels deep.
    size += JSON.stringify(tool, null, 2).replaceAll('\n', '\n    ').length + 6;
  }
  return manifest;
}
