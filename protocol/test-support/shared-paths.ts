/**
 * Where the team's shared spec and external vectors live. They sit beside the checkout in
 * our workspace (../shared); a user's fresh clone has none, and tests that need them
 * announce loudly that they did not run instead of passing.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

export const SHARED_DIR = process.env['AGENTCONF_SHARED'] ?? resolve(REPO_ROOT, '..', 'shared');
export const SPEC_PATH = resolve(SHARED_DIR, 'spec', 'protoxep-xmpp-agent-gateway.xml');
export const JCS_VECTORS_DIR = resolve(SHARED_DIR, 'vectors', 'jcs', 'testdata');
export const JSON_SCHEMA_SUITE_DIR = resolve(SHARED_DIR, 'vectors', 'json-schema-test-suite');

/** True when the path exists; otherwise prints a warning that names what did not run. */
export function sharedAvailable(path: string, what: string): boolean {
  if (existsSync(path)) return true;
  process.stderr.write(`\n*** NOT RUN: ${what} — ${path} is absent (set AGENTCONF_SHARED) ***\n\n`);
  return false;
}

export { REPO_ROOT };
