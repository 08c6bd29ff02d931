// The operator's kill and freeze commands are checked, never trusted: a kill that leaves the
// gateway's component connection open, or a freeze after which it still answers, makes the case
// undecided instead of letting it pass on no evidence. (That they work when they do is proved by
// examples/external-gateway, integration/external-gateway-example.test.ts.)
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { xml } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import type { Caller } from '../harness/driver/index.ts';
import type { Federation } from '../harness/federation/server-provider.ts';
import type { FaultProxy, StanzaTap } from '../harness/faults/fault-proxy.ts';
import type { SutInstance } from '../harness/sut/launch.ts';
import { CannotTell } from '../suites/framework/verdicts.ts';
import { externalStorageFaults } from './external-storage-faults.ts';
import { externalSutControl, runCommand } from './external-sut-control.ts';

const externalRun = (what: string, argv: readonly [string, ...string[]]) => runCommand(what, argv, 5_000);

/** A component link with the gateway connected, as the fault proxy reports it (stanzas read). */
function linkWithGateway() {
  const link = Object.assign(new EventEmitter(), {
    openConnections: 1,
    acceptedConnections: 1,
    inspectingStanzas: true,
    cuts: 0,
    installed: undefined as StanzaTap | undefined,
    tap(tap: StanzaTap | undefined) {
      link.installed = tap;
    },
    cut() {
      link.cuts += 1;
    },
  });
  return link;
}

/** The links of the harness's own federation; its servers are not needed by these tests. */
function federationWith(component: unknown): Federation {
  return {
    provider: 'native',
    component: { domain: 'agents.example' },
    servers: { a: { domains: ['example.com'] }, b: { domains: ['server.example'] } },
    links: { component },
  } as unknown as Federation;
}

const answeringCaller = {
  iq: () => Promise.resolve(xml('ping', { xmlns: 'urn:xmpp:ping' })),
} as unknown as Caller;

const base = {
  sut: {} as SutInstance,
  gatewayJid: 'agents.example',
  pinger: () => Promise.resolve(answeringCaller),
  commandTimeoutMs: 300,
};

describe('externalSutControl', () => {
  it('offers nothing without the harness on the component link (an external federation)', () => {
    const external = {
      get links(): never {
        throw new Error('an external federation');
      },
    } as unknown as Federation;
    expect(
      externalSutControl({ ...base, control: { kill: ['true'] }, federation: external }),
    ).toBeUndefined();
  });

  it('offers the link, without commands too: what needs a missing command cannot tell, naming it', async () => {
    const control = externalSutControl({
      ...base,
      control: {},
      federation: federationWith(linkWithGateway()),
    });
    expect(control?.link).toBeDefined();
    expect(control?.storage).toBeUndefined();
    await expect(control?.crashAndRestart()).rejects.toBeInstanceOf(CannotTell);
    await expect(control?.crashAndRestart()).rejects.toThrow(/needs the SUT file's external\.kill command/);
    await expect(control?.freeze()).rejects.toThrow(/needs the SUT file's external\.freeze command/);
    // Refused before the tap is armed: nothing the gateway writes is held for a kill that cannot come.
    expect(() => control?.link?.killBeforeForwarding(() => true)).toThrow(
      /needs the SUT file's external\.kill command/,
    );
  });

  it('a kill at a held stanza that leaves the gateway connected cannot tell, and what was held goes nowhere', async () => {
    const link = linkWithGateway();
    const control = externalSutControl({
      ...base,
      control: { kill: ['true'] },
      federation: federationWith(link),
    });
    const point = control?.link?.killBeforeForwarding(() => true);
    expect(link.installed?.(xml('iq', { type: 'result' }))).toBe('hold');
    await expect(point?.fired).rejects.toThrow(
      /kept its component connection open .*: it did not kill the gateway/,
    );
    expect(link.cuts).toBe(1);
  });

  it('cannot tell when the kill command exits 0 but the gateway stays connected', async () => {
    const control = externalSutControl({
      ...base,
      control: { kill: ['true'] },
      federation: federationWith(linkWithGateway()),
    });
    const crash = control?.crashAndRestart();
    await expect(crash).rejects.toBeInstanceOf(CannotTell);
    await expect(crash).rejects.toThrow(/stayed open .*: it did not kill the gateway/);
  });

  it('cannot tell when the kill command fails, naming it and its output', async () => {
    const control = externalSutControl({
      ...base,
      control: { kill: ['sh', '-c', 'echo no such gateway >&2; exit 3'] },
      federation: federationWith(linkWithGateway()),
    });
    await expect(control?.crashAndRestart()).rejects.toThrow(
      /external\.kill command \(sh -c .*\) failed: .*stderr: no such gateway/,
    );
  });

  it('cannot tell when the gateway still answers a ping after the freeze command', async () => {
    const control = externalSutControl({
      ...base,
      control: { freeze: ['true'], thaw: ['true'] },
      federation: federationWith(linkWithGateway()),
    });
    await expect(control?.freeze()).rejects.toThrow(
      'the gateway still answered a ping after external.freeze: it is not frozen',
    );
  });
});

describe('externalStorageFaults', () => {
  function recorder() {
    const dir = mkdtempSync(join(tmpdir(), 'agentconf-storage-'));
    const file = join(dir, 'commands');
    const record = (word: string) => ['sh', '-c', `echo ${word} >>"$0"`, file] as const;
    return { dir, read: () => readFileSync(file, 'utf8').trim().split('\n'), record };
  }

  it('turns the fault on around `during` and off after it, the gateway still running', async () => {
    const { dir, read, record } = recorder();
    try {
      const faults = externalStorageFaults({
        commands: { sync: record('sync'), write: record('write'), restore: record('restore') },
        proxy: new EventEmitter() as unknown as FaultProxy,
        run: (what, argv) => externalRun(what, argv),
        answersAgain: () => Promise.reject(new Error('not restarted')),
      });
      const { value, exited } = await faults.failWhile('write', () => Promise.resolve(read()));
      expect(value).toEqual(['write']);
      expect(exited).toBe(false);
      expect(read()).toEqual(['write', 'restore']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a gateway whose link closed under the fault exited: the run waits for its supervisor to restart it', async () => {
    const proxy = new EventEmitter();
    let restarted = false;
    const faults = externalStorageFaults({
      commands: { sync: ['true'], write: ['true'], restore: ['false'] },
      proxy: proxy as unknown as FaultProxy,
      run: (what, argv) => externalRun(what, argv),
      answersAgain: () => {
        restarted = true;
        return Promise.resolve();
      },
    });
    const { exited } = await faults.failWhile('sync', async (gone) => {
      proxy.emit('closed');
      await gone;
    });
    expect(exited).toBe(true);
    expect(restarted).toBe(true);
  });

  it('a fault that cannot be turned off on a running gateway cannot tell, naming the command', async () => {
    const faults = externalStorageFaults({
      commands: { sync: ['true'], write: ['true'], restore: ['sh', '-c', 'echo pipe gone >&2; exit 1'] },
      proxy: new EventEmitter() as unknown as FaultProxy,
      run: (what, argv) => externalRun(what, argv),
      answersAgain: () => Promise.resolve(),
    });
    await expect(faults.failWhile('sync', () => Promise.resolve())).rejects.toThrow(
      /external\.storageFault\.restore command .*stderr: pipe gone/,
    );
  });
});
