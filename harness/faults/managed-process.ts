// A child process the harness owns: started in its own process group, its output captured,
// killable with SIGKILL (with everything it spawned) and restartable with the same command line.
// Used for the gateway under test and for the XMPP servers themselves.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';

import { registerExitCleanup } from '../federation/exit-cleanup.ts';
import { guardProcessGroup, releaseProcessGroup } from '../federation/orphan-watchdog.ts';
import { signalProcessTree } from './process-tree.ts';

export interface ManagedProcessOptions {
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to (or, with `inheritEnv: false`, instead of) this process's environment; undefined unsets. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly inheritEnv?: boolean;
  readonly cwd?: string;
  /** Used in error messages. */
  readonly name?: string;
  /** Older output is dropped beyond this many characters (default 4 MiB). */
  readonly outputLimit?: number;
}

export interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

interface Events {
  output: [chunk: string, stream: 'stdout' | 'stderr'];
  exit: [status: ExitStatus];
}

type Child = ChildProcessByStdio<null, Readable, Readable>;

export class ProcessExitedError extends Error {
  constructor(
    name: string,
    readonly status: ExitStatus,
    readonly output: string,
  ) {
    super(
      `${name} exited (code ${String(status.code)}, signal ${String(status.signal)}) ` +
        `while it was awaited; last output:\n${output.slice(-4000)}`,
    );
    this.name = 'ProcessExitedError';
  }
}

/** The command could not be started at all (not found, not executable, bad cwd). */
export class ProcessStartError extends Error {
  override readonly name = 'ProcessStartError';
  readonly code: string | undefined;
  constructor(name: string, command: string, error: unknown) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : undefined;
    const why =
      code === 'ENOENT'
        ? 'command not found (or the working directory does not exist)'
        : code === 'EACCES'
          ? 'permission denied'
          : (code ?? 'failed');
    super(`cannot start ${name}: ${command}: ${why}`);
    this.code = code;
  }
}

export class ManagedProcess extends EventEmitter<Events> {
  readonly name: string;
  readonly #options: ManagedProcessOptions;
  readonly #outputLimit: number;
  #child: Child | undefined;
  #exited: Promise<ExitStatus> = Promise.resolve({ code: null, signal: null });
  #lastExit: ExitStatus | undefined;
  #output = '';
  #runStart = 0;
  #starts = 0;

  private constructor(options: ManagedProcessOptions) {
    super();
    this.#options = options;
    this.name = options.name ?? options.command;
    this.#outputLimit = options.outputLimit ?? 4 * 1024 * 1024;
  }

  /** Spawns the process; resolves once it is running (rejects if it cannot be spawned at all). */
  static async start(options: ManagedProcessOptions): Promise<ManagedProcess> {
    const managed = new ManagedProcess(options);
    await managed.#spawn();
    return managed;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  get running(): boolean {
    return this.#child !== undefined;
  }

  /** How many times the process has been started (1 before any restart). */
  get starts(): number {
    return this.#starts;
  }

  get lastExit(): ExitStatus | undefined {
    return this.#lastExit;
  }

  /** Everything the process printed on stdout and stderr, over all its runs. */
  get output(): string {
    return this.#output;
  }

  /** What the current (or latest) run printed. */
  get runOutput(): string {
    return this.#output.slice(this.#runStart);
  }

  /** Resolves when the current run prints something matching; rejects if it exits first or at the deadline. */
  waitForOutput(pattern: string | RegExp, timeoutMs = 10_000): Promise<string> {
    const find = (): string | undefined => {
      const text = this.runOutput;
      if (typeof pattern === 'string') return text.includes(pattern) ? pattern : undefined;
      return pattern.exec(text)?.[0];
    };
    const found = find();
    if (found !== undefined) return Promise.resolve(found);
    if (!this.running) {
      return Promise.reject(new ProcessExitedError(this.name, this.#lastExit ?? exitUnknown, this.runOutput));
    }
    return new Promise((resolve, reject) => {
      const finish = (): void => {
        clearTimeout(timer);
        this.off('output', onOutput);
        this.off('exit', onExit);
      };
      const onOutput = (): void => {
        const match = find();
        if (match === undefined) return;
        finish();
        resolve(match);
      };
      const onExit = (status: ExitStatus): void => {
        finish();
        reject(new ProcessExitedError(this.name, status, this.runOutput));
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`${this.name} did not print ${String(pattern)} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.on('output', onOutput);
      this.on('exit', onExit);
    });
  }

  /** Resolves with the exit status of the current run (at once if it is not running). */
  waitForExit(): Promise<ExitStatus> {
    return this.#exited;
  }

  /** SIGKILL to the process, its group and all its descendants; resolves once it has been reaped. */
  async kill9(): Promise<ExitStatus> {
    const pid = this.#child?.pid;
    if (pid !== undefined) signalProcessTree(pid, 'SIGKILL');
    return this.#exited;
  }

  /** A polite stop: `signal` to the group, SIGKILL if it is still there after `graceMs`. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 2_000): Promise<ExitStatus> {
    const pid = this.#child?.pid;
    if (pid === undefined) return this.#exited;
    signalProcessTree(pid, signal);
    const timer = setTimeout(() => {
      signalProcessTree(pid, 'SIGKILL');
    }, graceMs);
    try {
      return await this.#exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Kills the current run (if any) with SIGKILL and starts the same command again. */
  async restart(): Promise<void> {
    await this.kill9();
    await this.#spawn();
  }

  #append(chunk: string, stream: 'stdout' | 'stderr'): void {
    this.#output += chunk;
    const excess = this.#output.length - this.#outputLimit;
    if (excess > 0) {
      this.#output = this.#output.slice(excess);
      this.#runStart = Math.max(0, this.#runStart - excess);
    }
    this.emit('output', chunk, stream);
  }

  async #spawn(): Promise<void> {
    const { command, args = [], cwd } = this.#options;
    const env: Record<string, string> = {};
    const merged = { ...(this.#options.inheritEnv === false ? {} : process.env), ...this.#options.env };
    for (const [key, value] of Object.entries(merged)) if (value !== undefined) env[key] = value;

    // detached: a new session, hence a process group of its own whose id is the child's pid.
    const child = spawn(command, [...args], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.#runStart = this.#output.length;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.#append(chunk, 'stdout');
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.#append(chunk, 'stderr');
    });

    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    }).catch((error: unknown) => {
      // No `cause`: the spawn error lists the arguments, which may hold the component secret.
      throw new ProcessStartError(this.name, command, error);
    });

    const pid = child.pid;
    if (pid === undefined) throw new Error(`${this.name} started without a pid`);
    this.#child = child;
    this.#starts += 1;
    guardProcessGroup(pid);
    const unregister = registerExitCleanup(() => {
      signalProcessTree(pid, 'SIGKILL');
    });
    this.#exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        // Whatever the leader left behind in its group goes with it.
        killGroup(pid, 'SIGKILL');
        unregister();
        releaseProcessGroup(pid);
        const status = { code, signal };
        this.#child = undefined;
        this.#lastExit = status;
        this.emit('exit', status);
        resolve(status);
      });
    });
  }
}

const exitUnknown: ExitStatus = { code: null, signal: null };

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}
