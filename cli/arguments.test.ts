// Every command's bad arguments, generated: unknown options, missing or malformed values, and
// paths that are missing, folders or files where the other is expected. Each must end in one
// short message and exit 2 (help: exit 0) — never a stack trace, never a thrown error, and never
// a started run (every generated command line holds at least one mistake found before a start).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';

import { HELP_WIDTH } from './help.ts';
import type { OptionSpec } from './options.ts';
import { runCli } from './test-support/run-cli.ts';
import { main } from './main.ts';
import { processIo } from './io.ts';

const root = mkdtempSync(join(tmpdir(), 'agentconf-arguments-'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});
const folder = join(root, 'a-folder');
mkdirSync(folder);
const file = join(root, 'a-file.txt');
writeFileSync(file, 'not JSON\n');
const missing = join(root, 'missing', 'nothing.json');

/** Each command as typed, with the options that take a path and what a bad path there is. */
interface Target {
  readonly argv: readonly string[];
  /** Options whose value is a file to read: a folder or a missing path is refused. */
  readonly inputs: readonly string[];
  /** Paths given as operands that must be files (or run folders): a missing path is refused. */
  readonly operandFile?: boolean;
  /** Switches that change nothing about the refusal, mixed in around the mistake. */
  readonly harmless: readonly string[];
  /** Other refusals particular to the command. */
  readonly specific: readonly (readonly string[])[];
}

const TARGETS: readonly Target[] = [
  {
    argv: ['run'],
    inputs: ['--sut', '--world', '--baseline'],
    harmless: ['--strict', '--verbose', '--deep'],
    specific: [
      ['--out', file],
      ['--external', file],
      ['--provider', 'external'],
      ['--grep', 'no-such-case-xyz'],
      ['--server-b', 'ejabberd'],
      ['--provider', 'container', '--server-a', 'ejabberd'],
    ],
  },
  {
    argv: ['federation', 'up'],
    inputs: ['--sut'],
    harmless: ['--json', '--hostile'],
    specific: [
      ['--world', file],
      ['--provider', 'external'],
      ['--connection-file', folder],
      ['--server-b', 'ejabberd'],
      ['--provider', 'container', '--server-a', 'ejabberd'],
    ],
  },
  { argv: ['gateway'], inputs: ['--config'], harmless: [], specific: [[], ['extra']] },
  { argv: ['hash'], inputs: [], operandFile: true, harmless: ['--value'], specific: [[]] },
  { argv: ['matrix'], inputs: [], operandFile: true, harmless: [], specific: [[], ['--out', folder, root]] },
  { argv: ['node'], inputs: [], harmless: [], specific: [[], ['1.0.0'], ['--decode', 'x', 'y']] },
  { argv: ['validate-manifest'], inputs: [], operandFile: true, harmless: [], specific: [[]] },
  { argv: ['validate-schema'], inputs: [], operandFile: true, harmless: [], specific: [[]] },
  {
    argv: ['conformance-tools'],
    inputs: [],
    harmless: [],
    specific: [['--ledger', folder], ['--host', 'localhost'], ['operand']],
  },
];

const specs = new Map<string, Readonly<Record<string, OptionSpec>>>();
async function optionsOf(command: string): Promise<Readonly<Record<string, OptionSpec>>> {
  const known = specs.get(command);
  if (known !== undefined) return known;
  // The table help is generated from, as the command module exports it.
  const module = (await import(`./commands/${command}.ts`)) as Record<
    string,
    { spec?: { options: Record<string, OptionSpec> } }
  >;
  const found = Object.values(module).find((value) => value.spec !== undefined)?.spec?.options ?? {};
  specs.set(command, found);
  return found;
}

/** A value the option's rule refuses (a value starting with "-" is read as a missing one). */
function badValue(option: OptionSpec): fc.Arbitrary<string> {
  switch (option.type) {
    case 'integer':
      return fc.constantFrom('x', '1.5', '-3', String(option.max + 1), '', ' 1');
    case 'number':
      return fc.constantFrom('fast', '0', '-1', '1e3', '');
    case 'duration':
      return fc.constantFrom('soon', '5d', '-1m', '1.h', 'm');
    case 'choice':
      return fc.stringMatching(/^[A-Z][a-z]{0,6}$/);
    default:
      return fc.constant('unused');
  }
}

/** One mistake for the command: what the generated command line must be refused for. */
async function mistakes(target: Target): Promise<fc.Arbitrary<string[]>> {
  const command = target.argv[0] ?? '';
  const options = await optionsOf(command);
  const names = Object.keys(options);
  const valued = names.filter((name) => options[name]?.type !== 'boolean');
  const ruled = Object.entries(options).filter(([, option]) =>
    ['integer', 'number', 'duration', 'choice'].includes(option.type),
  );
  const arbitraries: fc.Arbitrary<string[]>[] = [
    // An option the command does not have.
    fc
      .stringMatching(/^[a-z][a-z0-9-]{0,14}$/)
      .filter((name) => !names.includes(name) && name !== 'help' && name !== 'h')
      .map((name) => [`--${name}`]),
    // A short option: none is defined but -h.
    fc.constantFrom('-x', '-v', '-q', '-s').map((flag) => [flag]),
    // A value for a switch.
    ...(names.some((name) => options[name]?.type === 'boolean')
      ? [
          fc
            .constantFrom(...names.filter((name) => options[name]?.type === 'boolean'))
            .map((name) => [`--${name}=yes`]),
        ]
      : []),
    ...target.specific.map((argv) => fc.constant(argv).map((fixed) => [...fixed])),
  ];
  if (valued.length > 0) {
    // A value-taking option last, with nothing after it.
    arbitraries.push(fc.constantFrom(...valued).map((name) => [`--${name}`]));
  }
  if (ruled.length > 0) {
    arbitraries.push(
      fc
        .constantFrom(...ruled)
        .chain(([name, option]) => badValue(option).map((value) => [`--${name}=${value}`])),
    );
  }
  if (target.inputs.length > 0) {
    arbitraries.push(
      fc
        .tuple(fc.constantFrom(...target.inputs), fc.constantFrom(missing, folder))
        .map(([name, path]) => [name, path]),
    );
  }
  if (target.operandFile === true) arbitraries.push(fc.constantFrom(missing, folder).map((path) => [path]));
  return fc.oneof(...arbitraries);
}

