/**
 * Argument handling shared by the repository's check commands (artifacts:check,
 * registry:check, registry:coverage): strict options, no positionals, `--help`, and a usage
 * error that prints the usage line with exit status 2.
 */
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** The two streams a check command writes to. */
export interface CheckCliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

type Values<O extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ options: O; strict: true; allowPositionals: false }>
>['values'];

/**
 * The parsed option values, or the exit status to end with: 0 after printing the usage for
 * `--help`/`-h`, 2 after printing a parse error with it.
 */
export function parseCheckArgs<O extends ParseArgsOptionsConfig>(
  argv: readonly string[],
  options: O,
  usage: string,
  io: CheckCliIo,
): Values<O> | 0 | 2 {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(usage);
    return 0;
  }
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    io.stderr(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
    return 2;
  }
}

/** The absolute path `--spec` names, or 2 after printing that it is missing. */
export function requiredSpecPath(spec: unknown, usage: string, io: CheckCliIo): string | 2 {
  if (typeof spec !== 'string' || spec === '') {
    io.stderr(`missing --spec\n${usage}`);
    return 2;
  }
  return resolve(spec);
}
