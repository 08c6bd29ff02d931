import { describe, expect, it } from 'vitest';

import { runCli } from '../test-support/run-cli.ts';

describe('agentconf interop (arguments)', () => {
  it('takes exactly two SUT files, A then B, and says so before starting anything', async () => {
    for (const argv of [
      ['interop'],
      ['interop', '--sut', 'fixtures/sut/reference-gateway.json'],
      ['interop', '--sut', 'a.json', '--sut', 'b.json', '--sut', 'c.json'],
    ]) {
      const result = await runCli(argv);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/name two SUT files, gateway A's then gateway B's/);
    }
  });

  it('refuses a server A no provider runs, and an unreadable SUT file', async () => {
    const server = await runCli(['interop', '--server-a', 'openfire', '--sut', 'a', '--sut', 'b']);
    expect(server.code).toBe(2);
    expect(server.stderr).toMatch(/--server-a takes one of prosody, ejabberd/);
    const missing = await runCli(['interop', '--sut', 'no-such-a.json', '--sut', 'no-such-b.json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no-such-a\.json/);
  });

  it('is listed in the help with its options', async () => {
    const help = await runCli(['help', 'interop']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--sut FILE/);
    expect(help.stdout).toMatch(/--server-a S/);
  });
});
