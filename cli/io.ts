/** What a CLI command may touch: its two output streams and the file system reader. */
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
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
 * Exit codes shared by every command (docs/ci.md tabulates them): 1 is a verdict against the
 * input (an invalid file, a gateway that is not conformant), 2 a usage mistake or an input file
 * that cannot be used, 3 when the harness or the gateway could not run (or stopped at --timeout,
 * or agentconf met an error it did not expect), and 130 (128 + SIGINT, as a shell reports it)
 * when Ctrl-C interrupted it.
 */
export const EXIT = { ok: 0, invalid: 1, usage: 2, couldNotRun: 3, interrupted: 130 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A usage mistake: one sentence, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

function codeOf(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error ? String(error.code) : undefined;
}

/** Why a path cannot be read, in words a person acts on. */
function unreadable(label: string, error: unknown): UsageError {
  switch (codeOf(error)) {
    case 'ENOENT':
      return new UsageError(`${label} does not exist`);
    case 'EISDIR':
      return new UsageError(`${label} is a folder, not a file`);
    case 'ENOTDIR':
      return new UsageError(`${label} does not exist (a part of its path is a file)`);
    case 'EACCES':
    case 'EPERM':
      return new UsageError(`${label} cannot be read (permission denied)`);
    default:
      return new UsageError(`${label} cannot be read (${codeOf(error) ?? String(error)})`);
  }
}

/** "--sut FILE" when the option is known, else the path alone. */
function labelOf(path: string, option: string | undefined): string {
  return option === undefined ? path : `${option} ${path}`;
}

/** Reads an input file, turning I/O failures into usage errors that name the option and path. */
export function readInput(io: CliIo, path: string | undefined, option?: string): Buffer {
  if (path === undefined) throw new UsageError('missing FILE argument');
  try {
    return io.readFile(path);
  } catch (error) {
    throw unreadable(labelOf(path, option), error);
  }
}

/** For files another module opens: a readable file, or a usage error saying what it is instead. */
export function checkReadableFile(path: string, option?: string): void {
  const label = labelOf(path, option);
  try {
    if (statSync(path).isDirectory()) throw new UsageError(`${label} is a folder, not a file`);
    accessSync(path, constants.R_OK);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw unreadable(label, error);
  }
}

/**
 * A file a command will write later: not a folder, and its folder writable — the folder must exist,
 * unless the command makes it (`makesFolders`), when its nearest existing ancestor must be a
 * writable folder. A usage error naming the option otherwise.
 */
export function checkWritableFile(path: string, option: string, makesFolders = false): void {
  if (existsSync(path) && statSync(path).isDirectory()) {
    throw new UsageError(`${option} ${path} is a folder; name a file`);
  }
  let folder = dirname(path);
  while (makesFolders && !existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder);
  try {
    if (!statSync(folder).isDirectory()) {
      throw new UsageError(`${option} ${path} cannot be written (${folder} is a file, not a folder)`);
    }
    accessSync(folder, constants.W_OK);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `${option} ${path} cannot be written (its folder: ${codeOf(error) ?? 'not writable'})`,
    );
  }
}