const seed = Number(process.env['AGENTCONF_FUZZ_SEED'] ?? String(Date.now() % 2 ** 31));

describe(`agentconf COMMAND with generated bad arguments (seed ${String(seed)}; AGENTCONF_FUZZ_SEED replays)`, () => {
  it.each(TARGETS.map((target) => [target.argv.join(' '), target] as const))(
    '%s: one short line, exit 2, no stack trace',
    async (_, target) => {
      const mistake = await mistakes(target);
      const line = fc
        .tuple(mistake, fc.subarray([...target.harmless]), fc.boolean())
        .map(([wrong, extra, first]) => (first ? [...wrong, ...extra] : [...extra, ...wrong]));
      await fc.assert(
        fc.asyncProperty(line, async (args) => {
          const argv = [...target.argv, ...args];
          const result = await runCli(argv);
          const where = `agentconf ${argv.join(' ')}`;
          expect(result.code, `${where}\n${result.stderr}`).toBe(2);
          expect(result.stdout, where).toBe('');
          expect(result.stderr, where).not.toMatch(/^ {4}at /m);
          // One sentence naming the command, or an input file's problems under one heading.
          expect(result.stderr, where).toMatch(/^(agentconf [a-z-]+: |invalid: )[^\n]+\n/);
          expect(result.stderr.split('\n').length, where).toBeLessThan(12);
        }),
        { seed, numRuns: 25 },
      );
    },
    60_000,
  );
});

describe('agentconf help', () => {
  const commands = TARGETS.map((target) => target.argv[0] ?? '');

  it('help, --help and -h exit 0 for every command, with every option, its default and an example', async () => {
    for (const command of commands) {
      const options = await optionsOf(command);
      const [first, ...others] = await Promise.all([
        runCli(['help', command]),
        runCli([command, '--help']),
        runCli([command, '-h']),
        runCli([command, '--bogus', '--help']),
      ]);
      for (const text of [first, ...others]) {
        expect(text.code, command).toBe(0);
        expect(text.stderr).toBe('');
        expect(text.stdout).toBe(first.stdout);
      }
      const help = first.stdout;
      expect(help).toMatch(new RegExp(`^usage: agentconf ${command}`));
      expect(help).toMatch(new RegExp(`^example:\\n {2}agentconf ${command} `, 'm'));
      for (const [name, option] of Object.entries(options)) {
        expect(help, `${command} --${name}`).toMatch(new RegExp(`^ {2}--${name}\\b`, 'm'));
        const fallback = option.defaultText ?? ('default' in option ? option.default : undefined);
        if (fallback !== undefined)
          expect(help.replace(/\s+/g, ' ')).toContain(`(default: ${String(fallback)})`);
      }
    }
  });

  it('fits every line in 100 columns and lists every exit code', async () => {
    const texts = [
      (await runCli(['help'])).stdout,
      (await runCli(['--help'])).stdout,
      ...(await Promise.all(commands.map(async (command) => (await runCli(['help', command])).stdout))),
    ];
    for (const text of texts) {
      for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(HELP_WIDTH);
      for (const code of ['0', '1', '2', '3', '130'])
        expect(text).toMatch(new RegExp(`^ {2}${code} +\\S`, 'm'));
    }
    expect(texts[0]).toMatch(/^ {2}run +run the conformance suites/m);
  });

  it('an unknown command or help topic is one line and exit 2; no command prints the overview, exit 2', async () => {
    for (const argv of [['frobnicate'], ['help', 'frobnicate']]) {
      const result = await runCli(argv);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^agentconf: unknown command "frobnicate" \(the commands: conformance-tools, [^\n]+\)\n$/,
      );
    }
    const bare = await runCli([]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/^usage: agentconf COMMAND/);
  });
});

describe('the last resort', () => {
  const failingIo = (stderr: string[]) => ({
    out: () => {
      throw new Error('the terminal went away\n    at somewhere (file.ts:1:1)');
    },
    err: (text: string) => stderr.push(text),
    readFile: processIo.readFile,
  });

  it('turns an unexpected error into one line and exit 3; the stack only with AGENTCONF_DEBUG=1', async () => {
    const quiet: string[] = [];
    expect(await main(['node', '1.0.0', 'forecast.get'], failingIo(quiet), {})).toBe(3);
    expect(quiet.join('')).toBe(
      'agentconf node: unexpected error: the terminal went away (AGENTCONF_DEBUG=1 or --debug prints the stack)\n',
    );
    const loud: string[] = [];
    expect(await main(['node', '1.0.0', 'forecast.get'], failingIo(loud), { AGENTCONF_DEBUG: '1' })).toBe(3);
    expect(loud.join('')).toMatch(/^agentconf node: unexpected error: the terminal went away\nError: /);
    expect(loud.join('')).toMatch(/^ {4}at /m);
  });
});
