/**
 * The SUT config: a JSON file describing the gateway under test (docs/sut.md), checked against
 * fixtures/schemas/sut-config.schema.json and then against the rules a schema cannot express
 * (placeholders, JIDs, which fixture mode needs which placeholder). Every problem is reported at
 * once, each with the JSON pointer of what is wrong.
 */
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

import type { ErrorObject } from 'ajv/dist/2020.js';
import {
  configValidator,
  formatViolation,
  pointerToken,
  schemaViolations as configSchemaViolations,
  type ConfigViolation,
} from '../../protocol/json/config-problems.ts';

import sutConfigSchema from '../../fixtures/schemas/sut-config.schema.json' with { type: 'json' };
import { JsonRejection } from '../../protocol/json/json-rejection.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { JidError, parseBareJid, parseJid } from '../../protocol/jid/index.ts';
import { checkTemplate, jsonStrings, placeholdersIn, type PlaceholderProblem } from './placeholders.ts';
import { withImpliedProfiles, type ProfileId } from '../../protocol/profiles.ts';
import type { RateLimitedRequest } from '../../protocol/rate-limits.ts';
import { appendPointer } from '../../protocol/json/json-pointer.ts';

export type FixtureProvisioning = 'world-file' | 'admin-iq' | 'manual';

/**
 * How the gateway gets the conformance tools (docs/conformance-tools.md): 'native', it hosts
 * them itself and the suites read the ledger through `counter`; 'mcp-stdio', it starts
 * `agentconf conformance-tools --ledger {conformanceLedger}` as an MCP server, and the harness
 * reads that ledger file out of band (conformance-ledger.ts); 'mcp-http', the harness serves
 * them itself over Streamable HTTP at {conformanceToolsUrl} (also in the connection file), the
 * ledger in its own process: the one mode for a gateway the harness does not start.
 */
export type ConformanceToolsHosting = 'native' | 'mcp-stdio' | 'mcp-http';

export interface LaunchCommand {
  /** argv: the program, then its arguments (templates). */
  readonly command: readonly [string, ...string[]];
  /** Added to the harness's environment (values are templates). */
  readonly env: Readonly<Record<string, string>>;
  /** Absolute: resolved against the config file's directory. */
  readonly cwd: string;
  /** Written into {dataDir} before the start: text templates, or JSON documents of templates. */
  readonly files: Readonly<Record<string, string | JsonValue>>;
}

/** 'external': the gateway is running already, or is started by someone else, and connects by itself. */
export type SutLaunch = LaunchCommand | 'external';

/** A command the harness runs itself: the program, then its arguments (no shell). */
export type Argv = readonly [string, ...string[]];

/**
 * Commands that make a running gateway's own storage fail with an I/O error (docs/sut.md,
 * `external.storageFault`): `sync` every fsync and fdatasync, `write` every pwrite, `restore` off.
 */
export interface ExternalStorageFaultCommands {
  readonly sync: Argv;
  readonly write: Argv;
  readonly restore: Argv;
}

/**
 * What the operator of a gateway the harness does not start declares about it (docs/sut.md,
 * `external`): its locale, and commands that kill, freeze and thaw it and fail its storage.
 */
export interface ExternalGatewayControl {
  readonly locale?: string;
  readonly kill?: Argv;
  readonly freeze?: Argv;
  readonly thaw?: Argv;
  readonly storageFault?: ExternalStorageFaultCommands;
}

export interface SutLimits {
  readonly jsonMaxBytes?: number;
  readonly jsonMaxDepth?: number;
  readonly jsonMaxStringLength?: number;
  readonly jsonMaxObjectMembers?: number;
  readonly jsonMaxArrayItems?: number;
  readonly rsmPageMax?: number;
  readonly requestReplaySeconds?: number;
  /** The sustained request rate a sender may keep up (#security rate limits): the run paces to it. */
  readonly requestsPerSecond?: number;
  /** Requests a sender may send at once (default: one second's worth of requestsPerSecond). */
  readonly requestBurst?: number;
  /**
   * The most non-terminal tasks one caller bare JID may hold at once (#rules: bound the task
   * count): rules.task-capacity fills it and expects the next invocation refused.
   */
  readonly activeTasksPerCaller?: number;
  /**
   * Per-operation rate limits the gateway documents for each sender (#security): a ceiling, unlike
   * requestsPerSecond. The model cases pace each sender to its own; security.rate-limit-enforced
   * sends past the ones it can drive from its own account (the prober). Read them through
   * documentedRateLimitsOf, which applies principalRateLimits.
   */
  readonly rateLimits?: RateLimitRules;
  /** Rate limits replacing `rateLimits` for one sender (normalized bare JID) on the operations named. */
  readonly principalRateLimits?: Readonly<Record<string, RateLimitRules>>;
}

