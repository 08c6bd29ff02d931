/**
 * The agentconf command line. Each command is a small module with its option table
 * (cli/options.ts); this file dispatches, prints help generated from the tables, and maps errors
 * to the shared exit codes (cli/io.ts EXIT): a usage mistake is one sentence and exit 2, and an
 * error nobody expected is one line and exit 3 (never 1, which CI reads as "not conformant").
 */
import { commandHelp, overviewHelp } from './help.ts';
import { EXIT, processIo, UsageError, type CliIo, type ExitCode } from './io.ts';
import type { CommandSpec } from './options.ts';

export interface Command {
  readonly spec: CommandSpec;
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
  { name: 'interop', load: async () => (await import('./commands/interop.ts')).interopCommand },
  {
    name: 'interop-matrix',
    load: async () => (await import('./commands/interop-matrix.ts')).interopMatrixCommand,
  },
  { name: 'matrix', load: async () => (await import('./commands/matrix.ts')).matrixCommand },
  {
    name: 'mcp-bridge',
    load: async () => (await import('./commands/mcp-bridge.ts')).mcpBridgeCommand,
  },
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

const HELP_FLAGS: ReadonlySet<string> = new Set(['--help', '-h']);

async function overview(): Promise<string> {
  const commands = await Promise.all(COMMANDS.map((entry) => entry.load()));
  return overviewHelp(commands.map((command) => command.spec));
}

function unknownCommand(name: string): string {
  return `agentconf: unknown command ${JSON.stringify(name)} (the commands: ${COMMANDS.map((c) => c.name).join(', ')})\n`;
}

/** --help or -h among the options (not after "--", where it would be an operand). */
function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => HELP_FLAGS.has(arg));
}

function wantsStack(args: readonly string[], env: NodeJS.ProcessEnv): boolean {
  return env['AGENTCONF_DEBUG'] === '1' || args.includes('--debug');
}

export async function main(
  argv: readonly string[],
  io: CliIo = processIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ExitCode> {
  const [name, ...args] = argv;
  if (name === undefined) {
    io.err(await overview());
    return EXIT.usage;
  }
  if (name === 'help' || HELP_FLAGS.has(name)) {
    const topic = name === 'help' ? args[0] : undefined;
    if (topic === undefined) {
      io.out(await overview());
      return EXIT.ok;
    }
    const entry = COMMANDS.find((c) => c.name === topic);
    if (entry === undefined) {
      io.err(unknownCommand(topic));
      return EXIT.usage;
    }
    io.out(commandHelp((await entry.load()).spec));
    return EXIT.ok;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (entry === undefined) {
    io.err(unknownCommand(name));
    return EXIT.usage;
  }
  try {
    const command = await entry.load();
    if (asksForHelp(args)) {
      io.out(commandHelp(command.spec));
      return EXIT.ok;
    }
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`agentconf ${name}: ${error.message}\n`);
      return EXIT.usage;
    }
    // The last resort: whatever escaped a command is a defect of agentconf, not a verdict.
    const message = error instanceof Error ? error.message : String(error);
    const stack = wantsStack(args, env);
    io.err(
      `agentconf ${name}: unexpected error: ${message.split('\n')[0] ?? ''}` +
        `${stack ? '' : ' (AGENTCONF_DEBUG=1 or --debug prints the stack)'}\n`,
    );
    if (stack && error instanceof Error && error.stack !== undefined) io.err(`${error.stack}\n`);
    return EXIT.couldNotRun;
  }
}
