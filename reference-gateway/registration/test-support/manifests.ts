/** Manifests for registration tests, built in code or read from fixtures/manifests. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { JsonObject } from '../../../protocol/json/json-value.ts';
import { REPO_ROOT } from '../../../protocol/test-support/shared-paths.ts';
import type { Principal } from '../../policy/access-policy.ts';

export const MANIFESTS_DIR = resolve(REPO_ROOT, 'fixtures', 'manifests');
export const REFERENCE_WORLD = resolve(REPO_ROOT, 'fixtures', 'worlds', 'reference.json');

export function fixtureManifestText(name: string): string {
  return readFileSync(resolve(MANIFESTS_DIR, name), 'utf8');
}

export interface ManifestOptions {
  readonly jid?: string;
  readonly version?: string;
  readonly title?: string;
  readonly tools?: readonly JsonObject[];
}

/** A small valid manifest as an object. */
export function manifestObject(options: ManifestOptions = {}): JsonObject {
  const agent: JsonObject = {
    jid: options.jid ?? 'weather@agents.example',
    name: 'weather',
    version: options.version ?? '1.0.0',
  };
  if (options.title !== undefined) agent['title'] = options.title;
  return {
    manifestSpecVersion: '0',
    agent,
    tools: [...(options.tools ?? [{ name: 'forecast.get', inputSchema: { type: 'object' } }])],
  };
}

export function manifestText(options: ManifestOptions = {}): string {
  return JSON.stringify(manifestObject(options));
}

/** The requester shape the wiring passes: normalized bare JID and domain. */
export function principal(bareJid: string): Principal {
  return { bareJid, domain: bareJid.slice(bareJid.indexOf('@') + 1) };
}
