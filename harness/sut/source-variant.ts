/**
 * A variant of a gateway built from source: a copy of a source tree with text patches applied,
 * for the suite's own proofs (a gateway changed in a way the spec allows must still pass; one
 * broken in a way it forbids must fail) and for mutation testing. The original tree is never
 * touched and the gateway grows no switch for the change: the variant is different code.
 *
 * A patch is one file's part of a unified diff (a patch file, patch-file.ts), applied with
 * tolerance for reformatting (unified-diff.ts). A patch that no longer applies (the code moved
 * on) fails loudly instead of silently testing the unchanged gateway.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { applyFileDiff, type FileDiff } from './unified-diff.ts';

/** One file's hunks of a unified diff, with the diff file it came from (named when stale). */
export interface DiffPatch extends FileDiff {
  readonly source: string;
}

export interface SourceVariantSpec {
  /** Kebab-case; used in directory and report names. */
  readonly name: string;
  readonly patches: readonly DiffPatch[];
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

/** Applies `patch` to `text`; throws PatchDoesNotApply, naming the variant, when it no longer applies. */
export function applyPatch(text: string, patch: DiffPatch, variant: string): string {
  const result = applyFileDiff(text, patch);
  if (result.ok) return result.text;
  const hunk = patch.hunks[result.hunk];
  const expected = hunk?.lines.find((line) => line.startsWith('-')) ?? hunk?.lines[0] ?? '';
  throw new PatchDoesNotApply(
    `variant ${variant}: ${patch.source}, hunk ${String(result.hunk + 1)} of ${patch.file} (${hunk?.header ?? ''}): ${result.reason}: ${JSON.stringify(expected.slice(1, 121))}`,
  );
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
