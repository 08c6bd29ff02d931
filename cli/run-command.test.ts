// agentconf run end to end on the native federation: the reference gateway passes what it
// claims; a gateway that claims a profile it does not implement (the harness's echo component
// claims Core Directory) fails on the preflight, once; a gateway whose state does not survive a
// crash fails the crash case with the requirement, expected vs received and the transcript.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './test-support/run-cli.ts';
import { REPO_ROOT } from '../harness/repo-root.ts';
import type { RunResult } from '../runner/run-result.ts';

const outDirs: string[] = [];
function outDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentconf-run-'));
  outDirs.push(dir);
  return dir;
}

function readResult(dir: string): RunResult {
  return JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult;
}

afterAll(() => {
  for (const dir of outDirs) rmSync(dir, { recursive: true, force: true });
});

describe('agentconf run', () => {
  it('passes the reference gateway on the gateway-info cases and prints the profile table', async () => {
    const out = outDir();
    const run = await runCli([
      'run',
      '--provider',
      'native',
      '--grep',
      'gateway-info',
      '--seed',
      '7',
      '--out',
      out,
    ]);
    expect(run.stdout).toContain('seed 7');
    expect(run.stdout).toMatch(/#gateway-info\s+\.+\s+\d+\/\d+ passed/);
    expect(run.stdout).toMatch(/Core Directory\s+yes\s+\d+\/\d+.*PASS/);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const result = readResult(out);
    expect(result.passed).toBe(true);
    expect(result.seed).toBe(7);
    expect(result.cases.every((c) => c.outcome === 'passed')).toBe(true);
  }, 120_000);

  it('fails a gateway that claims Core Directory without speaking the protocol on one preflight line, its cases blocked by it', async () => {
    const out = outDir();
    const run = await runCli([
      'run',
      '--provider',
      'native',
      '--sut',
      join(REPO_ROOT, 'fixtures', 'sut', 'echo-component.json'),
      '--grep',
      'gateway-info',
      '--out',
      out,
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      'preflight: FAIL: Core Directory is claimed, but the gateway agents.example does not advertise urn:xmpp:agent-directory:0',
    );
    // The root cause is reported once; the cases it blocks are not separate findings.
    expect(run.stdout).not.toContain('FAILED gateway-info.identity-local');
    expect(run.stdout).toMatch(/Core Directory\s+yes\s+- \?\d+.*FAIL/);
    // The headline uses the table's words: FAIL here, never INCOMPLETE's cause called FAILED.
    expect(run.stdout).toContain('harness echo component: FAIL: Core Directory (PARTIAL: 5 of');
    const result = readResult(out);
    expect(result.passed).toBe(false);
    expect(result.preflight).toEqual([
      expect.objectContaining({ profile: 'core-directory', kind: 'missing' }),
    ]);
    const blocked = result.cases.find((c) => c.case.id === 'gateway-info.identity-local');
    expect(blocked).toMatchObject({ outcome: 'cantTell', attempts: [] });
    expect(blocked?.reason).toMatch(/^blocked by the preflight: Core Directory is claimed/);
  }, 120_000);

  it('fails a gateway whose state does not survive a crash on invocation.durable-before-accepted', async () => {
    const out = outDir();
    const reference = JSON.parse(
      readFileSync(join(REPO_ROOT, 'fixtures', 'sut', 'reference-gateway.json'), 'utf8'),
    ) as { launch: { command: string[] } } & Record<string, unknown>;
    const { $schema: _schema, ...rest } = reference;
    // The reference gateway, except that every start (the restart after the crash too) begins
    // from an empty database: what an implementation that acknowledges before storing looks like.
    const forgetful = {
      ...rest,
      name: 'reference gateway that forgets its database',
      launch: {
        ...reference.launch,
        cwd: REPO_ROOT,
        command: ['sh', '-c', `rm -f {dataDir}/gateway.sqlite*; exec ${reference.launch.command.join(' ')}`],
      },
    };
    const sutFile = join(outDir(), 'forgetful-gateway.json');
    writeFileSync(sutFile, JSON.stringify(forgetful));
    const run = await runCli([
      'run',
      '--provider',
      'native',
      '--sut',
      sutFile,
      '--grep',
      'invocation.durable-across-crash',
      '--out',
      out,
    ]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    // The failure names requirement, expected, received and the transcript.
    expect(run.stdout).toContain('FAILED invocation.durable-across-crash');
    expect(run.stdout).toContain('violated: invocation.durable-before-accepted');
    expect(run.stdout).toMatch(/expected:\n\s+\S/);
    expect(run.stdout).toMatch(/received:\n\s+\S/);
    expect(run.stdout).toContain('transcript:');
    const failed = readResult(out).cases.find((c) => c.case.id === 'invocation.durable-across-crash');
    expect(failed?.outcome).toBe('failed');
    // A crash case's counterexample stands: no re-run (suites/framework/run-case.ts).
    expect(failed?.attempts.map((attempt) => attempt.attempt)).toEqual([1]);
    expect(failed?.attempts[0]?.violation?.requirement).toBe('invocation.durable-before-accepted');
    expect(failed?.attempts[0]?.transcript.entries.some((entry) => entry.kind === 'stanza')).toBe(true);
  }, 120_000);

  it('refuses, before starting anything, a selection of no case and a baseline naming unknown cases (exit 2)', async () => {
    const none = await runCli(['run', '--grep', 'no-such-case-anywhere']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--grep no-such-case-anywhere selects no case');
    expect(none.stdout).toBe('');
    const dir = outDir();
    const baseline = join(dir, 'baseline.json');
    writeFileSync(
      baseline,
      JSON.stringify({ expectedFailures: [{ case: 'gateway-info.no-such-case', reason: 'typo' }] }),
    );
    const unknown = await runCli(['run', '--baseline', baseline]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('names cases the suites do not have: gateway-info.no-such-case');
    expect(unknown.stdout).toBe('');
  });

  it('names a gateway that exits at start once, with its exit code and last output, secret-free, exit 3, keeping a not-run statement and the logs', async () => {
    const dir = outDir();
    const sut = (command: string[]): string => {
      const file = join(dir, `${String(command.length)}-sut.json`);
      const config = {
        name: 'short-lived gateway',
        component: { secret: 'generate' },
        launch: { command, cwd: dir },
        profiles: ['core-directory'],
        fixtures: 'manual',
        timeouts: { startupSeconds: 20 },
      };
      writeFileSync(file, JSON.stringify(config));
      return file;
    };
    const exitingOut = outDir();
    const exiting = await runCli([
      'run',
      '--provider',
      'native',
      '--sut',
      sut([
        'sh',
        '-c',
        "printf '\\033[31mstarting\\033[0m\\n'; echo 'fatal: no config' >&2; exit 7",
        '{componentSecret}',
      ]),
      '--out',
      exitingOut,
    ]);
    expect(exiting.code).toBe(3);
    expect(exiting.stderr).toBe(
      'agentconf run: the gateway exited with exit code 7 before it answered; its last output:\n    starting\n    fatal: no config\n' +
        `agentconf run: nothing was judged; conformance.md and the logs are in ${exitingOut}\n`,
    );
    const statement = readFileSync(join(exitingOut, 'conformance.md'), 'utf8');
    expect(statement).toContain('**NOT RUN**: the run could not start; no case was judged');
    expect(statement).toContain('the gateway exited with exit code 7 before it answered');
    expect(statement).toContain('- [logs/gateway.log](logs/gateway.log)');
    expect(JSON.parse(readFileSync(join(exitingOut, 'not-run.json'), 'utf8'))).toMatchObject({
      gateway: 'short-lived gateway',
      outcome: 'could-not-start',
      logs: expect.arrayContaining(['logs/gateway.log', 'logs/server-a.log']) as unknown,
    });
    expect(readFileSync(join(exitingOut, 'logs', 'gateway.log'), 'utf8')).toContain('fatal: no config');
    expect(existsSync(join(exitingOut, 'conformance.json'))).toBe(false);
    const missing = await runCli([
      'run',
      '--provider',
      'native',
      '--sut',
      sut(['no-such-gateway-binary', '--secret', '{componentSecret}', 'x']),
      '--out',
      outDir(),
    ]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain(
      'cannot start short-lived gateway: no-such-gateway-binary: command not found',
    );
    expect(missing.stderr).not.toMatch(/at \S+ \(|--secret \S/);
  }, 120_000);

  it('refuses an --out that is not empty or cannot be written before anything starts', async () => {
    const used = outDir();
    writeFileSync(join(used, 'old.txt'), 'x');
    const notEmpty = await runCli(['run', '--out', used]);
    expect(notEmpty.code).toBe(2);
    expect(notEmpty.stderr).toContain('is not empty');
    const unwritable = await runCli(['run', '--out', '/proc/agentconf/out']);
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr).toContain('--out /proc/agentconf/out cannot be written');
    expect(notEmpty.stdout + unwritable.stdout).toBe('');
  });

  it('names a gateway that dies mid-run once, leaves the rest undecided, and exits 3', async () => {
    const out = outDir();
    const reference = JSON.parse(
      readFileSync(join(REPO_ROOT, 'fixtures', 'sut', 'reference-gateway.json'), 'utf8'),
    ) as { launch: { command: string[] } } & Record<string, unknown>;
    const { $schema: _schema, ...rest } = reference;
    // The reference gateway under a launcher that exits 9 when the gateway dies; the test kills
    // the gateway once the run is judging its second section, whatever the machine's speed.
    const pidFile = join(outDir(), 'gateway.pid');
    const mortal = {
      ...rest,
      name: 'reference gateway that dies',
      launch: {
        ...reference.launch,
        cwd: REPO_ROOT,
        command: [
          'sh',
          '-c',
          `${reference.launch.command.join(' ')} & echo $! > ${pidFile}; wait $!; exit 9`,
        ],
      },
    };
    const sutFile = join(outDir(), 'mortal-gateway.json');
    writeFileSync(sutFile, JSON.stringify(mortal));
    let killed = false;
    const run = await runCli(['run', '--provider', 'native', '--sut', sutFile, '--out', out], (stdout) => {
      if (killed || !stdout.includes('#gateway-info')) return;
      killed = true;
      process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    });
    expect(run.code, run.stdout + run.stderr).toBe(3);
    const said = run.stdout.match(/STOPPED: the gateway exited/g) ?? [];
    expect(said).toHaveLength(1);
    const result = readResult(out);
    expect(result.abortedBy).toMatch(/^the gateway exited with exit code 9 during the run/);
    const notRun = result.cases.filter((c) => c.reason?.startsWith('not run: the gateway exited') === true);
    expect(notRun.length).toBeGreaterThan(0);
    expect(notRun.every((c) => c.outcome === 'cantTell' && c.attempts.length === 0)).toBe(true);
  }, 120_000);
});
