/**
 * The agentconf command line. Each command is a small module; this file only dispatches and
 * maps errors to the shared exit codes (0 ok, 1 invalid input, 2 usage).
 */
import { EXIT, processIo, UsageError, type CliIo, type ExitCode } from './io.ts';

export interface Command {
  readonly name: string;
  readonly usage: string;
  readonly summary: string;
  readonly run: (args: readonly string[], io: CliIo) => Promise<ExitCode>;
}

interface CommandEntry {
  readonly name: string;
  /** Loaded on demand: schema evaluators and XML tooling cost start-up time other commands need not pay. */
  readonly load: () => Promise<Command>;
}

const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'conformance-tools',
    load: async () => (await import('./commands/conformance-tools.ts')).conformanceToolsCommand,
  },
  {
    name: 'federation',
    load: async () => (await import('./commands/federation.ts')).federationCommand,
  },
  { name: 'gateway', load: async () => (await import('./commands/gateway.ts')).gatewayCommand },
  { name: 'hash', load: async () => (await import('./commands/hash.ts')).hashCommand },
  { name: 'matrix', load: async () => (await import('./commands/matrix.ts')).matrixCommand },
  { name: 'node', load: async () => (await import('./commands/node.ts')).nodeCommand },
  { name: 'run', load: async () => (await import('./commands/run.ts')).runCommand },
  {
    name: 'validate-manifest',
    load: async () => (await import('./commands/validate-manifest.ts')).validateManifestCommand,
  },
  {
    name: 'validate-schema',
    load: async () => (await import('./commands/validate-schema.ts')).validateSchemaCommand,
  },
];

async function helpText(): Promise<string> {
  const commands = await Promise.all(COMMANDS.map((entry) => entry.load()));
  const width = Math.max(...commands.map((c) => c.usage.length));
  return [
    'usage: agentconf COMMAND [ARGS]',
    '',
    ...commands.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
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
    (name === undefined ? io.err : io.out)(await helpText());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (entry === undefined) {
    io.err(`agentconf: unknown command ${JSON.stringify(name)}\n\n${await helpText()}`);
    return EXIT.usage;
  }
  const command = await entry.load();
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
