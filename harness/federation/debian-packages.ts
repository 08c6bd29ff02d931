// Makes sure the Debian packages of a system tool (../system-tools.ts: Prosody with the resolver
// and TLS bindings the harness depends on, ejabberd with its Erlang runtime, libfiu…) are present.
// Installing is only attempted where it cannot surprise anyone: as root, with apt-get available;
// otherwise the error names the exact command to run.
import { execFile } from 'node:child_process';
import { access, constants, readFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { systemTool } from '../system-tools.ts';

const run = promisify(execFile);

export interface SoftwareRequirement {
  /** What the error message calls it. */
  readonly name: string;
  /** The executable that must end up on PATH. */
  readonly program: string;
  readonly packages: readonly string[];
  /** What needs it, for the refusal message (default: the native federation provider). */
  readonly neededBy?: string;
}

// The table's entries under the names the providers and the tests import.
export const PROSODY: SoftwareRequirement = systemTool('prosody');
export const EJABBERD: SoftwareRequirement = systemTool('ejabberd');
export const CHROMIUM: SoftwareRequirement = systemTool('chromium');
export const OPENSSL: SoftwareRequirement = systemTool('openssl');

/** The command a person has to run when the harness may not install the packages itself. */
export function installCommand(requirement: SoftwareRequirement): string {
  return `sudo apt-get install -y ${requirement.packages.join(' ')}`;
}

export const PROSODY_INSTALL_COMMAND = installCommand(PROSODY);

export async function findOnPath(program: string): Promise<string | undefined> {
  for (const dir of (process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, program);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

const DPKG_STATUS = '/var/lib/dpkg/status';

/**
 * Reads dpkg's status database directly (what dpkg-query does, without the cost of a process:
 * spawning is the slow part of a boot here). Undefined on machines without dpkg.
 */
async function missingDebianPackages(names: readonly string[]): Promise<string[] | undefined> {
  let status: string;
  try {
    status = await readFile(DPKG_STATUS, 'utf8');
  } catch {
    return undefined;
  }
  const installed = new Set<string>();
  for (const paragraph of status.split(/\n\n+/)) {
    const name = /^Package: (\S+)$/m.exec(paragraph)?.[1];
    if (name !== undefined && /^Status: install ok installed$/m.test(paragraph)) installed.add(name);
  }
  return names.filter((name) => !installed.has(name));
}

/**
 * Installs under a machine-wide lock, so that test workers installing at the same moment take
 * turns. Packaged daemons must not start as a side effect: a policy-rc.d that refuses every action
 * does that on Debian (an existing policy belongs to the machine and is left alone). A machine
 * without package lists cannot find anything: they are refreshed once, then the install retried.
 */
const APT_INSTALL_SCRIPT = `
policy=/usr/sbin/policy-rc.d
ours=""
if [ ! -e "$policy" ]; then printf '#!/bin/sh\\nexit 101\\n' > "$policy" && chmod 755 "$policy" && ours=1; fi
install() { apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends "$@"; }
install "$@" || { apt-get -o DPkg::Lock::Timeout=300 update && install "$@"; }
status=$?
[ -n "$ours" ] && rm -f "$policy"
exit $status
`;

export async function installDebianPackages(names: readonly string[]): Promise<void> {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await run('flock', ['/var/lock/agentconf-apt.lock', '/bin/sh', '-c', APT_INSTALL_SCRIPT, 'sh', ...names], {
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
}

export interface SetupFacts {
  /** Where the requirement's program is on PATH, if anywhere. */
  readonly programPath: string | undefined;
  /** Of the requirement's packages, those dpkg does not list as installed (empty without dpkg). */
  readonly missingPackages: readonly string[];
  readonly isRoot: boolean;
  readonly hasApt: boolean;
}

/** Why the harness leaves an install to a person. */
export type RefusalReason = 'not root' | 'no apt-get';

export type Setup =
  | { readonly action: 'use'; readonly path: string }
  | { readonly action: 'install'; readonly packages: readonly string[] }
  | { readonly action: 'refuse'; readonly reason: RefusalReason; readonly message: string };

/** A requirement that is missing and was not (or could not be) installed. */
export class MissingSoftware extends Error {
  override readonly name = 'MissingSoftware';
  readonly requirement: SoftwareRequirement;
  /** Short, for one log line: why it is still missing ('not root', 'apt-get failed: …'). */
  readonly reason: string;

  constructor(requirement: SoftwareRequirement, reason: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.requirement = requirement;
    this.reason = reason;
  }
}

/** What to do on this machine; installing is only ever done as root with apt-get. */
export function decideSetup(requirement: SoftwareRequirement, facts: SetupFacts): Setup {
  if (facts.programPath !== undefined && facts.missingPackages.length === 0) {
    return { action: 'use', path: facts.programPath };
  }
  if (!facts.isRoot || !facts.hasApt) {
    return {
      action: 'refuse',
      reason: facts.isRoot ? 'no apt-get' : 'not root',
      message: `${requirement.name} is required by ${requirement.neededBy ?? 'the native federation provider'}. Install it with:\n  ${installCommand(requirement)}`,
    };
  }
  return {
    action: 'install',
    packages: facts.missingPackages.length > 0 ? facts.missingPackages : requirement.packages,
  };
}

/** The last line apt-get wrote to stderr (its "E: …" line), for a one-line reason. */
function aptComplaint(error: unknown): string | undefined {
  const stderr = (error as { stderr?: unknown } | undefined)?.stderr;
  if (typeof stderr !== 'string') return undefined;
  return stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .at(-1);
}

export interface EnsureOptions {
  /** Called once, before apt-get starts, when this call installs packages. */
  readonly onInstall?: (packages: readonly string[]) => void;
}

async function locateOrInstall(requirement: SoftwareRequirement, options: EnsureOptions): Promise<string> {
  const setup = decideSetup(requirement, {
    programPath: await findOnPath(requirement.program),
    // Without dpkg we cannot tell whether the libraries are there: the program must do.
    missingPackages: (await missingDebianPackages(requirement.packages)) ?? [],
    isRoot: process.getuid?.() === 0,
    hasApt: (await findOnPath('apt-get')) !== undefined,
  });
  if (setup.action === 'use') return setup.path;
  if (setup.action === 'refuse') throw new MissingSoftware(requirement, setup.reason, setup.message);
  const retry = `run:\n  ${installCommand(requirement)}`;
  options.onInstall?.(setup.packages);
  try {
    await installDebianPackages(setup.packages);
  } catch (error) {
    const complaint = aptComplaint(error);
    throw new MissingSoftware(
      requirement,
      `apt-get failed${complaint === undefined ? '' : `: ${complaint}`}`,
      `Installing ${setup.packages.join(' ')} failed; ${retry}`,
      { cause: error },
    );
  }
  const installed = await findOnPath(requirement.program);
  if (installed === undefined) {
    throw new MissingSoftware(
      requirement,
      `apt-get installed it but ${requirement.program} is not on PATH`,
      `apt-get reported success but ${requirement.program} is not on PATH; ${retry}`,
    );
  }
  return installed;
}

const ensured = new Map<SoftwareRequirement, Promise<string>>();

/**
 * Resolves with the path of the requirement's program, installing its packages first when
 * allowed; rejects with MissingSoftware otherwise. Concurrent callers share one attempt (only
 * the first one's onInstall is called).
 */
export function ensureSoftware(
  requirement: SoftwareRequirement,
  options: EnsureOptions = {},
): Promise<string> {
  let found = ensured.get(requirement);
  if (found === undefined) {
    found = locateOrInstall(requirement, options);
    ensured.set(requirement, found);
    // A failed attempt must not poison the next caller (a person may install by hand in between).
    found.catch(() => ensured.delete(requirement));
  }
  return found;
}

export function ensureProsody(): Promise<string> {
  return ensureSoftware(PROSODY);
}
