/**
 * The `canary-listener` fixture (suites/registry/requirements.json): a TCP listener on an
 * ephemeral loopback port whose URLs a case plants in manifests and schemas. A gateway must
 * never dereference them (#manifest: homepage and avatar; #json-encoding: external $ref), so
 * any connection at all is a contact, whether it speaks HTTP, TLS or nothing: the listener
 * records who connected and what they sent first, then hangs up.
 *
 * It listens on 127.0.0.1, so it sees gateways on this machine, which is where `agentconf run`
 * starts the reference gateway; a gateway on another host cannot reach it, and a case then
 * proves nothing about it (said in the case's statement).
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { Caller } from '../../../harness/driver/index.ts';
import type { JsonObject } from '../../../protocol/json/json-value.ts';
import { buildManifestRequest } from '../../../protocol/stanza/index.ts';
import { encodeToolNode } from '../../../protocol/tool-node.ts';
import { expectThat, requirePositiveControl } from '../../framework/expect.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import { discoInfo, discoItems } from './discovery.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  adminFor,
  freshEndpoint,
  hasAdmin,
  provisionActive,
  registrantFor,
  type Registrant,
} from './provisioning.ts';
import type { Restorer } from './provisioning.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';

export interface CanaryContact {
  readonly from: string;
  /** The first bytes the client sent, as text when printable, else hex. */
  readonly firstBytes: string;
}

function describeBytes(data: Buffer): string {
  const head = data.subarray(0, 120);
  const text = head.toString('latin1');
  return /^[\x20-\x7e\r\n\t]*$/.test(text) ? text.trimEnd() : `hex ${head.toString('hex')}`;
}

export class CanaryListener {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #contacts: CanaryContact[] = [];
  readonly port: number;

  private constructor(server: Server, port: number) {
    this.#server = server;
    this.port = port;
    server.on('connection', (socket) => {
      this.#sockets.add(socket);
      // Recorded at once: a client that connects and sends nothing yet has still made contact.
      const index = this.#contacts.length;
      const from = `${socket.remoteAddress ?? '?'}:${String(socket.remotePort ?? '?')}`;
      this.#contacts.push({ from, firstBytes: '(nothing yet)' });
      socket.once('data', (data: Buffer) => {
        this.#contacts[index] = { from, firstBytes: describeBytes(data) };
        socket.destroy();
      });
      socket.on('error', () => {
        socket.destroy();
      });
      socket.once('close', () => {
        this.#sockets.delete(socket);
      });
    });
  }

  static start(): Promise<CanaryListener> {
    const server = createServer();
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        if (address === null || typeof address === 'string') {
          reject(new Error('the canary listener has no TCP port'));
          return;
        }
        resolve(new CanaryListener(server, address.port));
      });
    });
  }

  /** A URL on the listener; `label` tells contacts apart in the failure message. */
  url(scheme: 'https' | 'http', label: string): string {
    return `${scheme}://127.0.0.1:${String(this.port)}/agentconf-canary/${label}`;
  }

  /** Every connection so far. */
  get contacts(): readonly CanaryContact[] {
    return [...this.#contacts];
  }

  close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    return new Promise((resolve) => {
      this.#server.close(() => {
        resolve();
      });
    });
  }
}

/** Runs `body` with a fresh listener, closed afterwards whatever happens. */
export async function withCanaryListener<T>(body: (canary: CanaryListener) => Promise<T>): Promise<T> {
  const canary = await CanaryListener.start();
  try {
    return await body(canary);
  } finally {
    await canary.close();
  }
}

/**
 * Who registers a canary manifest: the administrator for a fresh virtual endpoint when there is
 * one, because only an activated endpoint on the gateway's domain is served by its discovery (a
 * self-registrant's bare JID is answered by its own server); else the self-registrant.
 */
export async function discoverableRegistrant(context: CaseContext, purpose: string): Promise<Registrant> {
  if (!hasAdmin(context)) return registrantFor(context, purpose);
  return { kind: 'admin', provisioning: await adminFor(context), jid: freshEndpoint(context, purpose).jid };
}

/**
 * Registers `manifest` for the registrant and, with an administrator, activates it; returns
 * whether it is active (so discovery serves it). A refused registration means the case cannot
 * tell what discovery would do with it.
 */
export async function registerForDiscovery(
  restorer: Restorer,
  registrant: Registrant,
  version: string,
  manifest: JsonObject,
): Promise<boolean> {
  if (registrant.kind === 'admin') {
    await provisionActive(restorer, registrant.provisioning, registrant.jid, version, manifest);
    return true;
  }
  const exchange = await restorer.register(registrant.provisioning, registrant.jid, JSON.stringify(manifest));
  if (exchange.parsed.type === 'error') {
    throw new CannotTell(`${registrant.jid} ${version} was refused: ${exchange.parsed.error.condition}`);
  }
  return false;
}

/**
 * What a caller reads about an endpoint version: info, items, manifest, and each tool's info.
 * With `served` (an active endpoint the caller may see), the exact manifest must come back: the
 * positive control that discovery really read the manifest whose URLs must not be fetched.
 */
export async function readThroughDiscovery(
  caller: Caller,
  jid: string,
  version: string,
  tools: readonly string[],
  served = false,
): Promise<void> {
  const [exact] = await Promise.all([
    caller.exchangeIq(jid, 'get', buildManifestRequest({ version })),
    discoInfo(caller, jid),
    discoItems(caller, jid),
    caller.exchangeIq(jid, 'get', buildManifestRequest({})),
    ...tools.map((tool) => discoInfo(caller, jid, encodeToolNode(version, tool))),
  ]);
  if (served) requirePositiveControl(exact, `${caller.bareJid} retrieving the manifest of ${jid} ${version}`);
}

/** No connection may have reached the canary listener. */
export function expectNoContact(canary: CanaryListener, requirement: RequirementId, what: string): void {
  const { contacts } = canary;
  expectThat(
    contacts.map((contact) => `from ${contact.from}: ${contact.firstBytes}`).join('\n'),
    requirement,
    `no connection to the canary listener on 127.0.0.1:${String(canary.port)} (${what})`,
    contacts.length === 0,
  );
}
