import { describe, expect, it } from 'vitest';

import {
  PROSODY,
  PROSODY_INSTALL_COMMAND,
  decideSetup,
  ensureProsody,
  type SetupFacts,
} from './debian-packages.ts';
import { systemTool } from '../system-tools.ts';

const decideProsodySetup = (facts: SetupFacts) => decideSetup(PROSODY, facts);

describe('decideSetup for Prosody', () => {
  const complete = { programPath: '/usr/bin/prosody', missingPackages: [], isRoot: false, hasApt: false };

  it('uses an installed Prosody whatever the user', () => {
    expect(decideProsodySetup(complete)).toEqual({ action: 'use', path: '/usr/bin/prosody' });
  });

  it('installs what is missing when root with apt-get', () => {
    expect(
      decideProsodySetup({ ...complete, missingPackages: ['lua-unbound'], isRoot: true, hasApt: true }),
    ).toEqual({ action: 'install', packages: ['lua-unbound'] });
    expect(decideProsodySetup({ ...complete, programPath: undefined, isRoot: true, hasApt: true })).toEqual({
      action: 'install',
      packages: ['prosody', 'lua-unbound', 'lua-sec'],
    });
  });

  it('otherwise refuses, naming the exact command to run', () => {
    for (const facts of [
      { ...complete, programPath: undefined },
      { ...complete, missingPackages: ['lua-sec'], isRoot: true },
      { ...complete, missingPackages: ['lua-sec'], hasApt: true },
    ]) {
      const setup = decideProsodySetup(facts);
      expect(setup.action).toBe('refuse');
      if (setup.action === 'refuse') expect(setup.message).toContain(PROSODY_INSTALL_COMMAND);
    }
    expect(PROSODY_INSTALL_COMMAND).toBe('sudo apt-get install -y prosody lua-unbound lua-sec');
  });
});

describe('decideSetup for libfiu', () => {
  const libfiu = systemTool('libfiu');
  const absent = { programPath: undefined, missingPackages: ['fiu-utils'], isRoot: true, hasApt: true };

  it('installs fiu-utils as root with apt-get', () => {
    expect(decideSetup(libfiu, absent)).toEqual({ action: 'install', packages: ['fiu-utils'] });
  });

  it('refuses without root or without apt-get, saying which and naming the command', () => {
    const message =
      'libfiu (fiu-utils) is required by the storage-fault case. Install it with:\n  sudo apt-get install -y fiu-utils';
    expect(decideSetup(libfiu, { ...absent, isRoot: false })).toEqual({
      action: 'refuse',
      reason: 'not root',
      message,
    });
    expect(decideSetup(libfiu, { ...absent, hasApt: false })).toEqual({
      action: 'refuse',
      reason: 'no apt-get',
      message,
    });
  });
});

describe('ensureProsody', () => {
  it('finds (or installs) an executable prosody', async () => {
    expect(await ensureProsody()).toMatch(/\/prosody$/);
  }, 300_000);
});
