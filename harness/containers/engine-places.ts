// Whether testcontainers could find a Docker engine at all, decided without loading it. Loading
// testcontainers costs 0.2–1 s of a process's start-up; on a machine with no Docker its search
// ends empty anyway. Its strategies (testcontainers 11, container-runtime/clients/client.js) look,
// in order, at tc.host and docker.host in ~/.testcontainers.properties, DOCKER_HOST, the system
// socket, and the rootless sockets (XDG_RUNTIME_DIR, ~/.docker/run, ~/.docker/desktop,
// /run/user/UID), and on Windows at a named pipe. When none of those can apply, no engine can
// answer; when any might, testcontainers itself decides. engine-places.test.ts pins the list to
// the installed version, so an upgrade that adds a place fails there, not silently here.
import { existsSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';

export interface EnginePlaceFacts {
  readonly platform: NodeJS.Platform;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home: string;
  readonly uid: number;
  readonly exists: (path: string) => boolean;
}

function factsHere(): EnginePlaceFacts {
  return {
    platform: process.platform,
    env: process.env,
    home: homedir(),
    uid: userInfo().uid,
    exists: existsSync,
  };
}

/** The Unix sockets testcontainers tries, in its order. */
export function engineSockets(facts: Pick<EnginePlaceFacts, 'env' | 'home' | 'uid'>): string[] {
  const xdg = facts.env['XDG_RUNTIME_DIR'];
  return [
    '/var/run/docker.sock',
    ...(xdg === undefined ? [] : [join(xdg, 'docker.sock')]),
    join(facts.home, '.docker', 'run', 'docker.sock'),
    join(facts.home, '.docker', 'desktop', 'docker.sock'),
    join('/run', 'user', String(facts.uid), 'docker.sock'),
  ];
}

/** True when no place testcontainers looks at can lead to an engine: then it need not be loaded. */
export function noEnginePlace(facts: EnginePlaceFacts = factsHere()): boolean {
  if (facts.platform !== 'linux' && facts.platform !== 'darwin') return false;
  if (facts.env['DOCKER_HOST'] !== undefined) return false;
  if (facts.exists(join(facts.home, '.testcontainers.properties'))) return false;
  return !engineSockets(facts).some((socket) => facts.exists(socket));
}
