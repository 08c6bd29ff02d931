import { describe, expect, it } from 'vitest';
import { decideSetup, MissingSoftware, type SetupFacts } from './federation/debian-packages.ts';
import { ensureToolsFor, toolsNeededBy, type EnsureTool } from './system-tools-ensure.ts';
import type { SystemTool } from './system-tools.ts';

const STORAGE_CASE = { id: 'invocation.storage-fault-no-accepted', needs: ['libfiu'] as const };
const PLAIN_CASE = { id: 'gateway-info.identity' };

/** An ensure that takes the installer's decision on `facts`, installing by recording. */
function ensureOn(facts: Omit<SetupFacts, 'missingPackages'>, installed: string[] = []): EnsureTool {
  return (tool: SystemTool, options) => {
    const setup = decideSetup(tool, {
      ...facts,
      missingPackages: facts.programPath === undefined ? tool.packages : [],
    });
    if (setup.action === 'use') return Promise.resolve(setup.path);
    if (setup.action === 'refuse')
      return Promise.reject(new MissingSoftware(tool, setup.reason, setup.message));
    options.onInstall?.(setup.packages);
    installed.push(...setup.packages);
    return Promise.resolve(`/usr/bin/${tool.program}`);
  };
}

describe('toolsNeededBy', () => {
  it('lists each declared tool once, with the cases declaring it', () => {
    const other = { id: 'invocation.other', needs: ['libfiu', 'chromium'] as const };
    expect(toolsNeededBy([PLAIN_CASE, STORAGE_CASE, other])).toEqual(
      new Map([
        ['chromium', ['invocation.other']],
        ['libfiu', ['invocation.storage-fault-no-accepted', 'invocation.other']],
      ]),
    );
    expect(toolsNeededBy([PLAIN_CASE]).size).toBe(0);
  });
});

describe('ensureToolsFor', () => {
  it('says nothing and misses nothing when the tool is there', async () => {
    const lines: string[] = [];
    const missing = await ensureToolsFor(
      [STORAGE_CASE],
      (line) => lines.push(line),
      ensureOn({
        programPath: '/usr/bin/fiu-run',
        isRoot: false,
        hasApt: false,
      }),
    );
    expect([...missing]).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('installs a missing tool as root in one log line', async () => {
    const lines: string[] = [];
    const installed: string[] = [];
    const missing = await ensureToolsFor(
      [PLAIN_CASE, STORAGE_CASE],
      (line) => lines.push(line),
      ensureOn({ programPath: undefined, isRoot: true, hasApt: true }, installed),
    );
    expect([...missing]).toEqual([]);
    expect(installed).toEqual(['fiu-utils']);
    expect(lines).toEqual([
      'system tools: installing fiu-utils (libfiu (fiu-utils), for invocation.storage-fault-no-accepted) as root with apt-get',
    ]);
  });

  it('without root: one line with the reason and the exact command, and the tool reported missing', async () => {
    const lines: string[] = [];
    const missing = await ensureToolsFor(
      [STORAGE_CASE],
      (line) => lines.push(line),
      ensureOn({
        programPath: undefined,
        isRoot: false,
        hasApt: true,
      }),
    );
    expect([...missing]).toEqual(['libfiu']);
    expect(lines).toEqual([
      'system tools: libfiu (fiu-utils) is missing (not root), so invocation.storage-fault-no-accepted cannot tell; install it with: sudo apt-get install -y fiu-utils',
    ]);
  });

  it('without apt-get, and when apt-get fails, the same one line with that reason', async () => {
    const lines: string[] = [];
    await ensureToolsFor(
      [STORAGE_CASE],
      (line) => lines.push(line),
      ensureOn({
        programPath: undefined,
        isRoot: true,
        hasApt: false,
      }),
    );
    await ensureToolsFor(
      [STORAGE_CASE],
      (line) => lines.push(line),
      (tool) =>
        Promise.reject(
          new MissingSoftware(tool, 'apt-get failed: E: Unable to locate package fiu-utils', 'x'),
        ),
    );
    expect(lines).toEqual([
      'system tools: libfiu (fiu-utils) is missing (no apt-get), so invocation.storage-fault-no-accepted cannot tell; install it with: sudo apt-get install -y fiu-utils',
      'system tools: libfiu (fiu-utils) is missing (apt-get failed: E: Unable to locate package fiu-utils), so invocation.storage-fault-no-accepted cannot tell; install it with: sudo apt-get install -y fiu-utils',
    ]);
  });
});
