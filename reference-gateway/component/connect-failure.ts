/**
 * Why a connection attempt to the XMPP server failed, in one sentence an operator can act on
 * (`agentconf gateway` prints it and exits 1 when the first attempt fails). The link's errors
 * (protocol/component-link) and socket errors are classified by their kind, never printed with
 * their stack, and never carry the secret.
 */

import { AttemptTimeout, StepTimeout } from '../../protocol/component-link/component-link.ts';

export { AttemptTimeout } from '../../protocol/component-link/component-link.ts';

/** The first connection attempt failed; the message is the whole explanation. */
export class GatewayConnectError extends Error {
  override readonly name = 'GatewayConnectError';
}

export interface ConnectTarget {
  readonly host: string;
  readonly port: number;
  readonly domain: string;
  readonly attemptTimeoutMs: number;
}

function field(error: unknown, name: string): string | undefined {
  if (typeof error !== 'object' || error === null || !(name in error)) return undefined;
  const value: unknown = (error as Record<string, unknown>)[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function describeConnectFailure(error: unknown, target: ConnectTarget): string {
  const server = `${target.host}:${String(target.port)}`;
  const prefix = `cannot connect as ${target.domain} to ${server}`;
  if (error instanceof AttemptTimeout) {
    return `${prefix}: no component handshake within ${String(target.attemptTimeoutMs)} ms (is this the server's component port?)`;
  }
  if (error instanceof StepTimeout) {
    return `${prefix}: the server did not answer the stream open or the handshake in time (is this the server's component port?)`;
  }
  const condition = field(error, 'condition');
  if (condition === 'not-authorized') {
    return `${prefix}: the server refused the handshake (not-authorized): check component.secret`;
  }
  if (condition === 'host-unknown' || condition === 'improper-addressing') {
    return `${prefix}: the server does not accept ${target.domain} as a component (${condition}): check component.domain`;
  }
  if (condition !== undefined) return `${prefix}: the server ended the stream (${condition})`;
  const code = field(error, 'code');
  if (code !== undefined) return `${prefix} (${code})`;
  return `${prefix}: ${error instanceof Error ? error.message : String(error)}`;
}
