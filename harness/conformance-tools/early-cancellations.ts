/**
 * Over Streamable HTTP every client message is a POST of its own, read concurrently: a
 * notifications/cancelled sent just after its tools/call can reach the server first. The SDK
 * ignores a cancellation of a request it has not seen (MCP allows that), and the call then runs
 * to its end: a task the gateway reported cancelling stays so until its deadline, and every
 * later case meets it. Holding such a cancellation until its request arrives keeps the client's
 * order on this server.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

/** How long an early cancellation waits for its request (then the request is taken as never sent). */
const HOLD_MS = 30_000;

type Delivery = Parameters<NonNullable<Transport['onmessage']>>;

function cancelledRequestId(message: JSONRPCMessage): RequestId | undefined {
  if (!('method' in message) || message.method !== 'notifications/cancelled' || 'id' in message)
    return undefined;
  const requestId: unknown = message.params?.['requestId'];
  return typeof requestId === 'string' || typeof requestId === 'number' ? requestId : undefined;
}

/** Wraps the connected transport's onmessage (call after server.connect). */
export function holdEarlyCancellations(transport: Transport): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) throw new Error('holdEarlyCancellations: connect the server first');
  const seen = new Set<RequestId>();
  const held = new Map<RequestId, Delivery>();
  transport.onmessage = (...delivery: Delivery) => {
    const [message] = delivery;
    const cancelled = cancelledRequestId(message);
    if (cancelled !== undefined && !seen.has(cancelled)) {
      held.set(cancelled, delivery);
      setTimeout(() => held.delete(cancelled), HOLD_MS).unref();
      return;
    }
    deliver(...delivery);
    if ('method' in message && 'id' in message) {
      seen.add(message.id);
      const early = held.get(message.id);
      if (early !== undefined) {
        held.delete(message.id);
        deliver(...early);
      }
    }
  };
}