export type RateLimitRules = Readonly<Partial<Record<RateLimitedRequest, RateLimitRule>>>;

/** A token bucket: `burst` requests at once, refilled at `perSecond`. */
export interface RateLimitRule {
  readonly perSecond: number;
  readonly burst: number;
}

export interface SutTimeouts {
  readonly startupSeconds: number;
  readonly replySeconds: number;
  readonly taskSeconds: number;
}

/**
 * An MCP bridge the suite starts and drives as an MCP client (docs/caller.md). In `command` and
 * `url`, {config} is the caller config's path and {port} a free port (CALLER_PLACEHOLDERS).
 */
export interface McpCallerDeclaration {
  readonly kind: 'mcp';
  readonly command: Argv;
  /** Streamable HTTP at this URL (a template); absent: stdio. */
  readonly url?: string;
  /** Absolute: resolved against the SUT file's directory. */
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
}

/** The gateway's conformance call-out tool (docs/caller.md): invoking it makes the gateway call. */
export interface GatewayToolCallerDeclaration {
  readonly kind: 'gateway-tool';
  readonly endpoint: string;
  readonly tool: string;
  /**
   * The account the suite invokes the tool as, created by the harness; absent: the adminJid, else
   * a fresh account. One of its own keeps the tool's grant away from every account a gateway case
   * acts as, whose view of the world the suite's model predicts.
   */
  readonly account?: string;
}

export type CallerDeclaration = McpCallerDeclaration | GatewayToolCallerDeclaration;

/** The placeholders of a caller declaration's command and url. */
export const CALLER_PLACEHOLDERS = ['config', 'port'] as const;

/** A SUT file that declares an MCP caller and no gateway: an MCP bridge on its own. */
export interface CallerSutConfig {
  readonly source: string;
  readonly name: string;
  readonly version?: string;
  readonly homepage?: string;
  readonly caller: McpCallerDeclaration;
  readonly timeouts: SutTimeouts;
}

/** What a SUT file describes: a gateway (perhaps also a caller), or only an MCP bridge. */
export type SutFile =
  | { readonly kind: 'gateway'; readonly config: SutConfig }
  | { readonly kind: 'mcp-caller'; readonly config: CallerSutConfig };

export interface SutConfig {
  /** Where the config was read from (a path, or a label for configs built in code). */
  readonly source: string;
  readonly name: string;
  readonly version?: string;
  readonly homepage?: string;
  readonly component: {
    readonly domain: string;
    /** A fixed component port (the federation listens on 127.0.0.1 there); absent: per run. */
    readonly port?: number;
    /** 'generate': the federation's per-run secret; otherwise a fixed secret. */
    readonly secret: string;
  };
  readonly launch: SutLaunch;
  /** With launch 'external': the operator's declarations ({} when none). */
  readonly external: ExternalGatewayControl;
  /** The claim: the listed profiles plus those they build on, in #conformance order. */
  readonly profiles: readonly ProfileId[];
  /** The profiles as the file lists them. */
  readonly declaredProfiles: readonly ProfileId[];
  readonly adminJid?: string;
  readonly fixtures: FixtureProvisioning;
  /**
   * The operator checklist items (`"fixtures": "admin-iq"`: what Administrative Provisioning
   * cannot express, runner/admin-fixtures.ts) the operator declares done, by ID.
   */
  readonly fixturesConfirmed: readonly string[];
  readonly conformanceTools: ConformanceToolsHosting;
  readonly limits: SutLimits;
  readonly timeouts: SutTimeouts;
  /** How the suite makes the gateway call out, when the file declares it. */
  readonly caller?: CallerDeclaration;
}

