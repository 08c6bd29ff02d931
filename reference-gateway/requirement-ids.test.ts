// The gateway names the requirement IDs it implements in comments at the handler or check
// (`// invocation.durable-before-accepted: …`), so that grepping an ID reaches the registry entry,
// the suite case and the gateway code. Every ID cited in a comment here must exist in the
// registry: a typo or a renamed requirement fails. The registry is read as a file, never imported
// (the gateway imports nothing of ours but protocol/).
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const GATEWAY = import.meta.dirname;
const REGISTRY = join(GATEWAY, '..', 'suites', 'registry', 'requirements.json');

interface Registry {
  readonly requirements: readonly { readonly id: string; readonly anchor: string }[];
}

const registry = JSON.parse(readFileSync(REGISTRY, 'utf8')) as Registry;
const IDS = new Set(registry.requirements.map((requirement) => requirement.id));
const ANCHORS = new Set(registry.requirements.map((requirement) => requirement.anchor));

/** File names (`search.ts`) share the shape of an ID; their second part is an extension. */
const EXTENSIONS = new Set(['ts', 'js', 'md', 'json', 'sql', 'xml', 'xsd', 'txt']);

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * An ID's first part is an anchor of the registry. A near miss of one counts too (a misspelt
 * anchor is a typo as well) when the second part is hyphenated like most IDs' and unlike a
 * domain's (`agents.example`).
 */
function looksLikeId(anchor: string, slug: string): boolean {
  if (EXTENSIONS.has(slug)) return false;
  if (ANCHORS.has(anchor)) return true;
  return (
    slug.includes('-') && anchor.length >= 6 && [...ANCHORS].some((known) => editDistance(anchor, known) <= 2)
  );
}

/** `anchor.slug` tokens that are not part of a longer dotted name, path or address. */
const TOKEN =
  /(?<![\w@/.-])([a-z][a-z0-9]*(?:-[a-z0-9]+)*)\.([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?![\w/(-]|\.\w)/g;

/** The requirement IDs a comment text cites (or tries to). */
export function citedIds(comment: string): string[] {
  return [...comment.matchAll(TOKEN)]
    .filter(([, anchor = '', slug = '']) => looksLikeId(anchor, slug))
    .map(([token]) => token);
}

/** Every comment of a TypeScript source, each once. */
function commentsOf(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const seen = new Map<number, string>();
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) seen.set(range.pos, text.slice(range.pos, range.end));
  };
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    ts.forEachChild(node, visit);
  };
  visit(source);
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return [...seen.values()];
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const CITATIONS = sources(GATEWAY).flatMap((path) => {
  const file = relative(GATEWAY, path);
  return commentsOf(file, readFileSync(path, 'utf8')).flatMap((comment) =>
    citedIds(comment).map((id) => ({ file, id })),
  );
});

describe('requirement IDs in gateway comments', () => {
  it('recognizes IDs and their misspellings, but not file names, addresses or dotted members', () => {
    expect(
      citedIds(
        '// invocation.durable-before-accepted: commit first; see registraton-flow.version-immutable,' +
          ' admission.ts, bob@server.example, agents.example, agent.jid, limits.rateLimits, e.g. this.',
      ),
    ).toEqual(['invocation.durable-before-accepted', 'registraton-flow.version-immutable']);
  });

  it('cites only IDs the registry defines', () => {
    const unknown = CITATIONS.filter(({ id }) => !IDS.has(id)).map(({ file, id }) => `${file}: ${id}`);
    expect(unknown).toEqual([]);
  });

  it('cites the registry throughout the gateway', () => {
    // A floor, so that a broken scan cannot pass by finding nothing.
    expect(new Set(CITATIONS.map(({ id }) => id)).size).toBeGreaterThan(100);
  });
});
