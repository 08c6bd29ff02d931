/**
 * What decides a manifest's intake besides its text and the limits: the code that validates it.
 * The intake cache (intake-cache.ts) keys on this, so that an edited validator, another version
 * of a validation package or another Node.js (its regular expressions) never reads a verdict the
 * old code gave.
 *
 * The code is named by content, not by a version number a checkout does not bump: every source
 * file under SOURCE_ROOTS (the import closure of manifest-intake.ts lies inside them, which
 * intake-fingerprint.test.ts checks with esbuild), the installed version of every package of
 * that closure (PACKAGES, checked by the same test), and the Node.js version. Reading and hashing
 * these files costs a few milliseconds, once per process; validating the reference world costs
 * a few hundred.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const PACKAGE_ROOT = resolve(import.meta.dirname, '..', '..');

/** Folders (inside the package) whose every file can decide an intake. */
export const SOURCE_ROOTS: readonly string[] = [
  'protocol',
  'reference-gateway/registration',
  'reference-gateway/iq',
  'fixtures/schemas',
];

/** The packages the intake's code imports, directly or not. */
export const PACKAGES: readonly string[] = [
  '@hyperjump/browser',
  '@hyperjump/json-pointer',
  '@hyperjump/json-schema',
  '@hyperjump/pact',
  '@hyperjump/uri',
  '@xmpp/events',
  '@xmpp/xml',
  // Required at run time by protocol/json/fixed-validator.ts, which esbuild does not follow.
  'ajv',
  'content-type',
  'fast-deep-equal',
  'fast-uri',
  'json-schema-traverse',
  'just-curry-it',
  'ltx',
  'require-from-string',
  'saxes',
  'xmlchars',
];

/** Tests and their helpers never run in the gateway. */
function decides(file: string): boolean {
  return !file.endsWith('.test.ts') && !file.split('/').includes('test-support');
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * The installed version of `name` as Node.js resolves it from `root`: the nearest
 * node_modules/<name>/package.json walking up, as for a package installed inside another's
 * node_modules. A package that cannot be found is named as such, which is a key too.
 */
function installedVersion(name: string, root: string): string {
  for (let dir = root; ; dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as {
        version?: unknown;
      };
      return String(manifest.version);
    } catch {
      // Not installed here: the next folder up.
    }
    if (dirname(dir) === dir) return '(not found)';
  }
}

/** The fingerprint of the intake code under `root` (hex SHA-256). */
export function intakeCodeFingerprint(root: string = PACKAGE_ROOT): string {
  const hash = createHash('sha256');
  hash.update(`node ${process.version}\0`);
  for (const name of PACKAGES) hash.update(`package ${name}@${installedVersion(name, root)}\0`);
  for (const sourceRoot of SOURCE_ROOTS) {
    const files = filesUnder(join(root, sourceRoot))
      .map((file) => relative(root, file).split('\\').join('/'))
      .filter(decides)
      .sort();
    for (const file of files) {
      const content = readFileSync(join(root, file));
      hash.update(`file ${file} ${String(content.length)}\0`);
      hash.update(content);
    }
  }
  return hash.digest('hex');
}

let computed: string | undefined;

/** intakeCodeFingerprint of this package, computed once per process. */
export function runningIntakeFingerprint(): string {
  computed ??= intakeCodeFingerprint();
  return computed;
}
