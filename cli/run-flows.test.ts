// agentconf run, issue 13's additions: the usage errors and start failures of a gateway the
// harness does not start (exit 2 and 3, one message each), a rate-limiting gateway (its
// resource-constraint answers undecided, not failed; paced from the SUT file, it passes), and
// Ctrl-C (a partial report marked interrupted, exit 130), with the gateway's and the servers'
// logs kept in the report folder.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../harness/repo-root.ts';
import type { RunResult } from '../runner/run-result.ts';
import { runCli } from './test-support/run-cli.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentconf-run-flows-'));
  dirs.push(dir);
  return dir;
}

function readResult(dir: string): RunResult {
  return JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult;
}

const REFERENCE = JSON.parse(
  readFileSync(join(REPO_ROOT, 'fixtures', 'sut', 'reference-gateway.json'), 'utf8'),
) as Record<string, unknown> & {
  launch: { command: string[]; cwd?: string; files: { 'gateway.json': Record<string, unknown> } };
};

/** A SUT file: the reference gateway's, changed by `change`. */
function sutFile(dir: string, name: string, change: (config: Record<string, unknown>) => void): string {
  const { $schema: _schema, ...config } = structuredClone(REFERENCE);
  config.launch = { ...config.launch, cwd: REPO_ROOT };
  change(config);
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  return file;
}

const EXTERNAL = {
  name: 'a gateway nobody starts',
  component: { secret: 'generate' },
  launch: 'external',
  profiles: ['core-directory'],
  fixtures: 'manual',
  timeouts: { startupSeconds: 1 },
};

/**
 * `agentconf run --sut SUT --out OUT` as a process, sent SIGINT once its output so far satisfies
 * `ready` (or at once if it exits before): Ctrl-C at a chosen moment of the run.
 */
async function interruptedRun(
  sut: string,
  out: string,
  ready: (stdout: string) => boolean,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    ['bin/agentconf.js', 'run', '--provider', 'native', '--sut', sut, '--out', out],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      resolve(code);
    });
  });
  const reached = new Promise<void>((resolve) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (ready(stdout)) resolve();
    });
  });
  await Promise.race([reached, exited]);
  child.kill('SIGINT');
  const code = await exited;
  return { code, stdout, stderr };
}

