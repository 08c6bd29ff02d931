/**
 * Starts the gateway under test against a running federation: checks that the SUT config and the
 * federation agree on the component, creates the admin account, prepares a fresh directory (data
 * directory, fixture-world file, the config's files), fills in the launch template and starts the
 * process through ManagedProcess — so kill -9, restart and the teardown guarantees come with it.
 *
 * The fixture world is written into the run directory, away from the file it came from, so it is
 * written self-contained: a world file given by path has every `{ "file" }` manifest inlined
 * first (inlineWorldFile), since a relative manifest path would otherwise resolve against the run
 * directory and name nothing.
 */
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { JsonValue } from '../../protocol/json/json-value.ts';
import { bareJidEquals, parseBareJid } from '../../protocol/jid/index.ts';
import { ConfigError } from '../../protocol/json/config-file.ts';
import { inlineWorldFile } from '../../protocol/fixture-world-file.ts';
import { ManagedProcess } from '../faults/managed-process.ts';
import { registerExitCleanup } from '../federation/exit-cleanup.ts';
import { guardDirectory, releaseDirectory } from '../federation/orphan-watchdog.ts';
import type { Account, Federation } from '../federation/server-provider.ts';
import { expandLaunch, type ExpandedLaunch } from './expand-launch.ts';
import { fiuWrapper, storageFaultsOf, type StorageFaults } from './storage-faults.ts';
import type { LaunchFacts } from './placeholders.ts';
import { GENERATED_SECRET, type SutConfig } from './sut-config.ts';

/** The SUT config and the federation cannot work together (a config problem, not a crash). */
export class SutMismatchError extends Error {
  override readonly name = 'SutMismatchError';
}

export interface SutLaunchOptions {
  readonly config: SutConfig;
  readonly federation: Federation;
  /**
   * The fixture world as a value, written to {worldFile} as it is: it must be self-contained
   * (inline manifests, or absolute `file` paths). Give `worldFile` or `world` (not both) when the
   * config's fixtures is 'world-file'.
   */
  readonly world?: JsonValue;
  /** A fixture-world file on disk: its manifests are inlined and the result written to {worldFile}. */
  readonly worldFile?: string;
  /** Where the harness serves the conformance tools (`"conformanceTools": {"mcp": "http"}`). */
  readonly conformanceToolsUrl?: string;
}

export interface SutInstance {
  readonly config: SutConfig;
  /** What the launch template was filled with (also useful to print for an external gateway). */
  readonly facts: LaunchFacts;
  /** The admin account the harness created for the config's adminJid. */
  readonly adminAccount: Account | undefined;
  /** The account for caller.gatewayTool.account, when the config names one. */
  readonly callOutAccount: Account | undefined;
  /** Undefined when the launch is 'external'. */
  readonly launch: ExpandedLaunch | undefined;
  readonly process: ManagedProcess | undefined;
  /** Storage faults inside the launched gateway (libfiu), when fiu-utils is installed. */
  readonly storageFaults?: StorageFaults;
  /** Stops the gateway (SIGTERM, SIGKILL after `graceMs`) and removes the run's directory. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

/** The component domain and secret the gateway must use with this federation. */
export function componentFor(config: SutConfig, federation: Federation): { domain: string; secret: string } {
  const { component } = federation;
  if (config.component.domain !== component.domain) {
    throw new SutMismatchError(
      `the SUT config's component domain is ${config.component.domain}, but the ${federation.provider} ` +
        `federation routes ${component.domain} to its component port`,
    );
  }
  if (config.component.secret !== GENERATED_SECRET && config.component.secret !== component.secret) {
    throw new SutMismatchError(
      `the SUT config fixes the component secret, but the ${federation.provider} federation's secret ` +
        'is a different one (use "secret": "generate" to take the federation\'s per-run secret)',
    );
  }
  const { port } = config.component;
  if (port !== undefined && port !== component.port) {
    throw new SutMismatchError(
      `the SUT config fixes the component port ${String(port)}, but the ${federation.provider} ` +
        `federation's component link is at ${component.host}:${String(component.port)}`,
    );
  }
  return { domain: component.domain, secret: component.secret };
}

/**
 * The account of a JID the config names (its adminJid, its call-out account): one the federation
 * has already (an external federation lists its accounts), or one created now with a fresh
 * password on the server of its domain.
 */
async function declaredAccount(jid: string, what: string, federation: Federation): Promise<Account> {
  const existing = federation.accounts.find((account) => bareJidEquals(account.jid, jid));
  if (existing !== undefined) return existing;
  const { localpart, domainpart } = parseBareJid(jid);
  const served: readonly string[] = [federation.domains.local, federation.domains.remote];
  if (localpart === undefined || !served.includes(domainpart)) {
    throw new SutMismatchError(
      `${what} ${jid} must be an account on ${served.join(' or ')}, the domains whose ` +
        'servers this federation runs',
    );
  }
  try {
    return await federation.createAccount({ username: localpart, domain: domainpart });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SutMismatchError(`cannot create the ${what} account ${jid}: ${reason}`);
  }
}

function adminAccountFor(config: SutConfig, federation: Federation): Promise<Account | undefined> {
  return config.adminJid === undefined
    ? Promise.resolve(undefined)
    : declaredAccount(config.adminJid, 'adminJid', federation);
}

/** The account a gateway's call-out tool is invoked as, when the SUT file names one (docs/caller.md). */
function callOutAccountFor(config: SutConfig, federation: Federation): Promise<Account | undefined> {
  const { caller } = config;
  return caller?.kind === 'gateway-tool' && caller.account !== undefined
    ? declaredAccount(caller.account, 'caller.gatewayTool.account', federation)
    : Promise.resolve(undefined);
}

/** A directory of this run, removed at stop and on every exit path (like the federation's own). */
async function runDirectory(): Promise<{ dir: string; release: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'agentconf-sut-'));
  const forget = registerExitCleanup(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  guardDirectory(dir);
  return {
    dir,
    release: async () => {
      await rm(dir, { recursive: true, force: true });
      releaseDirectory(dir);
      forget();
    },
  };
}

