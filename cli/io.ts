/** What a CLI command may touch: its two output streams and the file system reader. */
import { accessSync, constants, readFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly readFile: (path: string) => Buffer;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  readFile: (path) => readFileSync(path),
};

/**
 * Exit codes shared by every command. `run` gives 1 for a gateway that is not conformant, 2 for a
 * usage mistake or an invalid input file, 3 when the harness or the gateway could not run, and
 * 130 (128 + SIGINT, as a shell reports it) when Ctrl-C interrupted it (its partial report written).
 */
export const EXIT = { ok: 0, invalid: 1, usage: 2, couldNotRun: 3, interrupted: 130 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A usage mistake: printed with the command's usage line, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Reads an input file, turning I/O failures into usage errors that name the path. */
export function readInput(io: CliIo, path: string | undefined): Buffer {
  if (path === undefined) throw new UsageError('missing FILE argument');
  try {
    return io.readFile(path);
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    throw new UsageError(`cannot read ${path}: ${reason}`);
  }
}

/** A file a command will write later: its folder must exist and be writable (a usage error if not). */
export function checkWritableFile(path: string, option: string): void {
  try {
    accessSync(dirname(path), constants.W_OK);
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : 'not writable';
    throw new UsageError(`${option} ${path} cannot be written (its folder: ${reason})`);
  }
}