describe('agentconf run: a gateway the harness does not start', () => {
  it('refuses a bad --rate and an unwritable --connection-file before anything starts (exit 2)', async () => {
    for (const rate of ['0', '-1', 'fast']) {
      const run = await runCli(['run', `--rate=${rate}`, '--out', tempDir()]);
      expect(run.code).toBe(2);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(`agentconf run: --rate takes a number greater than 0, not "${rate}"\n`);
    }
    const unwritable = await runCli([
      'run',
      '--connection-file',
      '/nonexistent/dir/connection.json',
      '--out',
      tempDir(),
    ]);
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr).toContain(
      '--connection-file /nonexistent/dir/connection.json cannot be written (its folder: ENOENT)',
    );
    expect(unwritable.stdout).toBe('');
    const dir = tempDir();
    const external = join(dir, 'external.json');
    writeFileSync(
      external,
      JSON.stringify({ servers: { a: { host: 'a' } }, accounts: [], caCertPath: '/ca' }),
    );
    const invalid = await runCli([
      'run',
      '--provider',
      'external',
      '--external',
      external,
      '--out',
      tempDir(),
    ]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toBe(
      [
        `invalid: ${external}: 2 problem(s) in the external federation file`,
        '  /component: "component" is required',
        '  /servers/b: "b" is required',
        '',
      ].join('\n'),
    );
  });

  it('names a fixed component port the external federation does not have (exit 3)', async () => {
    const dir = tempDir();
    const sut = join(dir, 'fixed.json');
    writeFileSync(
      sut,
      JSON.stringify({
        ...EXTERNAL,
        component: { port: 15347, secret: "the secret in server B's component config" },
      }),
    );
    const example = join(REPO_ROOT, 'fixtures', 'federation', 'external.example.json');
    const out = tempDir();
    const run = await runCli([
      'run',
      '--provider',
      'external',
      '--external',
      example,
      '--sut',
      sut,
      '--out',
      out,
    ]);
    expect(run.code).toBe(3);
    expect(run.stderr).toBe(
      "agentconf run: the SUT config fixes the component port 15347, but the external federation's component link is at 192.0.2.20:5347\n" +
        `agentconf run: nothing was judged; conformance.md and the logs are in ${out}\n`,
    );
    expect(readFileSync(join(out, 'conformance.md'), 'utf8')).toContain(
      "the SUT config fixes the component port 15347, but the external federation's component link",
    );
  });

  it('says in one message when the gateway never connects, and when the fixed component port is taken (exit 3)', async () => {
    const dir = tempDir();
    const silent = join(dir, 'silent.json');
    writeFileSync(silent, JSON.stringify(EXTERNAL));
    const neverOut = tempDir();
    const never = await runCli(['run', '--provider', 'native', '--sut', silent, '--out', neverOut]);
    expect(never.code).toBe(3);
    expect(never.stdout).toMatch(/^waiting up to 1 s for it to answer…$/m);
    expect(never.stderr).toMatch(
      /^agentconf run: the gateway \(not started by the harness\) never connected and answered: a gateway nobody starts did not answer within 1000 ms \(last: disco#info to agents\.example answered \S+\); start it with the component host, port, domain and secret printed above \(or in --connection-file\)\nagentconf run: nothing was judged; conformance.md and the logs are in \S+\n$/,
    );
    expect(JSON.parse(readFileSync(join(neverOut, 'not-run.json'), 'utf8'))).toMatchObject({
      outcome: 'could-not-start',
      logs: expect.arrayContaining(['logs/server-b.log']) as unknown,
    });

    const taken = await listening();
    try {
      const port = (taken.address() as { port: number }).port;
      const fixed = join(dir, 'fixed.json');
      writeFileSync(fixed, JSON.stringify({ ...EXTERNAL, component: { port, secret: 'fixed-secret' } }));
      const busyOut = tempDir();
      const busy = await runCli(['run', '--provider', 'native', '--sut', fixed, '--out', busyOut]);
      expect(busy.code).toBe(3);
      expect(busy.stderr).toBe(
        `agentconf run: the native federation could not be started: the component port 127.0.0.1:${String(port)} that the SUT config fixes cannot be listened on (EADDRINUSE: another run or another server has it)\n` +
          `agentconf run: nothing was judged; conformance.md and the logs are in ${busyOut}\n`,
      );
      expect(busy.stderr + busy.stdout).not.toContain('fixed-secret');
    } finally {
      taken.close();
    }
  }, 120_000);
});

describe('agentconf run: a gateway that rate-limits', () => {
  const rateLimited = (dir: string, name: string, discovery: object, limits: object): string =>
    sutFile(dir, name, (config) => {
      const launch = config['launch'] as typeof REFERENCE.launch;
      launch.files['gateway.json']['limits'] = { rateLimits: { discovery } };
      config['limits'] = { ...(config['limits'] as object), ...limits };
      config['name'] = name;
    });

  const runListAgents = (sut: string, out: string) =>
    runCli(['run', '--provider', 'native', '--sut', sut, '--grep', 'list-agents', '--out', out]);

  it('leaves a case that failed on its resource-constraint answers undecided, saying how to pace', async () => {
    const dir = tempDir();
    const out = join(dir, 'out');
    // Enough for the start and the preflight; then one discovery request per caller every 5 s.
    const sut = rateLimited(dir, 'rate-limited', { burst: 35, perSecond: 0.2 }, {});
    const run = await runListAgents(sut, out);
    expect(run.stdout).toMatch(
      /\nresource-constraint: \d+ failed case\(s\) met the gateway's rate limit and are undecided, not failed: list-agents\./,
    );
    const result = readResult(out);
    const undecided = result.cases.filter(
      (c) => c.reason?.startsWith('the gateway answered resource-constraint') === true,
    );
    expect(undecided.length).toBeGreaterThan(0);
    expect(undecided.every((c) => c.outcome === 'cantTell')).toBe(true);
    expect(result.cases.filter((c) => c.outcome === 'failed').map((c) => c.case.id)).toEqual([]);
    expect(result.profiles.filter((p) => p.verdict === 'failed')).toEqual([]);
    expect(run.code).toBe(1);
  }, 300_000);

  it('paces itself to the rate the SUT file documents, says so, and passes', async () => {
    const dir = tempDir();
    const out = join(dir, 'out');
    const sut = rateLimited(
      dir,
      'rate-limited, documented',
      { burst: 10, perSecond: 10 },
      { requestsPerSecond: 10, requestBurst: 10 },
    );
    const run = await runListAgents(sut, out);
    const source = "90 % of the SUT file's limits.requestsPerSecond 10, half its burst 10";
    expect(run.stdout).toContain(
      `pacing: at most 9 request(s) per second to the gateway after a burst of 5, from ${source}`,
    );
    expect(run.code, run.stdout).toBe(0);
    const result = readResult(out);
    expect(result.pace).toEqual({ perSecond: 9, burst: 5, source });
    expect(result.cases.every((c) => c.outcome === 'passed')).toBe(true);
    expect(readFileSync(join(out, 'conformance.md'), 'utf8')).toContain(
      '| Pace | at most 9 request(s)/s to the gateway after a burst of 5',
    );
  }, 300_000);
});

describe('agentconf run: Ctrl-C', () => {
  it('writes a partial report marked interrupted, keeps the logs, and exits 130', async () => {
    const dir = tempDir();
    const out = join(dir, 'out');
    // The reference gateway, saying hello in colour first (the kept log has no escapes).
    const sut = sutFile(dir, 'colourful', (config) => {
      config['launch'] = {
        ...REFERENCE.launch,
        cwd: REPO_ROOT,
        command: [
          'sh',
          '-c',
          `printf '\\033[32mhello\\033[0m\\n'; exec ${REFERENCE.launch.command.join(' ')}`,
        ],
      };
    });
    // Interrupted while the cases of the second section run.
    const { code, stdout, stderr } = await interruptedRun(sut, out, (sofar) =>
      /passed\n#\S+ +\S/.test(sofar),
    );
    expect(code, stdout + stderr).toBe(130);
    expect(stderr).toContain(
      'agentconf run: interrupted by SIGINT: stopping and writing the partial report (Ctrl-C again stops at once)',
    );
    expect(stdout).toContain('INTERRUPTED: interrupted by SIGINT; the remaining cases are not run');
    expect(stdout).toContain('INTERRUPTED BY SIGINT: not a conformance verdict');
    const result = readResult(out);
    expect(result).toMatchObject({ interrupted: 'interrupted by SIGINT', passed: false, partial: true });
    const notRun = result.cases.filter((c) => c.reason === 'not run: interrupted by SIGINT');
    expect(notRun.length).toBeGreaterThan(0);
    expect(result.cases.some((c) => c.outcome === 'passed')).toBe(true);
    expect(readFileSync(join(out, 'conformance.md'), 'utf8')).toContain(
      '**INTERRUPTED**: the run was interrupted by SIGINT',
    );
    const conformance = JSON.parse(readFileSync(join(out, 'conformance.json'), 'utf8')) as {
      interrupted?: string;
    };
    expect(conformance.interrupted).toBe('interrupted by SIGINT');
    const gatewayLog = readFileSync(join(out, 'logs', 'gateway.log'), 'utf8');
    expect(gatewayLog).toMatch(/^hello\ngateway: agents\.example online via /);
    for (const server of ['a', 'b', 'hostile']) {
      expect(readFileSync(join(out, 'logs', `server-${server}.log`), 'utf8')).toContain('Prosody');
    }
    expect(existsSync(join(out, 'junit.xml'))).toBe(true);
  }, 180_000);
});

describe('agentconf run: --timeout and Ctrl-C during start-up', () => {
  it('stops at the time limit like an interrupt, names where, writes the partial report and exits 3', async () => {
    const out = join(tempDir(), 'out');
    const run = await runCli([
      'run',
      '--provider',
      'native',
      // Every case: a run that long (about 25 s) cannot end before the limit fires, whatever the
      // machine's speed; a short selection could finish first on a quiet machine.
      '--timeout',
      '2s',
      '--out',
      out,
    ]);
    expect(run.code, run.stdout + run.stderr).toBe(3);
    // Where it fired depends on the machine's speed: during the start or in a case.
    const where =
      /^agentconf run: the 2 s time limit \(--timeout\) was reached (in case (\S+)|during start-up, before any case); the partial report is in \S+\n$/m.exec(
        run.stderr,
      );
    expect(where, run.stderr).not.toBeNull();
    const result = readResult(out);
    expect(result.interrupted).toBe(`stopped at the 2 s time limit (${where?.[1] ?? ''})`);
    expect(result.passed).toBe(false);
    const notRun = result.cases.filter((c) => c.reason === 'not run: stopped at the 2 s time limit');
    expect(notRun.length).toBeGreaterThan(0);
    if (where?.[2] !== undefined) expect(notRun[0]?.case.id).toBe(where[2]);
    expect(run.stdout).toContain('STOPPED AT THE 2 S TIME LIMIT (');
    expect(readFileSync(join(out, 'conformance.md'), 'utf8')).toContain('stopped at the 2 s time limit');
    expect(existsSync(join(out, 'logs', 'gateway.log'))).toBe(true);
  }, 120_000);

  it('Ctrl-C while waiting for a gateway to connect says what it stopped and where the statement is, exit 130', async () => {
    const dir = tempDir();
    const out = join(dir, 'out');
    const silent = join(dir, 'silent.json');
    writeFileSync(silent, JSON.stringify({ ...EXTERNAL, timeouts: { startupSeconds: 120 } }));
    const { code, stdout, stderr } = await interruptedRun(silent, out, (sofar) =>
      sofar.includes('waiting up to 120 s for it to answer'),
    );
    expect(code, stdout + stderr).toBe(130);
    expect(stderr).toBe(
      'agentconf run: interrupted by SIGINT during start-up: stopping the servers and the gateway\n' +
        `agentconf run: nothing was judged; ${out} says so (conformance.md)\n`,
    );
    expect(readFileSync(join(out, 'conformance.md'), 'utf8')).toContain(
      '**NOT RUN**: the run was interrupted during start-up',
    );
    expect(JSON.parse(readFileSync(join(out, 'not-run.json'), 'utf8'))).toMatchObject({
      outcome: 'interrupted-during-start-up',
      reason: 'interrupted by SIGINT during start-up',
    });
  }, 120_000);
});

async function listening(): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve);
  });
  return server;
}
