/**
 * Help text generated from the option tables (cli/options.ts): the command list, and per command
 * its usage, every option with its value and default, an example and the exit codes. Every line
 * fits HELP_WIDTH columns, so it reads in an 80-to-100-column terminal and in CI logs.
 */
import { defaultOf, isMultiple, valueRule, type CommandSpec, type OptionSpec } from './options.ts';

export const HELP_WIDTH = 100;

/** The shared exit codes (cli/io.ts EXIT) and what each means, as docs/ci.md tabulates them. */
const EXIT_CODE_LINES: readonly (readonly [string, string])[] = [
  ['0', 'done: the check passed, or every claimed profile passed'],
  ['1', 'a verdict against the input: it is invalid, or the gateway is not conformant'],
  ['2', 'a usage error: a bad option or value, or an input file that is missing or unreadable'],
  ['3', 'could not run: the harness or the gateway did not start or stopped, or --timeout'],
  ['130', 'interrupted (Ctrl-C): what was started is stopped; a run writes its partial report'],
];

/**
 * `text` broken at spaces into lines of at most `width` columns, each line after the first
 * starting with `indent`, the first with `first` (a word longer than a line stays whole: paths
 * are not cut).
 */
export function wrap(text: string, width: number, indent = '', first = ''): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(' ').filter((w) => w !== '')) {
    if (empty || line.length + 1 + word.length <= width) {
      line = empty ? `${line}${word}` : `${line} ${word}`;
      empty = false;
      continue;
    }
    lines.push(line);
    line = `${indent}${word}`;
  }
  lines.push(line);
  return lines;
}

/** Two columns, the second wrapped and aligned: option and description, command and summary. */
function columns(rows: readonly (readonly [string, string])[], maxLeft = 26): string[] {
  const left = Math.min(maxLeft, Math.max(...rows.map(([label]) => label.length)));
  const indent = ' '.repeat(2 + left + 2);
  return rows.flatMap(([label, text]) =>
    label.length > left
      ? [`  ${label}`, ...wrap(text, HELP_WIDTH, indent, indent)]
      : wrap(text, HELP_WIDTH, indent, `  ${label.padEnd(left)}  `),
  );
}

function optionLabel(name: string, option: OptionSpec): string {
  return option.type === 'boolean' ? `--${name}` : `--${name} ${option.valueName}`;
}

function optionText(option: OptionSpec): string {
  const parts = [option.description];
  if (option.type === 'integer' || option.type === 'number' || option.type === 'choice') {
    parts.push(`(${valueRule(option)})`);
  }
  if (isMultiple(option)) parts.push('(repeatable)');
  const given = defaultOf(option);
  const fallback = option.defaultText ?? (given === undefined ? undefined : String(given));
  if (fallback !== undefined) parts.push(`(default: ${fallback})`);
  return parts.join(' ');
}

function exitCodes(): string[] {
  return ['exit codes:', ...columns(EXIT_CODE_LINES)];
}

export function commandHelp(spec: CommandSpec): string {
  const hasOptions = Object.keys(spec.options).length > 0;
  // A usage line that names its option already ("node --decode NODE") takes no others.
  const usage = spec.usage.map(
    (line) => `agentconf ${line}${hasOptions && !line.includes(' --') ? ' [OPTIONS]' : ''}`,
  );
  const lines = [
    ...wrap(usage.join(' | '), HELP_WIDTH, '       ', 'usage: '),
    '',
    ...wrap(spec.summary, HELP_WIDTH),
  ];
  if (spec.notes !== undefined) lines.push('', ...wrap(spec.notes, HELP_WIDTH));
  const rows = Object.entries(spec.options).map(
    ([name, option]) => [optionLabel(name, option), optionText(option)] as const,
  );
  lines.push('', 'options:', ...columns([...rows, ['--help, -h', 'print this help']]));
  lines.push(
    '',
    'example:',
    ...wrap(`agentconf ${spec.example}`, HELP_WIDTH, '      ', '  '),
    '',
    ...exitCodes(),
    '',
  );
  return lines.join('\n');
}

export function overviewHelp(specs: readonly CommandSpec[]): string {
  return [
    'usage: agentconf COMMAND [ARGUMENTS] [OPTIONS]',
    '',
    'commands:',
    ...columns(
      specs.map((spec) => [spec.name, spec.summary]),
      20,
    ),
    '',
    ...wrap(
      'agentconf help COMMAND (or agentconf COMMAND --help) shows its options, their defaults and an example.',
      HELP_WIDTH,
    ),
    'With --debug or AGENTCONF_DEBUG=1 an unexpected error also prints its stack.',
    '',
    ...exitCodes(),
    '',
  ].join('\n');
}
