// in-root's promises, checked on a real root: what the command sees, its exit code, and that
// nothing of it (a mount, a process) outlives it, on a normal end, an error and a Ctrl-C.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createCleanRoot, type CleanRoot } from './clean-root.ts';
import { requireFreshProofRun } from './fresh-proof-guard.ts';

requireFreshProofRun();

const IN_ROOT = join(import.meta.dirname, 'in-root');

let root: CleanRoot;

beforeAll(async () => {
  root = await createCleanRoot();
});

afterAll(async () => {
  await root.dispose();
});

async function hostMountsUnder(dir: string): Promise<string[]> {
  const mounts = await readFile('/proc/self/mounts', 'utf8');
  return mounts.split('\n').filter((line) => line.split(' ')[1]?.startsWith(dir) === true);
}

/** Host processes whose command line holds the marker. */
async function processesWith(marker: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes(marker)) found.push(pid);
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

describe('in-root', () => {
  it('mounts /proc, /sys, /dev, /dev/pts, /dev/shm and resolv.conf inside, none of them on the host', async () => {
    const before = await hostMountsUnder(root.dir);
    const result = await root.run('cat /proc/self/mounts');
    expect(result.exitCode).toBe(0);
    const inside = result.output
      .split('\n')
      .map((line) => line.split(' ')[1])
      .filter((target) => target !== undefined);
    for (const target of ['/', '/proc', '/sys', '/dev', '/dev/pts', '/dev/shm', '/etc/resolv.conf']) {
      expect(inside).toContain(target);
    }
    expect(before).toEqual([]);
    expect(await hostMountsUnder(root.dir)).toEqual([]);
  });

  it('makes / a mount point, so that a mount namespace inside can make it private', async () => {
    expect(await root.run('unshare --mount --propagation private true')).toEqual({ exitCode: 0, output: '' });
  });

  it('gives a clean environment, HOME=/root, the host resolver, and the working folder asked for', async () => {
    const result = await root.run('env | sort; pwd; cat /etc/resolv.conf', {
      cwd: '/tmp',
      env: { PROOF_VALUE: 'a b' },
    });
    expect(result.exitCode).toBe(0);
    const env = result.output.split('\n').filter((line) => /^[A-Z_]+=/.test(line));
    expect(env.map((line) => line.split('=')[0])).toEqual(
      expect.arrayContaining(['HOME', 'LANG', 'PATH', 'PROOF_VALUE', 'TERM']),
    );
    expect(env).toContain('HOME=/root');
    expect(env).toContain('LANG=C.UTF-8');
    expect(env).toContain('PROOF_VALUE=a b');
    expect(
      env.filter((line) => !/^(HOME|LANG|PATH|PROOF_VALUE|TERM|PWD|SHLVL|_|OLDPWD)=/.test(line)),
    ).toEqual([]);
    expect(result.output).toContain('/tmp\n');
    expect(result.output).toContain(await readFile('/etc/resolv.conf', 'utf8'));
  });

  it('passes the exit code through and undoes its mounts after a failure', async () => {
    const result = await root.run('echo failing >&2; exit 7');
    expect(result).toEqual({ exitCode: 7, output: 'failing\n' });
    expect(await hostMountsUnder(root.dir)).toEqual([]);
  });

  it('ends what the command left running in the background', async () => {
    const marker = `agentconf-stray-${randomUUID()}`;
    // exec -a names the process, so that the host can look for it by its command line.
    const result = await root.run(`(exec -a ${marker} cat < /dev/zero > /dev/null) & echo started`);
    expect(result.exitCode).toBe(0);
    expect(await processesWith(marker)).toEqual([]);
  });

  it('stops on Ctrl-C with 130 and leaves no mount behind', async () => {
    // detached: its own process group, which receives SIGINT as a terminal's Ctrl-C sends it.
    const child = spawn(IN_ROOT, [root.dir, '--', '/bin/sh', '-c', 'echo ready; exec cat'], {
      detached: true,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const [ready] = (await once(child.stdout, 'data')) as [Buffer];
    expect(ready.toString()).toBe('ready\n');
    const pid = child.pid;
    if (pid === undefined) throw new Error('in-root did not start');
    const closed = once(child, 'close');
    process.kill(-pid, 'SIGINT');
    const [code] = (await closed) as [number | null];
    expect(code).toBe(130);
    expect(await hostMountsUnder(root.dir)).toEqual([]);
  });

  it('copies a host file in', async () => {
    const hostFile = join(root.dir, '..', 'copied.txt');
    await writeFile(hostFile, 'from the host\n');
    await root.copyIn(hostFile, '/opt/proof/copied.txt');
    expect(await root.run('cat /opt/proof/copied.txt')).toEqual({ exitCode: 0, output: 'from the host\n' });
    await root.copyIn(hostFile, '/opt/../../top.txt');
    expect(await root.run('cat /top.txt')).toEqual({ exitCode: 0, output: 'from the host\n' });
    await expect(root.copyIn(hostFile, 'opt/relative.txt')).rejects.toThrow(
      'opt/relative.txt is not an absolute path inside the root',
    );
  });

  it('names every bad argument in one sentence, exit 2', async () => {
    const cases: [string[], string][] = [
      [[root.dir], 'in-root: no command after --'],
      [
        [root.dir, '--bind', '/nonexistent-h2:/x', '--', 'true'],
        '/nonexistent-h2 does not exist on the host',
      ],
      [[root.dir, '--bind', '/tmp:relative', '--', 'true'], 'with an absolute ROOT_PATH'],
      [[root.dir, '--env', '1X=y', '--', 'true'], 'give NAME=VALUE with a shell variable name'],
      [[root.dir, '--frob', '--', 'true'], '--frob is not an option here'],
      [['/tmp', '--', 'true'], '/tmp is not a root made by make-root'],
      [[root.dir, '--cwd', '/nonexistent', '--', 'true'], '/nonexistent is not a folder inside the root'],
    ];
    for (const [args, message] of cases) {
      const child = spawn(IN_ROOT, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const [code] = (await once(child, 'close')) as [number | null];
      expect(code, args.join(' ')).toBe(2);
      expect(stderr, args.join(' ')).toContain(message);
      expect(stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
