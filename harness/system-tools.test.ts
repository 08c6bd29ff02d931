import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installCommand } from './federation/debian-packages.ts';
import { REPO_ROOT } from './repo-root.ts';
import { BASE_SYSTEM_PROGRAMS, SYSTEM_TOOLS, systemTool } from './system-tools.ts';

const DPKG_STATUS = '/var/lib/dpkg/status';

describe('the table of system tools', () => {
  it('has every tool a default run or npm test uses, each with its Debian packages and program', () => {
    expect([...SYSTEM_TOOLS.keys()]).toEqual([
      'prosody',
      'openssl',
      'ejabberd',
      'chromium',
      'libfiu',
      'docker',
      'debootstrap',
    ]);
    for (const tool of SYSTEM_TOOLS.values()) {
      expect(tool.packages.length, tool.id).toBeGreaterThan(0);
      expect(tool.program, tool.id).toMatch(/^[a-z][a-z0-9-]*$/);
      // A tool nobody names a user for could never be missed.
      expect(tool.provider !== undefined || tool.cases.length > 0 || tool.tests.length > 0, tool.id).toBe(
        true,
      );
    }
  });

  it('says which are required for a default run', () => {
    const required = [...SYSTEM_TOOLS.values()].filter((tool) => tool.defaultRun === 'required');
    expect(required.map((tool) => tool.id)).toEqual(['prosody', 'openssl', 'libfiu']);
    expect(installCommand(systemTool('libfiu'))).toBe('sudo apt-get install -y fiu-utils');
    expect(installCommand(systemTool('prosody'))).toBe('sudo apt-get install -y prosody lua-unbound lua-sec');
  });

  it('names test files that exist', () => {
    for (const tool of SYSTEM_TOOLS.values())
      for (const file of tool.tests)
        expect(existsSync(join(REPO_ROOT, file)), `${tool.id}: ${file}`).toBe(true);
  });

  it('refuses a name it does not have, listing the ones it has', () => {
    expect(() => systemTool('fiu')).toThrow(
      '"fiu" is not a system tool (harness/system-tools.ts has prosody, openssl, ejabberd, chromium, libfiu, docker, debootstrap)',
    );
  });

  it.runIf(existsSync(DPKG_STATUS))(
    'leaves out only programs every Debian system has (Essential or Priority required)',
    () => {
      const paragraphs = readFileSync(DPKG_STATUS, 'utf8').split(/\n\n+/);
      for (const { program, package: name } of BASE_SYSTEM_PROGRAMS) {
        const paragraph = paragraphs.find((text) => new RegExp(`^Package: ${name}$`, 'm').test(text));
        expect(paragraph, `${program}: package ${name} is not installed`).toBeDefined();
        expect(
          /^Essential: yes$/m.test(paragraph ?? '') || /^Priority: required$/m.test(paragraph ?? ''),
          `${program} (${name})`,
        ).toBe(true);
      }
    },
  );
});