export const DEFAULT_COMPONENT_DOMAIN = 'agents.example';
export const GENERATED_SECRET = 'generate';
export const DEFAULT_TIMEOUTS: SutTimeouts = { startupSeconds: 30, replySeconds: 10, taskSeconds: 60 };

export type SutConfigViolation = ConfigViolation;
export { formatViolation };

export class SutConfigError extends Error {
  override readonly name = 'SutConfigError';
  constructor(
    readonly source: string,
    readonly violations: readonly SutConfigViolation[],
  ) {
    super(
      [
        `${source}: ${violations.length} problem(s) in the SUT config`,
        ...violations.map(formatViolation),
      ].join('\n  '),
    );
  }
}

const validateSchema = configValidator(sutConfigSchema);

/** `launch` is a string or an object: say so once instead of quoting both branches' errors. */
function rewordLaunch(error: ErrorObject): SutConfigViolation | undefined {
  if (error.instancePath === '/launch' && (error.keyword === 'type' || error.keyword === 'const')) {
    return { path: '/launch', message: 'must be "external" or an object with "command"' };
  }
  if (
    error.instancePath === '/caller' &&
    (error.keyword === 'minProperties' || error.keyword === 'maxProperties')
  ) {
    return { path: '/caller', message: 'must hold one of "mcp" or "gatewayTool"' };
  }
  return undefined;
}

/** What the JSON Schema says, as violations. */
function schemaViolations(value: JsonValue): SutConfigViolation[] {
  return configSchemaViolations(validateSchema, value, rewordLaunch);
}

/** The shape the schema guarantees; members absent stay absent. */
interface RawSutConfig {
  readonly name: string;
  readonly version?: string;
  readonly homepage?: string;
  readonly component: { readonly domain?: string; readonly port?: number; readonly secret: string };
  readonly launch:
    | 'external'
    | {
        readonly command: [string, ...string[]];
        readonly env?: Record<string, string>;
        readonly cwd?: string;
        readonly files?: Record<string, string | JsonValue>;
      };
  readonly profiles: ProfileId[];
  readonly adminJid?: string;
  readonly fixtures: FixtureProvisioning;
  readonly fixturesConfirmed?: string[];
  readonly external?: ExternalGatewayControl;
  readonly conformanceTools?: 'native' | { readonly mcp: 'stdio' | 'http' };
  readonly limits?: SutLimits;
  readonly timeouts?: Partial<SutTimeouts>;
  readonly caller?: RawCaller;
}

type RawCaller =
  | {
      readonly mcp: {
        readonly command: [string, ...string[]];
        readonly url?: string;
        readonly cwd?: string;
        readonly env?: Record<string, string>;
      };
    }
  | { readonly gatewayTool: { readonly endpoint: string; readonly tool: string; readonly account?: string } };

/** A file with an MCP caller and no gateway (the schema then requires nothing else). */
type RawBridgeConfig = Pick<RawSutConfig, 'name' | 'version' | 'homepage' | 'timeouts'> & {
  readonly caller: Extract<RawCaller, { mcp: unknown }>;
};

