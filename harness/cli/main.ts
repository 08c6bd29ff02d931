/**
 * The agentconf command line. Each command is a small module; this file only dispatches and
 * maps errors to the shared exit codes (0 ok, 1 invalid input, 2 usage).
 */
import { EXIT, processIo, UsageError, type CliIo, type ExitCode } from './io.ts';
import { hashCommand } from './commands/hash.ts';
import { nodeCommand } from './commands/node.ts';
import { validateManifestCommand } from './commands/validate-manifest.ts';
import { validateSchemaCommand } from './commands/validate-schema.ts';

export interface Command {
  readonly name: string;
  readonly usage: string;
  readonly summary: string;
  run(args: readonly string[], io: CliIo): Promise<ExitCode>;
}

const COMMANDS: readonly Command[] = [
  hashCommand,
  nodeCommand,
  validateManifestCommand,
  validateSchemaCommand,
];

function helpText(): string {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length));
  return [
    'usage: agentconf COMMAND [ARGS]',
    '',
    ...COMMANDS.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    '',
    'exit codes: 0 ok, 1 invalid input, 2 usage error',
    '',
  ].join('\n');
}

/** node:util parseArgs reports unknown or malformed options with ERR_PARSE_ARGS_* codes. */
function isParseArgsError(error: unknown): error is Error {
  return error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS');
}

export async function main(argv: readonly string[], io: CliIo = processIo): Promise<ExitCode> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.err : io.out)(helpText());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    io.err(`agentconf: unknown command ${JSON.stringify(name)}\n\n${helpText()}`);
    return EXIT.usage;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      io.err(`agentconf ${command.name}: ${error.message}\nusage: agentconf ${command.usage}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}
