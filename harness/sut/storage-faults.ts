/**
 * Storage faults inside a launched gateway's process, by libfiu (Debian's fiu-utils): the
 * gateway starts with libfiu's POSIX wrappers preloaded as `fiu-run -x` would (no failure point
 * enabled; measured: no CPU cost visible at start-up), and `fiu-ctrl` enables one while it runs,
 * through the named pipes libfiu sets up per process (`<prefix>-<pid>.in/.out`, kept in the run
 * directory). Each wrapped call then fails with EIO.
 *
 * - 'sync': fsync and fdatasync fail (posix/io/sync/*): what SQLite calls to commit a WAL
 *   transaction with synchronous=FULL (it is built without fdatasync), and what the reference
 *   gateway's durability queue calls for its deferred commits (durability.ts).
 * - 'write': pwrite fails (posix/io/rw/pwrite, libfiu's wrapper of pwrite64 as well): the WAL
 *   frames of a commit cannot be written. Sockets use write/writev, so the component link and
 *   the gateway's answers keep working.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findOnPath } from '../federation/debian-packages.ts';
import { systemTool } from '../system-tools.ts';
import type { ManagedProcess } from '../faults/managed-process.ts';

export type StorageFault = 'sync' | 'write';

/** errno EIO on Linux. */
const EIO = 5;

const FAILURE_POINTS: Record<StorageFault, readonly string[]> = {
  sync: ['posix/io/sync/*'],
  write: ['posix/io/rw/pwrite'],
};

/** What a launch needs so that its storage can fail on demand: libfiu preloaded, its pipes named. */
export interface FiuWrapper {
  /** Added to the launch's environment (what `fiu-run -x -f <prefix>` would set). */
  readonly env: Readonly<Record<string, string>>;
  /** Base name of the control pipes (libfiu appends "-<pid>"). */
  readonly controlPrefix: string;
}

/** Where fiu-run looks for its preload libraries (its PLIBPATH default). */
async function preloadDirectory(fiuRun: string): Promise<string> {
  const script = await readFile(fiuRun, 'utf8').catch(() => '');
  return /^PLIBPATH="([^"$]+)"/m.exec(script)?.[1] ?? '/usr/lib/fiu';
}

/**
 * libfiu's preloads for a launch, when fiu-utils is installed (a run installs it before the
 * launch when a selected case needs it: system-tools-ensure.ts); undefined otherwise. Set directly
 * rather than through the fiu-run script, so that the process started is the gateway itself.
 */
export async function fiuWrapper(
  runDir: string,
  inherited: string | undefined = process.env['LD_PRELOAD'],
): Promise<FiuWrapper | undefined> {
  const fiuRun = await findOnPath(systemTool('libfiu').program);
  if (fiuRun === undefined || (await findOnPath('fiu-ctrl')) === undefined) return undefined;
  const dir = await preloadDirectory(fiuRun);
  const libraries = [join(dir, 'fiu_run_preload.so'), join(dir, 'fiu_posix_preload.so')];
  if (!libraries.every((library) => existsSync(library))) return undefined;
  const controlPrefix = join(runDir, 'fiu-ctrl');
  return {
    env: {
      LD_PRELOAD: [...libraries, ...(inherited === undefined || inherited === '' ? [] : [inherited])].join(
        ' ',
      ),
      FIU_CTRL_FIFO: controlPrefix,
      FIU_ENABLE: '',
    },
    controlPrefix,
  };
}

export interface StorageFaults {
  /** Enables the fault in the gateway's processes; resolves once every one of them has it on. */
  enable(fault: StorageFault): Promise<void>;
  /** Disables every storage fault in the processes still running. */
  disable(): Promise<void>;
}

function fiuCtrl(prefix: string, command: string, pids: readonly number[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      'fiu-ctrl',
      ['-f', prefix, '-c', command, ...pids.map(String)],
      { timeout: 5_000 },
      (error, _out, stderr) => {
        if (error === null) resolve();
        else reject(new Error(`fiu-ctrl ${command}: ${stderr.trim() || error.message}`));
      },
    );
  });
}

export function storageFaultsOf(wrapper: FiuWrapper, managed: ManagedProcess): StorageFaults {
  /**
   * The gateway's own process, when it listens for libfiu commands. Not its children: they
   * inherit the preload, but what they store is not the gateway's (an MCP server's ledger must
   * keep counting), and a child that never serves its control FIFO makes fiu-ctrl fail.
   */
  const controllable = (): number[] => {
    const pid = managed.pid;
    if (pid === undefined) return [];
    return existsSync(`${wrapper.controlPrefix}-${String(pid)}.in`) ? [pid] : [];
  };
  /** What is on, so that only that is turned off (libfiu complains about the rest). */
  let enabled: readonly string[] = [];
  return {
    async enable(fault) {
      const pids = controllable();
      if (pids.length === 0) throw new Error('no gateway process answers libfiu commands');
      for (const name of FAILURE_POINTS[fault]) {
        // failinfo: the errno, EIO, what a failing disk reports (libfiu would otherwise pick one
        // at random, EINTR included, which SQLite retries at once: seconds of spinning).
        // Recorded first: a command that failed half-way must still be undone by disable().
        enabled = [...enabled, name];
        await fiuCtrl(wrapper.controlPrefix, `enable name=${name},failinfo=${String(EIO)}`, pids);
      }
    },
    async disable() {
      const names = enabled;
      enabled = [];
      const pids = controllable();
      if (pids.length === 0) return;
      for (const name of names) {
        await fiuCtrl(wrapper.controlPrefix, `disable name=${name}`, pids).catch(() => undefined);
      }
    },
  };
}
