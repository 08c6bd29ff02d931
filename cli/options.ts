/**
 * Each command's options as one declarative table: the parser below and the help text
 * (cli/help.ts) are both generated from it, so an option cannot be accepted without being
 * explained, and every bad value is refused with one sentence naming the option and what it takes.
 */
import { parseArgs } from 'node:util';
import { UsageError } from './io.ts';

interface Described {
  /** One line; cli/help.ts wraps it. */
  readonly description: string;
  /** The default as help shows it, when the command computes it (e.g. a path under the run ID). */
  readonly defaultText?: string;
}

export interface BooleanOption extends Described {
  readonly type: 'boolean';
}

export interface StringOption extends Described {
  readonly type: 'string';
  /** The value's name in help and messages: FILE, DIR, TEXT. */
  readonly valueName: string;
  readonly multiple?: boolean;
  readonly default?: string;
}

export interface IntegerOption extends Described {
  readonly type: 'integer';
  readonly valueName: string;
  readonly min: number;
  readonly max: number;
  readonly default?: number;
}

export interface NumberOption extends Described {
  readonly type: 'number';
  readonly valueName: string;
  /** Values must be greater than this. */
  readonly above: number;
}

export interface ChoiceOption extends Described {
  readonly type: 'choice';
  readonly valueName: string;
  readonly choices: readonly string[];
  readonly multiple?: boolean;
  readonly default?: string;
}

/** A wall-time span: 90s, 20m, 2h, or a plain number of seconds; 0 means none. In milliseconds. */
export interface DurationOption extends Described {
  readonly type: 'duration';
  readonly valueName: string;
}

export type OptionSpec =
  BooleanOption | StringOption | IntegerOption | NumberOption | ChoiceOption | DurationOption;

export interface CommandSpec {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** The usage lines without "agentconf " and without the options: "hash FILE", "run". */
  readonly usage: readonly string[];
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** A command line that works as written, without "agentconf ". */
  readonly example: string;
  /** What the command prints or writes, or exit codes of its own, in one or two sentences. */
  readonly notes?: string;
}

type ValueOf<O> = O extends BooleanOption
  ? boolean
  : O extends { readonly type: 'string'; readonly multiple: true }
    ? string[]
    : O extends { readonly type: 'string'; readonly default: string }
      ? string
      : O extends StringOption
        ? string | undefined
        : O extends { readonly type: 'integer'; readonly default: number }
          ? number
          : O extends IntegerOption | NumberOption | DurationOption
            ? number | undefined
            : O extends { readonly choices: readonly (infer C)[]; readonly multiple: true }
              ? C[]
              : O extends { readonly choices: readonly (infer C)[]; readonly default: string }
                ? C
                : O extends { readonly choices: readonly (infer C)[] }
                  ? C | undefined
                  : never;

export type OptionValues<T extends Readonly<Record<string, OptionSpec>>> = {
  -readonly [K in keyof T]: ValueOf<T[K]>;
};

export interface ParsedArgs<T extends Readonly<Record<string, OptionSpec>>> {
  readonly values: OptionValues<T>;
  readonly positionals: string[];
}

/** What an option takes, in words: "an integer from 1 to 1000". */
export function valueRule(option: OptionSpec): string {
  switch (option.type) {
    case 'boolean':
      return 'no value';
    case 'string':
      return `a ${option.valueName}`;
    case 'integer':
      return `an integer from ${String(option.min)} to ${String(option.max)}`;
    case 'number':
      return `a number greater than ${String(option.above)}`;
    case 'choice':
      return `one of ${option.choices.join(', ')}`;
    case 'duration':
      return 'a duration such as 90s, 20m or 2h (0: no limit)';
  }
}

const DURATION_UNITS: Readonly<Record<string, number>> = { '': 1_000, s: 1_000, m: 60_000, h: 3_600_000 };

