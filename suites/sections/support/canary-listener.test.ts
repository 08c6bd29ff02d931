import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CanaryListener, withCanaryListener } from './canary-listener.ts';

/** Connects, optionally writes, and resolves once the listener has hung up. */
function touch(port: number, data?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      if (data !== undefined) socket.write(data);
      else socket.end();
    });
    socket.on('error', reject);
    socket.on('close', () => {
      resolve();
    });
  });
}

describe('canary listener', () => {
  it('records every connection with what the client sent first, and URLs on its port', async () => {
    await withCanaryListener(async (canary) => {
      expect(canary.contacts).toEqual([]);
      expect(canary.url('https', 'avatar.png')).toBe(
        `https://127.0.0.1:${String(canary.port)}/agentconf-canary/avatar.png`,
      );
      await touch(canary.port, 'GET /agentconf-canary/homepage HTTP/1.1\r\nHost: x\r\n\r\n');
      await touch(canary.port, '\u0016\u0003\u0001');
      await touch(canary.port);
      expect(canary.contacts.map((contact) => contact.firstBytes)).toEqual([
        'GET /agentconf-canary/homepage HTTP/1.1\r\nHost: x',
        'hex 160301',
        '(nothing yet)',
      ]);
    });
  });

  it('stops listening when closed', async () => {
    const canary = await CanaryListener.start();
    await canary.close();
    await expect(touch(canary.port)).rejects.toThrow();
  });
});
