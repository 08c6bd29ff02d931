// Finding a Docker engine that answers, and — only when asked to, as root — starting one.
//
// A machine without a running engine but with Debian's apt can get one: `docker.io` installs
// dockerd (and containerd, runc), and dockerd starts with `--iptables=false --ip-forward=false` on
// machines whose kernel (or sandbox) has no netfilter for it. Nothing else is ever touched: the
// dockerd started here is recorded by pid in a state file, and only that pid is ever stopped.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';

import { descendantsOf } from '../faults/process-tree.ts';
import { findOnPath, installDebianPackages } from '../federation/debian-packages.ts';
import { systemTool } from '../system-tools.ts';
import {
  DEFAULT_DOCKER_SOCKET,
  describeEndpoint,
  dockerEndpointCandidates,
  pingDockerEngine,
  type DockerEndpoint,
  type EngineVersion,
} from './docker-api.ts';

/** Flags for dockerd on machines where it may not (or cannot) program netfilter. */
export const DOCKERD_FLAGS: readonly string[] = ['--iptables=false', '--ip-forward=false'];
export const DOCKER_PACKAGES: readonly string[] = systemTool('docker').packages;

/** Where the pid of a dockerd started by agentconf is kept (so that `stop` ends that one only). */
export const DOCKERD_STATE_FILE = '/run/agentconf-dockerd.pid';
export const DOCKERD_LOG_FILE = '/var/log/agentconf-dockerd.log';

export interface DockerEngine extends EngineVersion {
  readonly endpoint: DockerEndpoint;
  /** True when this process (or an earlier agentconf command) started the engine. */
  readonly startedByAgentconf: boolean;
}

/** The first engine that answers, in the order testcontainers looks for one. */
export async function findDockerEngine(
  candidates: readonly DockerEndpoint[] = dockerEndpointCandidates(),
  timeoutMs = 3_000,
): Promise<DockerEngine | undefined> {
  for (const endpoint of candidates) {
    const version = await pingDockerEngine(endpoint, timeoutMs);
    if (version !== undefined) {
      const systemSocket = endpoint.kind === 'unix' && endpoint.socketPath === DEFAULT_DOCKER_SOCKET;
      return {
        endpoint,
        ...version,
        startedByAgentconf: systemSocket && (await startedDockerdPid()) !== undefined,
      };
    }
  }
  return undefined;
}

export interface DockerSetupFacts {
  /** An engine answered. */
  readonly answers: boolean;
  /** DOCKER_HOST points somewhere else: starting a local dockerd would not help. */
  readonly dockerHostSet: boolean;
  readonly dockerdPath: string | undefined;
  readonly isRoot: boolean;
  readonly hasApt: boolean;
}

export type DockerSetup =
  | { readonly action: 'use' }
  | { readonly action: 'start'; readonly install: boolean }
  | { readonly action: 'refuse'; readonly message: string };

export const START_ENGINE_HINT =
  'node bin/run-ts.js harness/containers/docker-engine-cli.ts start   # as root: installs docker.io when missing';

/** What to do to get an engine; starting (and installing) is done only as root, never with DOCKER_HOST set. */
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
  if (facts.dockerdPath === undefined && !facts.hasApt) {
    return {
      action: 'refuse',
      message: 'No Docker engine answers, dockerd is not installed and there is no apt-get to install it.',
    };
  }
  return { action: 'start', install: facts.dockerdPath === undefined };
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
 * DOCKERD_LOG_FILE, and resolves once it answers on the system socket.
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
  const endpoint: DockerEndpoint = { kind: 'unix', socketPath: DEFAULT_DOCKER_SOCKET };
  let version: EngineVersion | undefined;
  await pollUntil(
    async () => (version = await pingDockerEngine(endpoint, 1_000)) !== undefined,
    Date.now() + timeoutMs,
    100,
    () => exited !== undefined,
  );
  if (version === undefined) {
    const tail = (await readFile(DOCKERD_LOG_FILE, 'utf8').catch(() => '')).slice(-3000);
    if (pid !== undefined && exited === undefined) await stopStartedDockerEngine();
    throw new Error(
      `${exited ?? `dockerd did not answer within ${timeoutMs} ms`}; end of ${DOCKERD_LOG_FILE}:\n${tail}`,
    );
  }
  return { endpoint, ...version, startedByAgentconf: true };
}

export interface EnsureDockerEngineOptions {
  /** Start (and, as root with apt, install) dockerd when no engine answers (default false). */
  readonly start?: boolean;
  /** How long a started dockerd may take to answer (default 60 s). */
  readonly startTimeoutMs?: number;
}

/** An engine that answers; started (and installed) first only when allowed. Throws a readable message otherwise. */
export async function ensureDockerEngine(options: EnsureDockerEngineOptions = {}): Promise<DockerEngine> {
  const found = await findDockerEngine();
  if (found !== undefined) return found;
  const dockerHost = process.env['DOCKER_HOST'];
  const facts: DockerSetupFacts = {
    answers: false,
    dockerHostSet: dockerHost !== undefined && dockerHost !== '',
    dockerdPath: await findOnPath('dockerd'),
    isRoot: process.getuid?.() === 0,
    hasApt: (await findOnPath('apt-get')) !== undefined,
  };
  const setup = decideDockerSetup(facts);
  if (setup.action === 'refuse') throw new Error(setup.message);
  if (setup.action === 'use') throw new Error('unreachable: no engine answered');
  if (options.start !== true) {
    const where = dockerEndpointCandidates().map(describeEndpoint).join(', ');
    throw new Error(`No Docker engine answers (tried ${where}). Start one, e.g.:\n  ${START_ENGINE_HINT}`);
  }
  let dockerd = facts.dockerdPath;
  if (dockerd === undefined) {
    try {
      await installDebianPackages(DOCKER_PACKAGES);
    } catch (error) {
      throw new Error(
        `Installing ${DOCKER_PACKAGES.join(' ')} failed; run: apt-get install -y ${DOCKER_PACKAGES.join(' ')}`,
        {
          cause: error,
        },
      );
    }
    dockerd = await findOnPath('dockerd');
    if (dockerd === undefined) throw new Error('docker.io was installed but dockerd is not on PATH');
  }
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
