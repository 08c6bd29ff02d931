import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../protocol/test-support/shared-paths.ts';
import type { CliIo } from './io.ts';
import { main } from './main.ts';

/** An in-memory file system and captured output for one CLI call. */
async function run(argv: string[], files: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    out: (text) => (stdout += text),
    err: (text) => (stderr += text),
    readFile: (path) => {
      const content = files[path];
      if (content === undefined) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
      return Buffer.from(content, 'utf8');
    },
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

const MINIMAL =
  '{"manifestSpecVersion":"0","agent":{"jid":"weather@agents.example","name":"weather","version":"1.4.0"},"tools":[]}';

describe('agentconf hash', () => {
  it('prints the XEP-0300 hash of the spec minimal manifest', async () => {
    const result = await run(['hash', 'm.json'], { 'm.json': MINIMAL });
    expect(result).toEqual({
      code: 0,
      stdout:
        "<hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=</hash>\n",
      stderr: '',
    });
    expect((await run(['hash', '--value', 'm.json'], { 'm.json': MINIMAL })).stdout).toBe(
      'K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=\n',
    );
  });

  it.each([
    ['a duplicate key', '{"a":1,\n "a":2}', /duplicate-member .*line 2, column 2/],
    ['a lone surrogate', '{"a":"\\ud800"}', /lone-surrogate/],
    ['1e400', '{"a":1e400}', /number-overflow/],
    ['trailing data', '{} {}', /trailing-data/],
  ])('exits 1 naming the rule for %s', async (_label, text, message) => {
    const result = await run(['hash', 'bad.json'], { 'bad.json': text });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });

  it('exits 2 for a missing file or wrong arguments', async () => {
    const absent = await run(['hash', 'absent.json']);
    expect(absent.code).toBe(2);
    expect(absent.stderr).toMatch(/absent\.json does not exist/);
    expect((await run(['hash'])).code).toBe(2);
    expect((await run(['hash', 'a', 'b'])).code).toBe(2);
    expect((await run(['hash', '--nope', 'a'])).code).toBe(2);
  });
});

describe('agentconf node', () => {
  it('encodes and decodes tool nodes', async () => {
    expect((await run(['node', '1.4.0', 'forecast.get'])).stdout).toBe(
      'urn:xmpp:agent-tool:0#1.4.0#Zm9yZWNhc3QuZ2V0\n',
    );
    expect((await run(['node', '--decode', 'urn:xmpp:agent-tool:0#1.4.0#Zm9yZWNhc3QuZ2V0'])).stdout).toBe(
      'tool node, version "1.4.0", tool "forecast.get"\n',
    );
    expect((await run(['node', '--decode', 'urn:xmpp:agent-tools:0#1.4.0'])).stdout).toBe(
      'collection node, version "1.4.0"\n',
    );
  });

  it('exits 1 on an invalid node and 2 on misuse', async () => {
    const padded = await run(['node', '--decode', 'urn:xmpp:agent-tool:0#1#YQ==']);
    expect(padded.code).toBe(1);
    expect(padded.stderr).toMatch(/base64url-padding/);
    expect((await run(['node', '1 0', 'x'])).code).toBe(1);
    expect((await run(['node', '1.0'])).code).toBe(2);
    expect((await run(['node', '--decode', 'x', 'y'])).code).toBe(2);
  });
});

describe('agentconf validate-manifest', () => {
  it('accepts the spec minimal manifest', async () => {
    expect(await run(['validate-manifest', 'm.json'], { 'm.json': MINIMAL })).toEqual({
      code: 0,
      stdout: 'valid: weather@agents.example version 1.4.0, 0 tool(s)\n',
      stderr: '',
    });
  });

  it('lists each violation with its rule and path', async () => {
    const withUserinfo = MINIMAL.replace(
      '"version":"1.4.0"',
      '"version":"1.4.0","homepage":"https://u@h.example/"',
    );
    const result = await run(['validate-manifest', 'm.json'], { 'm.json': withUserinfo });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/uri:userinfo at \/agent\/homepage/);
    const broken = await run(['validate-manifest', 'm.json'], { 'm.json': '{"a":1,"a":1}' });
    expect(broken.stderr).toMatch(/json:duplicate-member at \/ \(line 1, column 8\)/);
  });

  it('exits 2 without exactly one file', async () => {
    expect((await run(['validate-manifest'])).code).toBe(2);
    expect((await run(['validate-manifest', '--x'])).code).toBe(2);
  });
});

describe('agentconf validate-schema', () => {
  const schema = '{"type":"object","properties":{"city":{"type":"string"}}}';

  it('accepts an object-rooted input schema and a scalar output schema', async () => {
    expect(await run(['validate-schema', 's.json'], { 's.json': schema })).toMatchObject({ code: 0 });
    expect(
      await run(['validate-schema', '--direction', 'output', 's.json'], { 's.json': '{"type":"string"}' }),
    ).toMatchObject({ code: 0, stdout: 'valid: output schema\n' });
  });

  it('exits 1 naming the #schemas rule, or the I-JSON rule', async () => {
    const scalar = await run(['validate-schema', 's.json'], { 's.json': '{"type":"string"}' });
    expect(scalar.code).toBe(1);
    expect(scalar.stderr).toMatch(/^invalid: s\.json: \S+ at \//);
    const external = await run(['validate-schema', 's.json'], {
      's.json': '{"type":"object","properties":{"a":{"$ref":"https://example.com/x"}}}',
    });
    expect(external.stderr).toMatch(/external-reference/);
    expect((await run(['validate-schema', 's.json'], { 's.json': '{"type":1e999}' })).stderr).toMatch(
      /number-overflow/,
    );
  });

  it('exits 2 on a bad direction', async () => {
    expect(
      (await run(['validate-schema', '--direction', 'sideways', 's.json'], { 's.json': schema })).code,
    ).toBe(2);
  });
});

describe('agentconf dispatch', () => {
  it('prints help and rejects unknown commands', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/validate-schema/);
    expect((await run([])).code).toBe(2);
    const unknown = await run(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command/);
  });

  it('runs through the installed bin script', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [resolve(REPO_ROOT, 'bin/agentconf.js'), 'hash', '--value', 'fixtures/manifests/weather-minimal.json'],
      { cwd: REPO_ROOT },
    );
    expect(stdout).toBe('K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=\n');
  });
});
