/**
 * The one table of the programs agentconf runs that a Debian base system may lack: which
 * packages bring each, what needs it, and whether a default `agentconf run` or `npm test` can
 * pass without it. The installer (federation/debian-packages.ts) installs from it, the run
 * ensures the entries its selected cases declare (`needs` on a case), and
 * federation/ensure-packages-cli.ts walks it for CI.
 *
 * Programs left out are in every Debian system: BASE_SYSTEM_PROGRAMS names each with the
 * package that guarantees it (system-tools.test.ts checks them against dpkg).
 */
import type { SoftwareRequirement } from './federation/debian-packages.ts';

export type SystemToolId =
  'prosody' | 'openssl' | 'ejabberd' | 'chromium' | 'libfiu' | 'docker' | 'debootstrap';

export interface SystemTool extends SoftwareRequirement {
  readonly id: SystemToolId;
  /** Whether a default `agentconf run` can pass every claimed profile without it. */
  readonly defaultRun: 'required' | 'not used';
  /** Whether `npm test` can pass without it ('skipped': the tests that need it say NOT RUN). */
  readonly npmTest: 'required' | 'skipped' | 'not used';
  /**
   * Who makes sure it is there before it is used: a federation provider, the run (for the cases
   * that declare it), the tests that use it, or the container tooling (docker-engine-cli.ts,
   * build-image), which installs it in its own CI step.
   */
  readonly ensuredBy: 'provider' | 'run' | 'tests' | 'containers';
  /** The federation provider that runs it, if one does. */
  readonly provider?: string;
  /** IDs of the conformance cases that declare it (their `needs`); must equal the declarations. */
  readonly cases: readonly string[];
  /**
   * Test files that fail (or skip) without it, relative to the repository root, beyond those
   * that start its provider's federation (a provider's tools are needed by every such test).
   */
  readonly tests: readonly string[];
}

const TOOLS: readonly SystemTool[] = [
  {
    id: 'prosody',
    name: 'Prosody (with lua-unbound and lua-sec)',
    program: 'prosody',
    packages: ['prosody', 'lua-unbound', 'lua-sec'],
    neededBy: 'the native federation provider',
    defaultRun: 'required',
    npmTest: 'required',
    ensuredBy: 'provider',
    provider: 'native',
    cases: [],
    tests: [],
  },
  {
    id: 'openssl',
    name: 'OpenSSL',
    // Each run's throw-away CA and server certificates (federation/certificates.ts). Prosody's
    // ssl-cert dependency brings it, but certificates are issued while Prosody is still ensured.
    program: 'openssl',
    packages: ['openssl'],
    neededBy: "the federation providers' run certificates",
    defaultRun: 'required',
    npmTest: 'required',
    ensuredBy: 'provider',
    provider: 'native, container',
    cases: [],
    tests: [],
  },
  {
    id: 'ejabberd',
    name: 'ejabberd',
    // Run as a plain Erlang node (federation/ejabberd-server.ts), so the Erlang runtime is what starts.
    program: 'erl',
    packages: ['ejabberd'],
    neededBy: 'the native federation provider with ejabberd as server A (--server-a ejabberd)',
    defaultRun: 'not used',
    npmTest: 'required',
    ensuredBy: 'provider',
    provider: "native (serverA: 'ejabberd')",
    cases: [],
    tests: ['harness/federation/ejabberd-federation.test.ts', 'integration/server-stack-ejabberd.test.ts'],
  },
  {
    id: 'chromium',
    name: 'Chromium',
    // Headless screenshots prove the interop matrix and the Allure report render (runner/reports/).
    program: 'chromium',
    packages: ['chromium'],
    neededBy: 'the report rendering tests',
    defaultRun: 'not used',
    npmTest: 'skipped',
    ensuredBy: 'tests',
    cases: [],
    tests: ['cli/render-reports.test.ts'],
  },
  {
    id: 'libfiu',
    name: 'libfiu (fiu-utils)',
    // Fault injection inside the launched gateway's process: fsync and pwrite fail on demand
    // (sut/storage-faults.ts); fiu-ctrl comes in the same package.
    program: 'fiu-run',
    packages: ['fiu-utils'],
    neededBy: 'the storage-fault case',
    defaultRun: 'required',
    npmTest: 'required',
    ensuredBy: 'run',
    cases: ['invocation.storage-fault-no-accepted'],
    tests: ['integration/conformance-tools-mcp.test.ts', 'integration/verdict-proofs-crash.test.ts'],
  },
  {
    id: 'docker',
    name: 'Docker engine',
    // containers/docker-engine.ts installs it (ensureSoftware) only when no dockerd is on PATH:
    // docker-ce's dockerd, from Docker's own repository, comes without docker.io.
    program: 'dockerd',
    packages: ['docker.io'],
    neededBy: 'the container federation provider',
    defaultRun: 'not used',
    npmTest: 'not used',
    ensuredBy: 'containers',
    provider: 'container',
    cases: [],
    tests: [],
  },
  {
    id: 'debootstrap',
    name: 'debootstrap',
    // Builds the local Prosody image from the host's Debian mirror (containers/build-image).
    program: 'debootstrap',
    packages: ['debootstrap'],
    neededBy: "the container provider's image build",
    defaultRun: 'not used',
    npmTest: 'not used',
    ensuredBy: 'containers',
    provider: 'container',
    cases: [],
    tests: [],
  },
];

export const SYSTEM_TOOLS: ReadonlyMap<SystemToolId, SystemTool> = new Map(
  TOOLS.map((tool) => [tool.id, tool]),
);

/** The entry of `id`; throws for a name the table does not have (a case declaring a typo). */
export function systemTool(id: string): SystemTool {
  const tool = SYSTEM_TOOLS.get(id as SystemToolId);
  if (tool === undefined) {
    throw new Error(
      `"${id}" is not a system tool (harness/system-tools.ts has ${[...SYSTEM_TOOLS.keys()].join(', ')})`,
    );
  }
  return tool;
}

/**
 * Programs the harness, the suites and the tests start that are not in the table, with the
 * package that brings each: every one is Essential or of Priority required in Debian, so in
 * every Debian system (debootstrap's minbase included).
 */
export const BASE_SYSTEM_PROGRAMS: readonly { readonly program: string; readonly package: string }[] = [
  // The apt installer's lock (debian-packages.ts); unshare puts ejabberd in a mount namespace.
  { program: 'flock', package: 'util-linux' },
  { program: 'unshare', package: 'util-linux' },
  // Bind-mounts ejabberd's hosts file inside that namespace.
  { program: 'mount', package: 'mount' },
  // The orphan watchdog, the certificate script, the installer script.
  { program: 'sh', package: 'dash' },
  { program: 'rm', package: 'coreutils' },
  { program: 'apt-get', package: 'apt' },
  // integration/ci-commands.test.ts runs docs/ci.md's blocks and lists the packed tarball.
  { program: 'bash', package: 'bash' },
  { program: 'tar', package: 'tar' },
];
