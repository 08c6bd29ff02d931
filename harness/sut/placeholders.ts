/**
 * Placeholders in a SUT launch template: `{name}` is replaced by a fact of the run, `{{name}` is a
 * literal `{name}`, and every other brace is literal (so Lua tables and JSON text need no escaping).
 * An unknown name is an error, never left as it is: a typo must not reach the gateway's argv.
 */
import { join } from 'node:path';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { appendPointer } from '../../protocol/json/json-pointer.ts';

export const PLACEHOLDER_NAMES = [
  'serverHost',
  'componentPort',
  'componentDomain',
  'componentSecret',
  'worldFile',
  'dataDir',
  'caFile',
  'adminJid',
  'conformanceLedger',
  'conformanceToolsUrl',
] as const;

/** The conformance tools' ledger file in {dataDir}, when they run as an MCP server (`{conformanceLedger}`). */
export const CONFORMANCE_LEDGER_FILE = 'conformance-ledger.jsonl';

export type PlaceholderName = (typeof PLACEHOLDER_NAMES)[number];

/** The facts of one run that a launch template may use. */
export interface LaunchFacts {
  /** Where the gateway opens its component connection (the component link's fault proxy). */
  readonly serverHost: string;
  readonly componentPort: number;
  readonly componentDomain: string;
  readonly componentSecret: string;
  /** The fixture-world file the harness wrote. */
  readonly worldFile: string;
  /** A fresh, empty directory of this run; kept across restarts of the gateway. */
  readonly dataDir: string;
  /** PEM file of the run's CA, which every server certificate chains to. */
  readonly caFile: string;
  /** Absent when the config names no admin JID; using it then is an error. */
  readonly adminJid?: string | undefined;
  /** Default: CONFORMANCE_LEDGER_FILE in dataDir. */
  readonly conformanceLedger?: string | undefined;
  /**
   * The MCP endpoint of the conformance tools the harness serves itself (`"conformanceTools":
   * {"mcp": "http"}`); absent otherwise, and using it then is an error.
   */
  readonly conformanceToolsUrl?: string | undefined;
}

/** A fact, the derived ones included. */
function factOf(facts: LaunchFacts, name: PlaceholderName): string | number | undefined {
  if (name === 'conformanceLedger')
    return facts.conformanceLedger ?? join(facts.dataDir, CONFORMANCE_LEDGER_FILE);
  return facts[name];
}

export interface PlaceholderProblem {
  /** JSON pointer of the string within the launch template. */
  readonly path: string;
  readonly message: string;
}

const PLACEHOLDER = /\{(\{?)([A-Za-z][A-Za-z0-9]*)\}/g;

function isPlaceholderName(name: string): name is PlaceholderName {
  return (PLACEHOLDER_NAMES as readonly string[]).includes(name);
}

function unknownMessage(name: string): string {
  const sameLetters = PLACEHOLDER_NAMES.find((known) => known.toLowerCase() === name.toLowerCase());
  const known =
    sameLetters === undefined
      ? `known: ${PLACEHOLDER_NAMES.map((n) => `{${n}}`).join(', ')}`
      : `did you mean {${sameLetters}}?`;
  return `unknown placeholder {${name}} (${known}; write {{${name}} for a literal {${name}})`;
}

/** The placeholder names a template uses (escaped ones excluded), in order of appearance. */
export function placeholdersIn(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].filter((m) => m[1] === '').map((m) => m[2] ?? '');
}

/** Problems with the names a template uses; `facts` given: also names whose fact is missing. */
export function checkTemplate(template: string, path: string, facts?: LaunchFacts): PlaceholderProblem[] {
  const problems: PlaceholderProblem[] = [];
  for (const name of new Set(placeholdersIn(template))) {
    if (!isPlaceholderName(name)) problems.push({ path, message: unknownMessage(name) });
    else if (facts !== undefined && factOf(facts, name) === undefined) {
      problems.push({ path, message: `{${name}} is used, but the config names no ${name}` });
    }
  }
  return problems;
}

function factText(facts: LaunchFacts, name: PlaceholderName): string {
  const value = factOf(facts, name);
  if (value === undefined) throw new Error(`no fact for {${name}}`);
  return String(value);
}

/** Replaces every placeholder; call checkTemplate first (unknown names throw here). */
export function fillTemplate(template: string, facts: LaunchFacts): string {
  return template.replace(PLACEHOLDER, (whole, escape: string, name: string) => {
    if (escape !== '') return whole.slice(1);
    if (!isPlaceholderName(name)) throw new Error(unknownMessage(name));
    return factText(facts, name);
  });
}

/** Every string leaf of a JSON file template, with its pointer below `path`. */
export function* jsonStrings(value: JsonValue, path: string): Generator<[string, string]> {
  if (typeof value === 'string') {
    yield [value, path];
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) yield* jsonStrings(item, `${path}/${index}`);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      yield* jsonStrings(item, appendPointer(path, key));
    }
  }
}

/**
 * A JSON file template filled in: strings are templates, and a string that is exactly one
 * numeric placeholder (`"{componentPort}"`) becomes that number, so configs keep their types.
 */
export function fillJsonTemplate(value: JsonValue, facts: LaunchFacts): JsonValue {
  if (typeof value === 'string') {
    const whole = /^\{([A-Za-z][A-Za-z0-9]*)\}$/.exec(value)?.[1];
    if (whole !== undefined && isPlaceholderName(whole) && typeof facts[whole] === 'number') {
      return facts[whole];
    }
    return fillTemplate(value, facts);
  }
  if (Array.isArray(value)) return value.map((item) => fillJsonTemplate(item, facts));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, fillJsonTemplate(item, facts)]),
    );
  }
  return value;
}
