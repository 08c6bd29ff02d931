/**
 * Finding the process on the client end of a TCP connection through /proc: the table parsing,
 * and a real child process connected to a listener of this test.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, Socket, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  connectionInodes,
  connectionsHeldOnlyBy,
  parentOf,
  processesConnectedTo,
  processGroupOf,
} from './socket-owners.ts';

// Captured from a Linux machine: a listener on 127.0.0.1:5347 (0x14E3), a client of it (inode
// 51234), the server's end of that connection, a client of another port, a v4-mapped client in tcp6.
const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:14E3 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 40001 1 0000000000000000 100 0 0 10 0
   1: 0100007F:9C41 0100007F:14E3 01 00000000:00000000 00:00000000 00000000     0        0 51234 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:14E3 0100007F:9C41 01 00000000:00000000 00:00000000 00000000     0        0 51235 1 0000000000000000 20 4 30 10 -1
   3: 0100007F:9C42 0100007F:1466 01 00000000:00000000 00:00000000 00000000     0        0 51236 1 0000000000000000 20 4 30 10 -1
   4: 0100007F:9C43 0100007F:14E3 06 00000000:00000000 00:00000000 00000000     0        0 0 1 0000000000000000 20 4 30 10 -1`;
const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0000000000000000FFFF00000100007F:9C44 0000000000000000FFFF00000100007F:14E3 01 00000000:00000000 00:00000000 00000000     0        0 51240 1 0000000000000000 20 4 30 10 -1
   1: 00000000000000000000000001000000:9C45 00000000000000000000000001000000:14E3 01 00000000:00000000 00:00000000 00000000     0        0 51241 1 0000000000000000 20 4 30 10 -1`;

describe('the established connections to an address in /proc/net/tcp', () => {
  it('takes the client ends whose remote end is host:port, in tcp and as v4-mapped in tcp6', () => {
    expect(connectionInodes(`${TCP}\n${TCP6}`, '127.0.0.1', 5347)).toEqual(['51234', '51240']);
  });

  it('reads IPv6 addresses word by word', () => {
    expect(connectionInodes(TCP6, '::1', 5347)).toEqual(['51241']);
  });

  it('matches a host name by the port alone, and nothing on another port or another address', () => {
    expect(connectionInodes(TCP, 'localhost', 5347)).toEqual(['51234']);
    expect(connectionInodes(TCP, '127.0.0.1', 5348)).toEqual([]);
    expect(connectionInodes(TCP, '127.0.0.2', 5347)).toEqual([]);
  });
});

describe('the process group in /proc/PID/stat', () => {
  it('is read after the command name, whatever parentheses and spaces that holds', () => {
    expect(processGroupOf('4242 (node) S 1 4240 4240 0 -1 4194560 1021')).toBe(4240);
    expect(processGroupOf('77 (a) b (c) S 1 70 70 0')).toBe(70);
    expect(processGroupOf('')).toBe(0);
    expect(parentOf('77 (a) b (c) S 1 70 70 0')).toBe(1);
  });
});

describe.runIf(process.platform === 'linux')('the process holding a connection', () => {
  it('is found with its PID, process group and command line; the connections of this process are left out', async () => {
    const accepted: Socket[] = [];
    const server = createServer((socket) => {
      // The connecting process is killed at the end, which may reset the connection.
      socket.on('error', () => undefined);
      accepted.push(socket);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const script = `require('node:net').connect(${String(port)}, '127.0.0.1'); setInterval(() => {}, 1000);`;
    // A process group of its own, as the harness launches a gateway.
    const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore', detached: true });
    try {
      await once(server, 'connection');
      const owners = await processesConnectedTo('127.0.0.1', port);
      expect(owners).toEqual([
        {
          pid: child.pid,
          pgid: child.pid,
          ancestors: expect.arrayContaining([process.pid]) as unknown,
          command: `${process.execPath} -e ${script}`,
        },
      ]);
      // The quick answer from the child's own descriptors agrees; a connection of this process
      // to the same port is one the child does not hold, and nothing is decided for another port.
      expect(await connectionsHeldOnlyBy('127.0.0.1', port, child.pid ?? 0)).toBe(true);
      const accepting = once(server, 'connection');
      const ours = new Socket().connect(port, '127.0.0.1');
      await Promise.all([once(ours, 'connect'), accepting]);
      expect(await connectionsHeldOnlyBy('127.0.0.1', port, child.pid ?? 0)).toBe(false);
      ours.destroy();
      expect(await connectionsHeldOnlyBy('127.0.0.1', port + 1, child.pid ?? 0)).toBe(false);
    } finally {
      child.kill('SIGKILL');
      for (const socket of accepted) socket.destroy();
      server.close();
    }
  });
});