function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Every template string of a launch object, with its pointer (whatever the schema says about it). */
function* launchTemplates(launch: Record<string, unknown>): Generator<[string, string]> {
  const command = launch['command'];
  if (Array.isArray(command)) {
    for (const [index, arg] of command.entries()) {
      if (typeof arg === 'string') yield [arg, `/launch/command/${index}`];
    }
  }
  for (const [name, value] of Object.entries(objectOf(launch['env']) ?? {})) {
    if (typeof value === 'string') yield [value, `/launch/env/${pointerToken(name)}`];
  }
  for (const [name, content] of Object.entries(objectOf(launch['files']) ?? {})) {
    yield* jsonStrings(content as JsonValue, `/launch/files/${pointerToken(name)}`);
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function conformanceToolsHosting(raw: RawSutConfig['conformanceTools']): ConformanceToolsHosting {
  if (raw === undefined || raw === 'native') return 'native';
  return raw.mcp === 'http' ? 'mcp-http' : 'mcp-stdio';
}

/**
 * `{"mcp": "stdio"}` needs a launch that hands {conformanceLedger} over, and only it may use it;
 * `{"mcp": "http"}` needs a launched gateway to be handed {conformanceToolsUrl}, and only it gives it.
 */
function conformanceToolsViolations(
  tools: unknown,
  launch: Record<string, unknown> | undefined,
  used: ReadonlySet<string>,
): PlaceholderProblem[] {
  const http = objectOf(tools)?.['mcp'] === 'http';
  if (http && launch !== undefined && Array.isArray(launch['command']) && !used.has('conformanceToolsUrl')) {
    return [
      {
        path: '/conformanceTools',
        message:
          '{"mcp": "http"} with a launch command needs the launch to pass {conformanceToolsUrl}, where the harness serves the tools',
      },
    ];
  }
  if (!http && used.has('conformanceToolsUrl')) {
    return [
      {
        path: '/conformanceTools',
        message:
          'the launch uses {conformanceToolsUrl}, which only "conformanceTools": {"mcp": "http"} gives',
      },
    ];
  }
  const stdio = objectOf(tools)?.['mcp'] === 'stdio';
  if (stdio && (launch === undefined || !Array.isArray(launch['command']))) {
    return [
      {
        path: '/conformanceTools',
        message: '{"mcp": "stdio"} needs a launch command: the harness reads the ledger file it hands over',
      },
    ];
  }
  if (stdio && !used.has('conformanceLedger')) {
    return [
      {
        path: '/conformanceTools',
        message:
          '{"mcp": "stdio"} needs a launch that passes {conformanceLedger} to agentconf conformance-tools (--ledger), where the harness reads the ledger',
      },
    ];
  }
  if (!stdio && used.has('conformanceLedger')) {
    return [
      {
        path: '/conformanceTools',
        message: 'the launch uses {conformanceLedger}, which only "conformanceTools": {"mcp": "stdio"} gives',
      },
    ];
  }
  return [];
}

/** A caller's command and url use only {config} and {port}, and {port} only with a url. */
function callerViolations(
  caller: Record<string, unknown> | undefined,
  baseDir: string,
): PlaceholderProblem[] {
  const mcp = objectOf(caller?.['mcp']);
  if (mcp === undefined) return [];
  const problems: PlaceholderProblem[] = [];
  const templates: [string, string][] = [];
  const command = mcp['command'];
  if (Array.isArray(command)) {
    command.forEach((arg: unknown, index) => {
      if (typeof arg === 'string') templates.push([arg, `/caller/mcp/command/${index}`]);
    });
  }
  const url = mcp['url'];
  if (typeof url === 'string') templates.push([url, '/caller/mcp/url']);
  for (const [template, path] of templates) {
    for (const name of placeholdersIn(template)) {
      if (!(CALLER_PLACEHOLDERS as readonly string[]).includes(name)) {
        problems.push({
          path,
          message: `unknown placeholder {${name}} (a caller command knows {config} and {port}; write {{${name}} for a literal)`,
        });
      } else if (name === 'port' && url === undefined) {
        problems.push({ path, message: '{port} is picked for Streamable HTTP: it needs "url"' });
      }
    }
  }
  if (
    Array.isArray(command) &&
    !templates.some(([template]) => placeholdersIn(template).includes('config'))
  ) {
    problems.push({
      path: '/caller/mcp/command',
      message: 'the command must pass {config}, the caller config the suite writes (docs/caller.md)',
    });
  }
  const cwd = mcp['cwd'];
  if (typeof cwd === 'string' && !isDirectory(resolve(baseDir, cwd))) {
    problems.push({ path: '/caller/mcp/cwd', message: `no such directory: ${resolve(baseDir, cwd)}` });
  }
  return problems;
}

function callerDeclaration(raw: RawCaller, baseDir: string): CallerDeclaration {
  if ('gatewayTool' in raw) return { kind: 'gateway-tool', ...raw.gatewayTool };
  const { mcp } = raw;
  return {
    kind: 'mcp',
    command: mcp.command,
    ...(mcp.url === undefined ? {} : { url: mcp.url }),
    cwd: resolve(baseDir, mcp.cwd ?? '.'),
    env: mcp.env ?? {},
  };
}

function buildBridgeConfig(raw: RawBridgeConfig, source: string, baseDir: string): CallerSutConfig {
  return {
    source,
    name: raw.name,
    ...(raw.version === undefined ? {} : { version: raw.version }),
    ...(raw.homepage === undefined ? {} : { homepage: raw.homepage }),
    caller: callerDeclaration(raw.caller, baseDir) as McpCallerDeclaration,
    timeouts: { ...DEFAULT_TIMEOUTS, ...raw.timeouts },
  };
}

/**
 * The rules beyond the schema. They run even when the schema found problems (each rule looks
 * only at members of the right type), so that one pass reports everything.
 */
function semanticViolations(value: JsonValue, baseDir: string): SutConfigViolation[] {
  const config = objectOf(value);
  if (config === undefined) return [];
  const violations: PlaceholderProblem[] = [];
  const launch = objectOf(config['launch']);
  const component = objectOf(config['component']);
  const { fixtures, adminJid } = config;
  const used = new Set<string>();
  if (launch !== undefined) {
    for (const [template, path] of launchTemplates(launch)) {
      violations.push(...checkTemplate(template, path));
      for (const name of placeholdersIn(template)) used.add(name);
    }
    const command = launch['command'];
    if (Array.isArray(command) && command[0] === '') {
      violations.push({ path: '/launch/command/0', message: 'the program must not be empty' });
    }
    const cwd = launch['cwd'];
    if (typeof cwd === 'string' && cwd !== '' && !isDirectory(resolve(baseDir, cwd))) {
      violations.push({ path: '/launch/cwd', message: `no such directory: ${resolve(baseDir, cwd)}` });
    }
    if (
      Array.isArray(command) &&
      component?.['secret'] === GENERATED_SECRET &&
      !used.has('componentSecret')
    ) {
      violations.push({
        path: '/component/secret',
        message: '"generate" makes a new secret for every run, so the launch must pass {componentSecret}',
      });
    }
  }
  if (used.has('adminJid') && adminJid === undefined) {
    violations.push({ path: '/adminJid', message: 'the launch uses {adminJid}, so "adminJid" is required' });
  }
  // An external gateway loads the world file the run names (--world) itself.
  const hasCommand = launch !== undefined && Array.isArray(launch['command']);
  if (fixtures === 'world-file' && hasCommand && !used.has('worldFile')) {
    violations.push({
      path: '/fixtures',
      message: '"world-file" needs a launch command that passes {worldFile} to the gateway',
    });
  }
  if (typeof fixtures === 'string' && fixtures !== 'world-file' && used.has('worldFile')) {
    violations.push({
      path: '/fixtures',
      message: 'the launch uses {worldFile}, which the harness writes only when "fixtures" is "world-file"',
    });
  }
  violations.push(...conformanceToolsViolations(config['conformanceTools'], launch, used));
  if (config['external'] !== undefined && config['launch'] !== 'external') {
    violations.push({
      path: '/external',
      message: 'only a gateway the harness does not start ("launch": "external") is described by "external"',
    });
  }
  violations.push(...callerViolations(objectOf(config['caller']), baseDir));
  const domain = component?.['domain'];
  if (typeof domain === 'string') {
    try {
      const jid = parseJid(domain);
      if (jid.localpart !== undefined || jid.resourcepart !== undefined)
        throw new JidError('resource-present');
    } catch (error) {
      if (!(error instanceof JidError)) throw error;
      violations.push({ path: '/component/domain', message: `not a valid domain (${error.rule})` });
    }
  }
  violations.push(
    ...principalRateLimitViolations(objectOf(objectOf(config['limits'])?.['principalRateLimits'])),
  );
  const adminJidProblem = typeof adminJid === 'string' ? notAnAccountJid(adminJid) : undefined;
  if (adminJidProblem !== undefined) violations.push({ path: '/adminJid', message: adminJidProblem });
  return violations;
}

/** Why `text` is not the bare JID of an account; undefined when it is one. */
function notAnAccountJid(text: string): string | undefined {
  try {
    if (parseBareJid(text).localpart === undefined) throw new JidError('empty-localpart');
    return undefined;
  } catch (error) {
    if (!(error instanceof JidError)) throw error;
    return `not a valid bare JID of an account (${error.rule})`;
  }
}

/** Each sender principalRateLimits names must be the bare JID of an account. */
function principalRateLimitViolations(bySender: Record<string, unknown> | undefined): SutConfigViolation[] {
  return Object.keys(bySender ?? {}).flatMap((sender) => {
    const problem = notAnAccountJid(sender);
    const path = appendPointer('/limits/principalRateLimits', sender);
    return problem === undefined ? [] : [{ path, message: problem }];
  });
}

function buildConfig(raw: RawSutConfig, source: string, baseDir: string): SutConfig {
  const launch: SutLaunch =
    raw.launch === 'external'
      ? 'external'
      : {
          command: raw.launch.command,
          env: raw.launch.env ?? {},
          cwd: resolve(baseDir, raw.launch.cwd ?? '.'),
          files: raw.launch.files ?? {},
        };
  return {
    source,
    name: raw.name,
    ...(raw.version === undefined ? {} : { version: raw.version }),
    ...(raw.homepage === undefined ? {} : { homepage: raw.homepage }),
    component: {
      domain: raw.component.domain ?? DEFAULT_COMPONENT_DOMAIN,
      ...(raw.component.port === undefined ? {} : { port: raw.component.port }),
      secret: raw.component.secret,
    },
    launch,
    external: raw.external ?? {},
    profiles: withImpliedProfiles(raw.profiles),
    declaredProfiles: raw.profiles,
    ...(raw.adminJid === undefined ? {} : { adminJid: raw.adminJid }),
    fixtures: raw.fixtures,
    fixturesConfirmed: raw.fixturesConfirmed ?? [],
    conformanceTools: conformanceToolsHosting(raw.conformanceTools),
    limits: raw.limits ?? {},
    timeouts: { ...DEFAULT_TIMEOUTS, ...raw.timeouts },
    ...(raw.caller === undefined ? {} : { caller: callerDeclaration(raw.caller, baseDir) }),
  };
}

export interface ParseOptions {
  /** Where relative paths (launch.cwd) start; default: the directory of `source`. */
  readonly baseDir?: string;
}

/**
 * Parses and checks a gateway's config; throws SutConfigError listing every problem, also when
 * the file describes an MCP bridge and no gateway (read those with parseSutFile).
 */
export function parseSutConfig(
  text: Uint8Array | string,
  source: string,
  options: ParseOptions = {},
): SutConfig {
  const file = parseSutFile(text, source, options);
  if (file.kind === 'gateway') return file.config;
  throw new SutConfigError(source, [
    {
      path: '',
      message:
        'describes an MCP caller and no gateway ("caller": {"mcp": …} without "component"): the gateway suites have nothing to test',
    },
  ]);
}

/** Parses and checks a SUT file: a gateway, or an MCP bridge alone (docs/caller.md). */
export function parseSutFile(text: Uint8Array | string, source: string, options: ParseOptions = {}): SutFile {
  let value: JsonValue;
  try {
    value = parseStrictJson(text);
  } catch (error) {
    if (!(error instanceof JsonRejection)) throw error;
    const message = error.message.replace(/ at line \d+, column \d+$/, '');
    throw new SutConfigError(source, [
      { path: '', message: `not JSON: ${message}`, line: error.line, column: error.column },
    ]);
  }
  const baseDir = options.baseDir ?? dirname(resolve(source));
  const violations = schemaViolations(value);
  // A rule's finding is left out where the schema already complained about the same member.
  for (const violation of semanticViolations(value, baseDir)) {
    if (!violations.some((v) => v.path === violation.path)) violations.push(violation);
  }
  if (violations.length > 0) throw new SutConfigError(source, violations);
  // The schema has vouched for the shape: without "component" it is a bridge's file.
  if (objectOf(value)?.['component'] === undefined) {
    return {
      kind: 'mcp-caller',
      config: buildBridgeConfig(value as unknown as RawBridgeConfig, source, baseDir),
    };
  }
  return { kind: 'gateway', config: buildConfig(value as unknown as RawSutConfig, source, baseDir) };
}

async function readSutBytes(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    throw new SutConfigError(path, [{ path: '', message: `cannot read the file (${reason})` }]);
  }
}

/** Reads and checks the gateway config file at `path`. */
export async function loadSutConfig(path: string): Promise<SutConfig> {
  return parseSutConfig(await readSutBytes(path), path);
}

/** Reads and checks the SUT file at `path`, a gateway's or an MCP bridge's. */
export async function loadSutFile(path: string): Promise<SutFile> {
  return parseSutFile(await readSutBytes(path), path);
}
