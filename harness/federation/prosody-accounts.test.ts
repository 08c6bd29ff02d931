import { createHash, createHmac } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ensureProsody, findOnPath } from './debian-packages.ts';
import { assertUsername } from './account-credentials.ts';
import {
  accountFilePath,
  encodeDataPathComponent,
  renderAccountFile,
  scramSha1Keys,
  scramSha1KeysAsync,
  writeProsodyAccount,
} from './prosody-accounts.ts';

const run = promisify(execFile);

function parseAccountFile(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [, key = '', value = ''] of text.matchAll(/\["(\w+)"\] = "?([^";]*)"?;/g)) fields[key] = value;
  return fields;
}

describe('SCRAM-SHA-1 keys', () => {
  it('are the same derived off the event loop', async () => {
    const salt = Buffer.from('QSXCR+Q6sek8bf92', 'base64');
    expect(await scramSha1KeysAsync('pencil', salt, 4096)).toEqual(scramSha1Keys('pencil', salt, 4096));
    expect(await scramSha1KeysAsync('correct horse', 'a-salt', 3)).toEqual(
      scramSha1Keys('correct horse', 'a-salt', 3),
    );
  });

  it('match the RFC 5802 example exchange', () => {
    const salt = Buffer.from('QSXCR+Q6sek8bf92', 'base64');
    const { storedKey, serverKey } = scramSha1Keys('pencil', salt, 4096);
    const authMessage =
      'n=user,r=fyko+d2lbbFgONRv9qkxdawL,' +
      'r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096,' +
      'c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j';
    const serverSignature = createHmac('sha1', Buffer.from(serverKey, 'hex'))
      .update(authMessage)
      .digest('base64');
    expect(serverSignature).toBe('rmF9pqV8S7suAoZWja4dJRkFsKQ=');
    // The client proof of the example, XORed with the client signature, gives back the client key.
    const proof = Buffer.from('v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=', 'base64');
    const clientSignature = createHmac('sha1', Buffer.from(storedKey, 'hex')).update(authMessage).digest();
    const clientKey = proof.map((byte, i) => byte ^ (clientSignature[i] ?? 0));
    expect(createHash('sha1').update(clientKey).digest('hex')).toBe(storedKey);
  });
});

describe('account files', () => {
  it('encode data path components the way util.datamanager does', () => {
    expect(encodeDataPathComponent('example.com')).toBe('example%2ecom');
    expect(encodeDataPathComponent('a_b-c')).toBe('a%5fb%2dc');
    expect(accountFilePath('/data', 'server.example', 'bob')).toBe('/data/server%2eexample/accounts/bob.dat');
  });

  it('refuse local parts that are not already in nodeprep form', () => {
    expect(() => {
      assertUsername('Alice');
    }).toThrow();
    expect(() => {
      assertUsername('a/b');
    }).toThrow();
    expect(() => {
      assertUsername('alice.smith-2');
    }).not.toThrow();
  });

  it('render as a Lua table with every field quoted safely', () => {
    const text = renderAccountFile({
      salt: 'a"b\\c\né',
      iterationCount: 2,
      storedKey: 'ab',
      serverKey: 'cd',
    });
    expect(text).toBe(
      'return {\n\t["iteration_count"] = 2;\n\t["salt"] = "a\\"b\\\\c\\10\\195\\169";\n' +
        '\t["server_key"] = "cd";\n\t["stored_key"] = "ab";\n};\n',
    );
  });
});

describe('account files against prosodyctl', () => {
  let dir: string;
  let config: string;

  beforeAll(async () => {
    await ensureProsody();
    dir = await mkdtemp(join(tmpdir(), 'agentconf-accounts-'));
    config = join(dir, 'prosody.cfg.lua');
    await writeFile(
      config,
      [
        `data_path = ${JSON.stringify(join(dir, 'data'))}`,
        `certificates = ${JSON.stringify(dir)}`,
        `run_as_root = ${String(process.getuid?.() === 0)}`,
        'authentication = "internal_hashed"',
        'default_iteration_count = 3',
        `log = { error = ${JSON.stringify(join(dir, 'prosody.log'))} }`,
        'VirtualHost "example.com"',
        '',
      ].join('\n'),
    );
  }, 300_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('derive the keys prosodyctl register stores, at the path it stores them', async () => {
    const prosodyctl = await findOnPath('prosodyctl');
    if (prosodyctl === undefined) throw new Error('prosodyctl is not installed alongside prosody');
    await run(prosodyctl, ['--config', config, 'register', 'carol', 'example.com', 'correct horse']);
    const written = parseAccountFile(
      await readFile(accountFilePath(join(dir, 'data'), 'example.com', 'carol'), 'utf8'),
    );
    expect(written['iteration_count']).toBe('3');
    const salt = written['salt'] ?? '';
    expect(scramSha1Keys('correct horse', salt, 3)).toEqual({
      storedKey: written['stored_key'],
      serverKey: written['server_key'],
    });
  });

  it('write files that prosodyctl accepts as existing accounts', async () => {
    const prosodyctl = await findOnPath('prosodyctl');
    if (prosodyctl === undefined) throw new Error('prosodyctl is not installed alongside prosody');
    await writeProsodyAccount(join(dir, 'data'), 'example.com', 'dave', 'pw', 1);
    // `adduser` refuses an account that exists: proof that Prosody reads our file as one.
    const result = await run(prosodyctl, ['--config', config, 'adduser', 'dave@example.com'], {
      timeout: 10_000,
    }).then(
      ({ stdout }) => stdout,
      (error: unknown) => String((error as { stdout?: string }).stdout ?? error),
    );
    expect(result).toMatch(/already exists/);
  });
});
