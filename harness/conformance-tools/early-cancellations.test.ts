import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { holdEarlyCancellations } from './early-cancellations.ts';

/** A transport's three methods, doing nothing: only onmessage matters here. */
const IDLE = {
  start: () => Promise.resolve(),
  send: () => Promise.resolve(),
  close: () => Promise.resolve(),
};

function connected(): { transport: Transport; delivered: JSONRPCMessage[] } {
  const delivered: JSONRPCMessage[] = [];
  const transport = {
    ...IDLE,
    onmessage: (message: JSONRPCMessage) => {
      delivered.push(message);
    },
  } as Transport;
  holdEarlyCancellations(transport);
  return { transport, delivered };
}

const call = (id: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'script', arguments: {} },
});
const cancel = (requestId: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId, reason: 'the caller cancelled the task' },
});

describe('holdEarlyCancellations', () => {
  it('hands a cancellation that overtook its request over right after the request', () => {
    const { transport, delivered } = connected();
    transport.onmessage?.(cancel(7));
    expect(delivered).toEqual([]);
    transport.onmessage?.(call(7));
    expect(delivered).toEqual([call(7), cancel(7)]);
  });

  it('passes a cancellation of a request already seen, and everything else, straight on', () => {
    const { transport, delivered } = connected();
    transport.onmessage?.(call(3));
    transport.onmessage?.(cancel(3));
    transport.onmessage?.(call(4));
    expect(delivered).toEqual([call(3), cancel(3), call(4)]);
  });

  it('refuses a transport no server is connected to', () => {
    expect(() => {
      holdEarlyCancellations({ ...IDLE });
    }).toThrow(/connect the server first/u);
  });
});
