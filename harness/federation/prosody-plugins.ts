// The harness's own Prosody modules (prosody-plugins/, Lua): each server of a run loads them from
// `<instance dir>/plugins` (docs/federation.md, "Blocking").
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE_DIR = fileURLToPath(new URL('prosody-plugins', import.meta.url));

/** Where an instance's config (renderProsodyConfig) looks for the modules. */
export function prosodyPluginDir(instanceDir: string): string {
  return join(instanceDir, 'plugins');
}

/** Copies the modules into `<instanceDir>/plugins`, the directory the instance's config names. */
export async function installProsodyPlugins(instanceDir: string): Promise<void> {
  await cp(SOURCE_DIR, prosodyPluginDir(instanceDir), { recursive: true });
}
