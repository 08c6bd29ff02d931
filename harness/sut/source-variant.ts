/**
 * A variant of a gateway built from source: a copy of a source tree with text patches applied,
 * for the suite's own proofs (a gateway changed in a way the spec allows must still pass; one
 * broken in a way it forbids must fail) and for mutation testing. The original tree is never
 * touched and the gateway grows no switch for the change: the variant is different code.
 *
 * A patch names a file, an exact text that must occur there exactly once, and its replacement.
 * A patch whose text no longer occurs (the code moved on) fails loudly instead of silently
 * testing the unchanged gateway.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';

export interface SourcePatch {
  /** Path relative to the tree's root. */
  readonly file: string;
  /** Exact text that occurs once in the file. */
  readonly find: string;
  readonly replace: string;
}

export interface SourceVariantSpec {
  /** Kebab-case; used in directory and report names. */
  readonly name: string;
  readonly patches: readonly SourcePatch[];
  /** Files to add (path relative to the root → content), e.g. a wrapper entry point. */
  readonly addFiles?: Readonly<Record<string, string>>;
}

export class PatchDoesNotApply extends Error {
  override readonly name = 'PatchDoesNotApply';
}

export interface SourceVariant {
  readonly name: string;
  /** The patched copy's root. */
  readonly root: string;
  remove(): void;
}

/** Top-level entries never copied: dependencies are linked, output and history are left out. */
const SKIPPED = new Set(['node_modules', '.git', 'reports', 'coverage']);

/** Applies `patch` to `text`; throws PatchDoesNotApply unless its `find` occurs exactly once. */
export function applyPatch(text: string, patch: SourcePatch, variant: string): string {
  const first = text.indexOf(patch.find);
  if (first === -1 || text.includes(patch.find, first + 1)) {
    const count = first === -1 ? 'no longer occurs' : 'occurs more than once';
    throw new PatchDoesNotApply(
      `variant ${variant}: the text to replace in ${patch.file} ${count}: ${JSON.stringify(patch.find.slice(0, 120))}`,
    );
  }
  return text.slice(0, first) + patch.replace + text.slice(first + patch.find.length);
}

/** Copies `sourceRoot` (without dependencies and output) and applies the variant's patches. */
export function buildSourceVariant(sourceRoot: string, spec: SourceVariantSpec): SourceVariant {
  const root = mkdtempSync(join(tmpdir(), `agentconf-variant-${spec.name}-`));
  try {
    cpSync(sourceRoot, root, {
      recursive: true,
      filter: (path) => {
        const inside = relative(sourceRoot, path);
        return inside === '' || !SKIPPED.has(inside.split(sep)[0] ?? '');
      },
    });
    const modules = join(sourceRoot, 'node_modules');
    if (existsSync(modules)) symlinkSync(modules, join(root, 'node_modules'), 'dir');
    for (const patch of spec.patches) {
      const file = resolve(root, patch.file);
      if (!existsSync(file))
        throw new PatchDoesNotApply(`variant ${spec.name}: ${patch.file} does not exist`);
      writeFileSync(file, applyPatch(readFileSync(file, 'utf8'), patch, spec.name));
    }
    for (const [path, content] of Object.entries(spec.addFiles ?? {}))
      writeFileSync(resolve(root, path), content);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return {
    name: spec.name,
    root,
    remove: () => {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
