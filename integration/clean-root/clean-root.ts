// A fresh Debian root for tests that must prove what works on a newly provisioned machine, not on
// this one (README.md in this folder): make-root copies it from a cached template, in-root runs
// shell scripts in it, dispose removes it.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { constants, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, normalize } from 'node:path';

const MAKE_ROOT = join(import.meta.dirname, 'make-root');
const IN_ROOT = join(import.meta.dirname, 'in-root');

export interface RunOptions {
  /** The working folder inside the root (default /root). */
  readonly cwd?: string;
  /** Added to the clean environment (PATH, HOME=/root, LANG=C.UTF-8, TERM). */
  readonly env?: Record<string, string>;
  /** A host file that receives the output as it comes, so that a failed proof keeps its log. */
  readonly logFile?: string;
}

export interface RunResult {
  /** The script's exit code; 128+N when signal N ended it. */
  readonly exitCode: number;
  /** Its standard output and standard error, interleaved as they came. */
  readonly output: string;
}

export interface CleanRoot {
  /** The root's folder on the host. */
  readonly dir: string;
  /** Runs a bash script as root inside the root (in-root: its own mounts and processes). */
  run(script: string, options?: RunOptions): Promise<RunResult>;
  /** Copies a host file or folder to an absolute path inside the root. */
  copyIn(hostPath: string, rootPath: string): Promise<void>;
  /** Removes the root; refuses while anything is still mounted inside it. */
  dispose(): Promise<void>;
}

/** Where the copies go: /var/tmp, where a root of about a gigabyte fits, when the machine has it. */
function copiesFolder(): string {
  return existsSync('/var/tmp') ? '/var/tmp' : tmpdir();
}

/** Where a path inside the root is on the host; `..` stops at the root's top, as it does inside. */
function insideRoot(dir: string, rootPath: string): string {
  if (!isAbsolute(rootPath)) throw new Error(`${rootPath} is not an absolute path inside the root`);
  return join(dir, normalize(rootPath));
}

async function mountsUnder(dir: string): Promise<string[]> {
  const mounts = await readFile('/proc/self/mounts', 'utf8');
  return mounts
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .filter((target) => target === dir || target.startsWith(`${dir}/`));
}

function runProcess(command: string, args: readonly string[], logFile?: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const log = logFile === undefined ? undefined : createWriteStream(logFile, { flags: 'a' });
    const chunks: Buffer[] = [];
    const take = (chunk: Buffer): void => {
      chunks.push(chunk);
      log?.write(chunk);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', reject);
    log?.on('error', reject);
    child.on('close', (code, signal) => {
      const exitCode = code ?? 128 + (signal === null ? 0 : constants.signals[signal]);
      const result = { exitCode, output: Buffer.concat(chunks).toString('utf8') };
      if (log === undefined) {
        resolve(result);
        return;
      }
      log.end(() => {
        resolve(result);
      });
    });
  });
}

/** Makes a fresh root (the first call on a machine builds the template: minutes; later: a copy). */
export async function createCleanRoot(): Promise<CleanRoot> {
  const parent = await mkdtemp(join(copiesFolder(), 'agentconf-clean-root-'));
  const dir = join(parent, 'root');
  const made = await runProcess(MAKE_ROOT, [dir]);
  if (made.exitCode !== 0) {
    await rm(parent, { recursive: true, force: true });
    throw new Error(`make-root failed with exit code ${made.exitCode}:\n${made.output}`);
  }

  return {
    dir,
    async run(script, options = {}) {
      const args = [dir, '--cwd', options.cwd ?? '/root'];
      for (const [name, value] of Object.entries(options.env ?? {})) args.push('--env', `${name}=${value}`);
      args.push('--', '/bin/bash', '-c', script);
      if (options.logFile !== undefined) await mkdir(dirname(options.logFile), { recursive: true });
      return runProcess(IN_ROOT, args, options.logFile);
    },
    async copyIn(hostPath, rootPath) {
      const target = insideRoot(dir, rootPath);
      await mkdir(dirname(target), { recursive: true });
      await cp(hostPath, target, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
    },
    async dispose() {
      // A mount left inside would make the removal reach into the host's /dev or /sys.
      const mounted = await mountsUnder(dir);
      if (mounted.length > 0) throw new Error(`${dir} still has mounts, not removed: ${mounted.join(', ')}`);
      await rm(parent, { recursive: true, force: true });
    },
  };
}
