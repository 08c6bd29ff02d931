import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../../harness/repo-root.ts';
import { readmeCommands } from './readme-commands.ts';

describe('readmeCommands', () => {
  it("takes the README's own two commands, comments kept for the shell to drop", () => {
    const commands = readmeCommands(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
    expect(commands).toHaveLength(2);
    expect(commands[0]).toMatch(/^npm ci && npx agentconf run\b/);
    expect(commands[1]).toMatch(/^npm test\b/);
  });

  it('reads only the first sh block, not other languages before it nor sh blocks after it', () => {
    const markdown = [
      'Intro.',
      '```json',
      '{"not": "a command"}',
      '```',
      '```sh',
      '',
      '  make   # builds',
      '# a comment line',
      'make test',
      '```',
      '```sh',
      'echo not this one',
      '```',
    ].join('\n');
    expect(readmeCommands(markdown)).toEqual(['make   # builds', 'make test']);
  });

  it('does not take a block whose language only starts with sh', () => {
    expect(() => readmeCommands('```shell-session\n$ ls\n```\n')).toThrow(
      'README.md has no ```sh block with the commands to prove',
    );
  });

  it('names a README without commands', () => {
    expect(() => readmeCommands('# Title\n\nNo code here.\n')).toThrow('README.md has no ```sh block');
    expect(() => readmeCommands('```sh\n# only a comment\n\n```\n')).toThrow('holds no command');
  });

  it('reads a README written with CRLF line ends', () => {
    expect(readmeCommands('```sh\r\nnpm ci\r\nnpm test\r\n```\r\n')).toEqual(['npm ci', 'npm test']);
  });
});
