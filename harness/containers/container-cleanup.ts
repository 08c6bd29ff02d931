// Containers and networks must not outlive the process that created them, however it ends.
// Two layers, like the native provider's:
//   - a synchronous exit cleanup (normal exit, uncaught error, SIGINT/SIGTERM/SIGHUP): a short
//     Node child, run with spawnSync and given the list at once, removes what is still registered;
//   - a watchdog for the case where no JavaScript runs (SIGKILL): a detached Node process holding
//     a pipe from this one, which removes everything still registered when the pipe closes.
// testcontainers' own reaper (Ryuk) needs an image from a registry, so it is off here. Both run
// dockerode — the copy testcontainers itself loads — with the connection of the engine it found.
import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import type { Writable } from 'node:stream';

import { registerExitCleanup } from '../federation/exit-cleanup.ts';
import type { DockerConnection } from './docker-engine.ts';

/** The dockerode module testcontainers requires (a remover has no TypeScript and no testcontainers). */
const DOCKERODE_PATH = createRequire(createRequire(import.meta.url).resolve('testcontainers')).resolve(
  'dockerode',
);

/**
 * Plain JavaScript run by `node -e`, reading lines on stdin: first the remover's target (JSON:
 * dockerode's path and the connection, TLS material included — stdin, not argv, so that no key
 * shows in a process list), then `+c id`, `-c id`, `+n id`, `-n id`. When stdin closes it removes
 * the containers still listed (forced, with anonymous volumes), then the networks. JSON carries
 * Buffers as `{type: 'Buffer', data}`; they are revived.
 */
const REMOVER_SCRIPT = String.raw`
const revive = (key, value) =>
  value !== null && typeof value === 'object' && value.type === 'Buffer' && Array.isArray(value.data) ? Buffer.from(value.data) : value;
let target;
const containers = new Set(), networks = new Set();
async function removeAll() {
  if (target === undefined) return;
  // Loaded only now: a watchdog waits for hours and usually never removes anything.
  const Docker = require(target.dockerode);
  const docker = new Docker({ ...target.connection, timeout: 30000 });
  await Promise.allSettled([...containers].map((id) => docker.getContainer(id).remove({ force: true, v: true })));
  await Promise.allSettled([...networks].map((id) => docker.getNetwork(id).remove()));
}
let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let newline;
  while ((newline = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, newline);
    buffered = buffered.slice(newline + 1);
    if (target === undefined) {
      target = JSON.parse(line, revive);
      continue;
    }
    const set = line[1] === 'c' ? containers : networks;
    if (line[0] === '+') set.add(line.slice(3));
    else if (line[0] === '-') set.delete(line.slice(3));
  }
});
process.stdin.on('end', removeAll);
process.stdin.on('error', removeAll);
`;

/** The remover's first line: which dockerode, and how it reaches the engine. */
function removerTarget(connection: DockerConnection): string {
  return `${JSON.stringify({ dockerode: DOCKERODE_PATH, connection })}\n`;
}

const watchdogs = new Map<string, ChildProcessByStdio<Writable, null, null>>();

function watchdogInput(connection: DockerConnection): Writable | undefined {
  const target = removerTarget(connection);
  const existing = watchdogs.get(target);
  if (existing?.exitCode === null && existing.signalCode === null) return existing.stdin;
  try {
    const child = spawn(process.execPath, ['-e', REMOVER_SCRIPT], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    child.on('error', () => watchdogs.delete(target));
    child.stdin.on('error', () => watchdogs.delete(target));
    child.stdin.write(target);
    // Neither the watchdog nor its pipe may keep this process alive.
    child.unref();
    const pipe: unknown = child.stdin;
    if (pipe instanceof Socket) pipe.unref();
    watchdogs.set(target, child);
    return child.stdin;
  } catch {
    return undefined;
  }
}

/** Removes containers and networks now, synchronously (for exit paths, where nothing can be awaited). */
export function removeDockerResourcesSync(
  connection: DockerConnection,
  containers: readonly string[],
  networks: readonly string[],
): void {
  if (containers.length === 0 && networks.length === 0) return;
  const items = [...containers.map((id) => `+c ${id}\n`), ...networks.map((id) => `+n ${id}\n`)];
  spawnSync(process.execPath, ['-e', REMOVER_SCRIPT], {
    input: removerTarget(connection) + items.join(''),
    stdio: ['pipe', 'ignore', 'ignore'],
    timeout: 60_000,
  });
}

/**
 * What one run created in the engine. Everything registered is removed on any exit of this process
 * unless `release()` was called first (after the run removed it itself).
 */
export class DockerResourceGuard {
  readonly #connection: DockerConnection;
  readonly #containers = new Set<string>();
  readonly #networks = new Set<string>();
  readonly #forget: () => void;

  constructor(connection: DockerConnection) {
    this.#connection = connection;
    this.#forget = registerExitCleanup(() => {
      removeDockerResourcesSync(connection, [...this.#containers], [...this.#networks]);
    });
  }

  addContainer(id: string): void {
    this.#containers.add(id);
    watchdogInput(this.#connection)?.write(`+c ${id}\n`);
  }

  addNetwork(id: string): void {
    this.#networks.add(id);
    watchdogInput(this.#connection)?.write(`+n ${id}\n`);
  }

  /** The run removed its resources itself: nobody else must try. */
  release(): void {
    if (this.#containers.size > 0 || this.#networks.size > 0) {
      const input = watchdogInput(this.#connection);
      for (const id of this.#containers) input?.write(`-c ${id}\n`);
      for (const id of this.#networks) input?.write(`-n ${id}\n`);
    }
    this.#containers.clear();
    this.#networks.clear();
    this.#forget();
  }
}