/** 90s, 20m, 1.5h, or a number of seconds, in milliseconds; undefined when it is none of those. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(text);
  if (match === null) return undefined;
  const ms = Number(match[1]) * (DURATION_UNITS[match[2] ?? ''] ?? 1_000);
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}

/** The value an option's text stands for; a UsageError naming the option when it stands for none. */
function convert(name: string, option: OptionSpec, text: string): string | number {
  const refuse = (): never => {
    throw new UsageError(`--${name} takes ${valueRule(option)}, not ${JSON.stringify(text)}`);
  };
  switch (option.type) {
    case 'boolean':
    case 'string':
      return text;
    case 'integer': {
      const value = Number(text);
      if (!/^\d+$/.test(text) || value < option.min || value > option.max) refuse();
      return value;
    }
    case 'number': {
      const value = Number(text);
      if (!/^\d+(\.\d+)?$/.test(text) || !(value > option.above)) refuse();
      return value;
    }
    case 'choice':
      if (!option.choices.includes(text)) refuse();
      return text;
    case 'duration':
      return parseDuration(text) ?? refuse();
  }
}

/** A repeatable option: its values collect in an array. */
export function isMultiple(option: OptionSpec): boolean {
  return (option.type === 'string' || option.type === 'choice') && option.multiple === true;
}

/** The table's default value, if it names one. */
export function defaultOf(option: OptionSpec): string | number | undefined {
  return option.type === 'string' || option.type === 'choice' || option.type === 'integer'
    ? option.default
    : undefined;
}

function initialValues(options: Readonly<Record<string, OptionSpec>>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, option] of Object.entries(options)) {
    if (option.type === 'boolean') values[name] = false;
    else if (isMultiple(option)) values[name] = [];
    else if (defaultOf(option) !== undefined) values[name] = defaultOf(option);
  }
  return values;
}

/**
 * The command's arguments checked against its table. Unknown options, a missing value (or one that
 * is the next option), a value for a switch, a repeated single option and a value outside its rule
 * are each a UsageError of one sentence; nothing here throws anything else.
 */
export function parseCommandArgs<T extends Readonly<Record<string, OptionSpec>>>(
  spec: { readonly name: string; readonly options: T },
  args: readonly string[],
): ParsedArgs<T> {
  // Non-strict: every token comes back, so each mistake gets our sentence instead of Node's.
  const { tokens } = parseArgs({
    args: [...args],
    options: Object.fromEntries(
      Object.entries(spec.options).map(([name, option]) => [
        name,
        { type: option.type === 'boolean' ? ('boolean' as const) : ('string' as const) },
      ]),
    ),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const values = initialValues(spec.options);
  const seen = new Set<string>();
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    if (token.kind === 'option-terminator') continue;
    const option = Object.hasOwn(spec.options, token.name) ? spec.options[token.name] : undefined;
    if (option === undefined) {
      throw new UsageError(
        `unknown option ${JSON.stringify(token.rawName)} (agentconf ${spec.name} --help lists the options)`,
      );
    }
    const name = token.name;
    if (option.type === 'boolean') {
      if (token.value !== undefined) throw new UsageError(`--${name} takes no value`);
      values[name] = true;
      continue;
    }
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith('-'))) {
      const next =
        token.value === undefined
          ? ''
          : `, not the option ${JSON.stringify(token.value)} (write --${name}=VALUE for a value starting with -)`;
      throw new UsageError(`--${name} needs a value (${option.valueName})${next}`);
    }
    const value = convert(name, option, token.value);
    if (isMultiple(option)) {
      (values[name] as unknown[]).push(value);
      continue;
    }
    if (seen.has(name)) throw new UsageError(`--${name} is given twice; give it once`);
    seen.add(name);
    values[name] = value;
  }
  return { values: values as OptionValues<T>, positionals };
}

/** Refuses positionals beyond the `count` a command takes (its usage names them). */
export function expectPositionals(positionals: readonly string[], count: number, what: string): void {
  if (positionals.length > count) {
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[count])}`);
  }
  if (positionals.length < count) throw new UsageError(`missing ${what}`);
}