/** The world to write, self-contained; undefined when none was given. */
function worldOf(options: SutLaunchOptions): JsonValue | undefined {
  if (options.worldFile === undefined) return options.world;
  if (options.world !== undefined)
    throw new SutMismatchError('give the fixture world or a world file, not both');
  try {
    return inlineWorldFile(options.worldFile);
  } catch (error) {
    if (error instanceof ConfigError)
      throw new SutMismatchError(`the fixture world is not usable: ${error.message}`);
    throw error;
  }
}

/** Starts the SUT described by `config` for `federation` (nothing to start when its launch is 'external'). */
export async function launchSut(options: SutLaunchOptions): Promise<SutInstance> {
  const { config, federation } = options;
  const component = componentFor(config, federation);
  const world = worldOf(options);
  if (config.fixtures === 'world-file' && world === undefined) {
    throw new SutMismatchError(
      `${config.name} takes its fixtures from a world file, but no fixture world was given`,
    );
  }
  const adminAccount = await adminAccountFor(config, federation);
  const callOutAccount = await callOutAccountFor(config, federation);
  const run = config.launch === 'external' ? undefined : await runDirectory();
  const baseFacts = {
    serverHost: federation.component.host,
    componentPort: federation.component.port,
    componentDomain: component.domain,
    componentSecret: component.secret,
    caFile: federation.caCertPath,
    adminJid: config.adminJid,
    conformanceToolsUrl: options.conformanceToolsUrl,
  };
  if (run === undefined || config.launch === 'external') {
    return {
      config,
      facts: { ...baseFacts, worldFile: '', dataDir: '' },
      adminAccount,
      callOutAccount,
      launch: undefined,
      process: undefined,
      stop: () => Promise.resolve(),
    };
  }

  let managed: ManagedProcess | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (graceMs = 2_000): Promise<void> => {
    stopping ??= (async () => {
      try {
        await managed?.stop('SIGTERM', graceMs);
      } finally {
        await run.release();
      }
    })();
    return stopping;
  };
  try {
    const facts: LaunchFacts = {
      ...baseFacts,
      worldFile: join(run.dir, 'world.json'),
      dataDir: join(run.dir, 'data'),
    };
    await mkdir(facts.dataDir, { mode: 0o750 });
    const launch = expandLaunch(config.launch, facts, config.source);
    if (world !== undefined && config.fixtures === 'world-file') {
      await writeFile(facts.worldFile, `${JSON.stringify(world, null, 2)}\n`, { mode: 0o640 });
    }
    for (const file of launch.files) await writeFile(file.path, file.content, { mode: 0o640 });
    // Under libfiu when it is installed, so that cases can make its storage fail (storage-faults.ts).
    const fiu = await fiuWrapper(run.dir, launch.env['LD_PRELOAD'] ?? process.env['LD_PRELOAD']);
    managed = await ManagedProcess.start({
      name: config.name,
      command: launch.command,
      args: launch.args,
      env: { ...launch.env, ...fiu?.env },
      cwd: launch.cwd,
    });
    const storageFaults = fiu === undefined ? undefined : storageFaultsOf(fiu, managed);
    return {
      config,
      facts,
      adminAccount,
      callOutAccount,
      launch,
      process: managed,
      ...(storageFaults === undefined ? {} : { storageFaults }),
      stop,
    };
  } catch (error) {
    await stop(0).catch(() => undefined);
    throw error;
  }
}
