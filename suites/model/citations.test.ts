/**
 * Every requirement the model cites is in the registry, and every interpretation it cites is
 * one of docs/interpretations.md's: a renamed or mistyped ID would make a verdict point nowhere.
 * The scan reads the model's sources, so branches no other test reaches are covered too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { committedRegistry } from '../registry/registry.ts';

const MODEL_DIR = import.meta.dirname;
const sources = readdirSync(MODEL_DIR)
  .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
  .map((name) => readFileSync(join(MODEL_DIR, name), 'utf8'));

describe('the model cites what exists', () => {
  const registry = committedRegistry();
  const anchors = new Set(registry.requirements.map((entry) => entry.anchor));

  it('every quoted anchor.name string is a registry requirement', () => {
    const cited = new Set(
      sources.flatMap((text) =>
        [...text.matchAll(/'([a-z0-9-]+)\.([a-z0-9-]+)'/g)].filter((match) => anchors.has(match[1] ?? '')),
      ),
    );
    const ids = [...cited].map((match) => match[0].slice(1, -1));
    expect(ids.length).toBeGreaterThan(40);
    for (const id of ids) expect(() => registry.requirement(id), id).not.toThrow();
  });

  it('every interp-NN names an entry of the interpretations', () => {
    const known = new Set(registry.requirements.flatMap((entry) => entry.interpretations));
    const cited = new Set(
      sources.flatMap((text) => [...text.matchAll(/interp-\d\d/g)].map((match) => match[0])),
    );
    expect(cited.size).toBeGreaterThan(10);
    for (const id of cited) expect(known.has(id), id).toBe(true);
  });
});
