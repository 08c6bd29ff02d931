// The operator's kill and freeze commands are checked, never trusted: a kill that leaves the
// gateway's component connection open, or a freeze after which it still answers, makes the case
// undecided instead of letting it pass on no evidence. (That they work when they do is proved by
// examples/external-gateway, integration/external-gateway-example.test.ts.)
import { EventEmitter } from 'node:events';
import { xml } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import type { Caller } from '../harness/driver/index.ts';
import type { Federation } from '../harness/federation/server-provider.ts';
import type { SutInstance } from '../harness/sut/launch.ts';
import { CannotTell, NotApplicable } from '../suites/framework/verdicts.ts';
import { externalSutControl } from './external-sut-control.ts';

/** A component link with the gateway connected, as the fault proxy reports it. */
function linkWithGateway() {
  return Object.assign(new EventEmitter(), { openConnections: 1, acceptedConnections: 1 });
}

function federationWith(component: unknown): Federation {
  return { links: { component } } as unknown as Federation;
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
  it('offers nothing without commands, or without the harness on the component link', () => {
    expect(
      externalSutControl({ ...base, control: {}, federation: federationWith(linkWithGateway()) }),
    ).toBeUndefined();
    const external = {
      get links(): never {
        throw new Error('an external federation');
      },
    } as unknown as Federation;
    expect(
      externalSutControl({ ...base, control: { kill: ['true'] }, federation: external }),
    ).toBeUndefined();
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

  it('a command the SUT file does not declare makes the case inapplicable', async () => {
    const control = externalSutControl({
      ...base,
      control: { kill: ['true'] },
      federation: federationWith(linkWithGateway()),
    });
    await expect(control?.freeze()).rejects.toBeInstanceOf(NotApplicable);
  });
});
