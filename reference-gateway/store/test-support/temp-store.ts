/** Gateway stores in throw-away directories, for tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayStore } from '../gateway-store.ts';

export interface TempStoreDir {
  readonly path: string;
  /** Opens (or reopens) the store in this directory. */
  open(now?: () => number): GatewayStore;
  /** Closes every store opened here and deletes the directory. */
  remove(): void;
}

/** A fixed clock: 2026-07-27T19:00:00Z, moved only by tests that say so. */
export const FIXED_NOW = Date.UTC(2026, 6, 27, 19, 0, 0);

export function tempStoreDir(): TempStoreDir {
  const dir = mkdtempSync(join(tmpdir(), 'agentconf-store-'));
  const path = join(dir, 'gateway.sqlite');
  const opened: GatewayStore[] = [];
  return {
    path,
    open(now = () => FIXED_NOW) {
      const store = GatewayStore.open(path, { now });
      opened.push(store);
      return store;
    },
    remove() {
      for (const store of opened) store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
