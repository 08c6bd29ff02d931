// Finding a Docker engine that answers, and — only when asked to, as root — starting one.
//
// The engine is the one testcontainers finds (its strategies: DOCKER_HOST or
// ~/.testcontainers.properties, the system socket, the rootless sockets), through its
// container-runtime client: the engine agentconf inspects is always the one its containers run on.
// A machine without a running engine but with Debian's apt can get one: the system-tools table's
// `docker` entry (docker.io: dockerd, containerd, runc) is installed by the shared installer, and
// dockerd starts with `--iptables=false --ip-forward=false` on machines whose kernel (or sandbox)
// has no netfilter for it. Nothing else is ever touched: the dockerd started here is recorded by
// pid in a state file, and only that pid is ever stopped.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';

import type { ContainerRuntimeClient } from 'testcontainers';

import { descendantsOf } from '../faults/process-tree.ts';
import { ensureSoftware, findOnPath } from '../federation/debian-packages.ts';
import { systemTool } from '../system-tools.ts';
import { noEnginePlace } from './engine-places.ts';
import { dockerClient, loadTestcontainers } from './testcontainers-loader.ts';

/** Flags for dockerd on machines where it may not (or cannot) program netfilter. */
export const DOCKERD_FLAGS: readonly string[] = ['--iptables=false', '--ip-forward=false'];
/** Where a dockerd started here listens (dockerd's default). */
export const DEFAULT_DOCKER_SOCKET = '/var/run/docker.sock';

/** Where the pid of a dockerd started by agentconf is kept (so that `stop` ends that one only). */
export const DOCKERD_STATE_FILE = '/run/agentconf-dockerd.pid';
export const DOCKERD_LOG_FILE = '/var/log/agentconf-dockerd.log';

/**
 * How another process reaches the engine: dockerode's connection options, as plain data (the
 * exit-time remover in container-cleanup.ts runs in a process of its own).
 */
export interface DockerConnection {
  readonly socketPath?: string;
  readonly host?: string;
  readonly port?: string | number;
  readonly protocol?: string;
  readonly ca?: unknown;
  readonly cert?: unknown;
  readonly key?: unknown;
}

export interface DockerEngine {
  readonly version: string;
  readonly apiVersion: string;
  /** Where it answers, as a URL (unix:///var/run/docker.sock, tcp://10.0.0.5:2375). */
  readonly where: string;
  readonly connection: DockerConnection;
  /** True when this process (or an earlier agentconf command) started the engine. */
  readonly startedByAgentconf: boolean;
}

const CONNECTION_KEYS = ['socketPath', 'host', 'port', 'protocol', 'ca', 'cert', 'key'] as const;

/** The connection the client's dockerode uses (its modem keeps the options it was given). */
export function connectionOf(client: ContainerRuntimeClient): DockerConnection {
  const modem = new Map<string, unknown>(Object.entries(client.container.dockerode.modem));
  const connection: Record<string, unknown> = {};
  for (const key of CONNECTION_KEYS) {
    const value = modem.get(key);
    if (value !== undefined && value !== null) connection[key] = value;
  }
  return connection;
}

export function describeConnection(connection: DockerConnection): string {
  if (connection.socketPath !== undefined) return `unix://${connection.socketPath}`;
  const scheme = connection.protocol === 'https' ? 'https' : 'tcp';
  return `${scheme}://${connection.host ?? ''}:${String(connection.port ?? '')}`;
}

