/**
 * One run, one gateway: before the harness launches its gateway nothing may answer as the
 * component's domain, and a launched gateway refused with `conflict` names that cause; both name
 * the process holding the component connection when one is found.
 */
import { describe, expect, it } from 'vitest';
import type { SocketOwner } from './socket-owners.ts';
import { startFailureMessage } from './start-failure.ts';
import {
  conflictMessage,
  foreignComponentMessage,
  refuseForeignComponent,
  refuseStaleGateway,
  showsConflict,
  StaleGatewayError,
  staleGatewayMessage,
  startupConflict,
} from './stale-gateway.ts';

const LINK = { domain: 'agents.example', host: '127.0.0.1', port: 45_347 };
const STALE: SocketOwner = {
  pid: 4242,
  pgid: 4242,
  ancestors: [1000],
  command: 'node bin/agentconf.js gateway --config /tmp/old/gateway.json',
};

describe('the check before the launch', () => {
  it('lets the run go on when the server answers for the domain itself (no component connected)', () => {
    expect(
      staleGatewayMessage(LINK, { ready: false, detail: 'answered remote-server-timeout' }, []),
    ).toBeUndefined();
  });

  it('stops the run when something answers, naming the domain, the address, the PID and its command line', () => {
    const message = staleGatewayMessage(LINK, { ready: true }, [STALE]) ?? '';
    expect(message).toContain('something already answers as agents.example before the harness launched');
    expect(message).toContain('127.0.0.1:45347');
    expect(message).toContain(`PID 4242 (${STALE.command})`);
    expect(message).toContain('stop it (kill 4242) and run again');
    expect(message).toContain('"launch": "external"');
  });

  it('says that the process was not found, and why that can be, when /proc shows none', () => {
    const message = staleGatewayMessage(LINK, { ready: true }, []) ?? '';
    expect(message).toContain('Its process was not found');
    expect(message).toContain('best effort');
    expect(message).toContain('stop the gateway still configured with this port and secret');
  });

  it('probes once and looks for the process only when something answers', async () => {
    const looked: string[] = [];
    const lookup = (host: string, port: number): Promise<SocketOwner[]> => {
      looked.push(`${host}:${String(port)}`);
      return Promise.resolve([STALE]);
    };
    let probes = 0;
    await refuseStaleGateway(
      LINK,
      () => {
        probes += 1;
        return Promise.resolve({ ready: false, detail: 'answered service-unavailable' });
      },
      lookup,
    );
    expect([probes, looked]).toEqual([1, []]);
    const refused = refuseStaleGateway(LINK, () => Promise.resolve({ ready: true }), lookup);
    await expect(refused).rejects.toThrow(StaleGatewayError);
    await expect(refused).rejects.toThrow(/PID 4242/);
    expect(looked).toEqual(['127.0.0.1:45347']);
  });
});

describe('the check once the domain answers', () => {
  const LAUNCHED = 5000;
  const ours = (pid: number): SocketOwner => ({
    pid,
    pgid: LAUNCHED,
    ancestors: [LAUNCHED, 1000],
    command: 'python3 -m pygw',
  });
  // A worker the gateway started in a session of its own (setsid): another group, still its child.
  const worker: SocketOwner = { pid: 6000, pgid: 6000, ancestors: [LAUNCHED, 1000], command: 'pygw-worker' };

  it('accepts the launched gateway, its process group and its descendants, and cannot tell when /proc shows nothing', () => {
    expect(
      foreignComponentMessage(LINK, LAUNCHED, [ours(LAUNCHED), ours(LAUNCHED + 1), worker]),
    ).toBeUndefined();
    expect(foreignComponentMessage(LINK, LAUNCHED, [])).toBeUndefined();
  });

  it('names a connection held outside that group: the leftover that answered the readiness probe in its place', async () => {
    const message = foreignComponentMessage(LINK, LAUNCHED, [ours(LAUNCHED), STALE]) ?? '';
    expect(message).toContain(
      'another process than the gateway the harness launched is connected to the component port 127.0.0.1:45347 as agents.example',
    );
    expect(message).toContain('PID 4242');
    expect(message).not.toContain(`PID ${String(LAUNCHED)}`);
    const notOnlyLaunched = (): Promise<boolean> => Promise.resolve(false);
    await expect(
      refuseForeignComponent(LINK, LAUNCHED, () => Promise.resolve([STALE, ours(LAUNCHED)]), notOnlyLaunched),
    ).rejects.toThrow(StaleGatewayError);
    await expect(
      refuseForeignComponent(LINK, LAUNCHED, () => Promise.resolve([ours(LAUNCHED)]), notOnlyLaunched),
    ).resolves.toBeUndefined();
  });

  it('scans no other process when the launched gateway holds every connection itself', async () => {
    let scanned = false;
    const lookup = (): Promise<never[]> => {
      scanned = true;
      return Promise.resolve([]);
    };
    await refuseForeignComponent(LINK, 5000, lookup, () => Promise.resolve(true));
    expect(scanned).toBe(false);
    await refuseForeignComponent(LINK, 5000, lookup, () => Promise.resolve(false));
    expect(scanned).toBe(true);
  });
});

describe('a launched gateway refused with conflict', () => {
  it('is recognised by the stream condition in its output, not by a condition that merely contains the word', () => {
    expect(
      showsConflict(
        'agentconf gateway: cannot connect as agents.example to 127.0.0.1:5347: the server ended the stream (conflict)',
      ),
    ).toBe(true);
    expect(showsConflict('<stream:error><conflict xmlns="urn:ietf:params:xml:ns:xmpp-streams"/>')).toBe(true);
    expect(showsConflict('registration refused: version-conflict')).toBe(false);
    expect(showsConflict('gateway: online')).toBe(false);
  });

  it('names the cause and the process still connected, as the run prints it (exit 3)', async () => {
    const error = await startupConflict(LINK, 'the server ended the stream (conflict)\n', () =>
      Promise.resolve([STALE]),
    );
    expect(error).toBeInstanceOf(StaleGatewayError);
    expect(startFailureMessage(error)).toBe(conflictMessage(LINK, [STALE]));
    expect(conflictMessage(LINK, [STALE])).toMatch(
      /^the gateway the harness launched was refused with a conflict stream error: another component was already connected as agents\.example at 127\.0\.0\.1:45347.*PID 4242/,
    );
    expect(
      await startupConflict(LINK, 'cannot open the database\n', () => Promise.resolve([STALE])),
    ).toBeUndefined();
  });

  it('never shows the component secret, even when the stale command line carries it', () => {
    const leaky = { pid: 7, pgid: 7, ancestors: [], command: 'pygw --secret s3cr3t-value' };
    const message = startFailureMessage(new StaleGatewayError(conflictMessage(LINK, [leaky])), [
      's3cr3t-value',
    ]);
    expect(message).toContain('pygw --secret [component secret]');
    expect(message).not.toContain('s3cr3t-value');
  });
});