/** `promise`'s value, or undefined when it rejects or takes longer than `timeoutMs`. */
async function withinDeadline<T>(promise: Promise<T>, timeoutMs: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      resolve(undefined);
    }, timeoutMs);
  });
  try {
    return await Promise.race([promise.catch(() => undefined), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export interface FindDockerEngineOptions {
  /** How long the engine may take to answer (default 3 s). */
  readonly timeoutMs?: number;
  /** The client to ask (default: testcontainers' client, found once per process). */
  readonly connect?: () => Promise<ContainerRuntimeClient>;
}

/** The engine testcontainers finds, if it answers within the time allowed. */
export async function findDockerEngine(
  options: FindDockerEngineOptions = {},
): Promise<DockerEngine | undefined> {
  const timeoutMs = options.timeoutMs ?? 3_000;
  if (options.connect === undefined) {
    // Nowhere testcontainers looks could an engine be: no need to load it to hear that.
    if (noEnginePlace()) return undefined;
    // Loading testcontainers is not the engine's time to answer (it takes seconds on a busy machine).
    await loadTestcontainers();
  }
  const client = await withinDeadline((options.connect ?? dockerClient)(), timeoutMs);
  if (client === undefined) return undefined;
  // testcontainers keeps the client it found: an engine gone since then answers no more.
  const version = await withinDeadline(client.container.dockerode.version(), timeoutMs);
  if (version === undefined) return undefined;
  const connection = connectionOf(client);
  return {
    version: version.Version,
    apiVersion: version.ApiVersion,
    where: describeConnection(connection),
    connection,
    startedByAgentconf:
      connection.socketPath === DEFAULT_DOCKER_SOCKET && (await startedDockerdPid()) !== undefined,
  };
}

export interface DockerSetupFacts {
  /** An engine answered. */
  readonly answers: boolean;
  /** DOCKER_HOST points somewhere else: starting a local dockerd would not help. */
  readonly dockerHostSet: boolean;
  readonly isRoot: boolean;
}

export type DockerSetup =
  | { readonly action: 'use' }
  | { readonly action: 'start' }
  | { readonly action: 'refuse'; readonly message: string };

export const START_ENGINE_HINT =
  'node bin/run-ts.js harness/containers/docker-engine-cli.ts start   # as root: installs docker.io when missing';

/**
 * What to do to get an engine; starting is done only as root, never with DOCKER_HOST set.
 * Installing dockerd, when it is missing, is the system-tools installer's decision (root, apt-get).
 */
export function decideDockerSetup(facts: DockerSetupFacts): DockerSetup {
  if (facts.answers) return { action: 'use' };
  if (facts.dockerHostSet) {
    return {
      action: 'refuse',
      message:
        'No Docker engine answers at DOCKER_HOST. Start that engine, or unset DOCKER_HOST to use a local one.',
    };
  }
  if (!facts.isRoot) {
    return {
      action: 'refuse',
      message:
        'No Docker engine answers, and only root may start one here. Start Docker (e.g. `sudo systemctl start docker`), or as root run:\n  ' +
        START_ENGINE_HINT,
    };
  }
  return { action: 'start' };
}

async function startedDockerdPid(): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(DOCKERD_STATE_FILE, 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number(text.trim());
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return (await isDockerd(pid)) ? pid : undefined;
}

async function isDockerd(pid: number): Promise<boolean> {
  try {
    return (await readFile(`/proc/${pid}/comm`, 'utf8')).trim() === 'dockerd';
  } catch {
    return false;
  }
}

async function isAlive(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Polls `condition` every `intervalMs` until it holds or `deadline` passes (waits on a condition, not a time). */
async function pollUntil(
  condition: () => Promise<boolean>,
  deadline: number,
  intervalMs = 50,
  abandon?: () => boolean,
): Promise<boolean> {
  for (;;) {
    if (await condition()) return true;
    if (Date.now() >= deadline || abandon?.() === true) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Starts dockerd detached (it outlives this process: `stopStartedDockerEngine` ends it), logging to
 * DOCKERD_LOG_FILE, and resolves once testcontainers finds it answering (on the system socket:
 * DOCKER_HOST is unset whenever dockerd is started here).
 */
async function startDockerd(dockerdPath: string, timeoutMs: number): Promise<DockerEngine> {
  const log = openSync(DOCKERD_LOG_FILE, 'a');
  let exited: string | undefined;
  let pid: number | undefined;
  try {
    const child = spawn(dockerdPath, [...DOCKERD_FLAGS], { detached: true, stdio: ['ignore', log, log] });
    child.on('exit', (code, signal) => {
      exited = `dockerd exited (code ${String(code)}, signal ${String(signal)})`;
    });
    child.on('error', (error) => {
      exited = `dockerd could not be started: ${error.message}`;
    });
    child.unref();
    pid = child.pid;
  } finally {
    closeSync(log);
  }
  if (pid !== undefined) await writeFile(DOCKERD_STATE_FILE, `${pid}\n`);
  let engine: DockerEngine | undefined;
  await pollUntil(
    async () => (engine = await findDockerEngine({ timeoutMs: 1_000 })) !== undefined,
    Date.now() + timeoutMs,
    100,
    () => exited !== undefined,
  );
  if (engine === undefined) {
    const tail = (await readFile(DOCKERD_LOG_FILE, 'utf8').catch(() => '')).slice(-3000);
    if (pid !== undefined && exited === undefined) await stopStartedDockerEngine();
    throw new Error(
      `${exited ?? `dockerd did not answer within ${timeoutMs} ms`}; end of ${DOCKERD_LOG_FILE}:\n${tail}`,
    );
  }
  return engine;
}

export interface EnsureDockerEngineOptions {
  /** Start (and, as root with apt-get, install) dockerd when no engine answers (default false). */
  readonly start?: boolean;
  /** How long a started dockerd may take to answer (default 60 s). */
  readonly startTimeoutMs?: number;
}

/** Where testcontainers looks for an engine, in its order (for the message when none answers). */
const ENGINE_PLACES =
  'DOCKER_HOST or ~/.testcontainers.properties, /var/run/docker.sock, the rootless sockets';

/** An engine that answers; started (and installed) first only when allowed. Throws a readable message otherwise. */
export async function ensureDockerEngine(options: EnsureDockerEngineOptions = {}): Promise<DockerEngine> {
  const found = await findDockerEngine();
  if (found !== undefined) return found;
  const dockerHost = process.env['DOCKER_HOST'];
  const setup = decideDockerSetup({
    answers: false,
    dockerHostSet: dockerHost !== undefined && dockerHost !== '',
    isRoot: process.getuid?.() === 0,
  });
  if (setup.action === 'refuse') throw new Error(setup.message);
  if (setup.action === 'use') throw new Error('unreachable: no engine answered');
  if (options.start !== true) {
    throw new Error(
      `No Docker engine answers (testcontainers looked at ${ENGINE_PLACES}). Start one, e.g.:\n  ${START_ENGINE_HINT}`,
    );
  }
  // Any dockerd will do (docker-ce's too): the table's docker.io is installed only when there is none.
  const dockerd = (await findOnPath('dockerd')) ?? (await ensureSoftware(systemTool('docker')));
  return startDockerd(dockerd, options.startTimeoutMs ?? 60_000);
}

/**
 * Stops the dockerd that agentconf started (SIGTERM: it stops its containers and its containerd),
 * and waits until it is gone. Returns false when there was none; an engine started by anyone else
 * is never touched.
 */
export async function stopStartedDockerEngine(timeoutMs = 60_000): Promise<boolean> {
  const pid = await startedDockerdPid();
  if (pid === undefined) {
    await rm(DOCKERD_STATE_FILE, { force: true });
    return false;
  }
  // Its containerd (and shims) are waited for too: dockerd stops them, they end a little later.
  const family = [pid, ...descendantsOf(pid)];
  process.kill(pid, 'SIGTERM');
  const allGone = async (): Promise<boolean> => {
    for (const member of family) if (await isAlive(member)) return false;
    return true;
  };
  const gone = await pollUntil(allGone, Date.now() + timeoutMs);
  if (!gone) throw new Error(`dockerd (pid ${pid}) or its children did not stop within ${timeoutMs} ms`);
  await rm(DOCKERD_STATE_FILE, { force: true });
  return true;
}
