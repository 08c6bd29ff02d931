/**
 * One run, one gateway. A SUT file that fixes the component port and secret lets a gateway left
 * over from an earlier run (or started by hand and forgotten) reconnect to this run's server. If
 * it connects first, the server refuses the gateway the harness launches with a `conflict` stream
 * error (Prosody takes one connection per component domain) and the run would judge the leftover
 * instead. Three checks, each deterministic for the state it looks at:
 * - before the launch, nothing may answer as the component's domain (one disco#info probe);
 * - a launched gateway that fails to start with `conflict` in its output had that cause;
 * - once the domain answers, every process holding a connection to the component port is the
 *   launched gateway or one of its own, in its process group or descendants (the leftover may
 *   have connected between the probe and the launched gateway's handshake, and answered the
 *   readiness probe in its place). This one
 *   reads /proc and so is best effort: where nothing is found it cannot tell and lets the run go.
 * Each failure names the domain, the address and, when /proc shows it, the process holding the
 * component connection (socket-owners.ts).
 */
import type { ProbeAnswer, SutProbe } from './readiness.ts';
import { connectionsHeldOnlyBy, processesConnectedTo, type SocketOwner } from './socket-owners.ts';

/** Where the component connects, as the federation routes it. */
export interface ComponentLink {
  readonly domain: string;
  readonly host: string;
  readonly port: number;
}

/** Another component holds the connection the launched gateway needs; the message names it. */
export class StaleGatewayError extends Error {
  override readonly name = 'StaleGatewayError';
}

export type OwnerLookup = (host: string, port: number) => Promise<readonly SocketOwner[]>;

function holders(owners: readonly SocketOwner[]): string {
  if (owners.length === 0) {
    return (
      'Its process was not found: the harness looks for the client end of the component ' +
      'connection in /proc (Linux only, processes it may inspect, the same machine; best effort)'
    );
  }
  const named = owners.map(
    (owner) => `PID ${String(owner.pid)} (${owner.command || 'command line unreadable'})`,
  );
  return `The component connection is held by ${named.join(', ')}`;
}

function advice(owners: readonly SocketOwner[]): string {
  const stop =
    owners.length === 0
      ? 'stop the gateway still configured with this port and secret'
      : `stop it (kill ${owners.map((owner) => String(owner.pid)).join(' ')})`;
  return (
    `${stop} and run again; a gateway you start yourself belongs in a SUT file with ` +
    '"launch": "external" (docs/sut.md)'
  );
}

const address = (link: ComponentLink): string => `${link.host}:${String(link.port)}`;

/** The likely cause and what to do, after the sentence saying what was seen. */
function explained(owners: readonly SocketOwner[]): string {
  return (
    `, most likely a gateway left over from an earlier run with the same fixed port and secret. ` +
    `${holders(owners)}; ${advice(owners)}`
  );
}

/**
 * The decision before the launch: undefined when nothing answers as the component's domain,
 * otherwise why the run cannot go on.
 */
export function staleGatewayMessage(
  link: ComponentLink,
  answer: ProbeAnswer,
  owners: readonly SocketOwner[],
): string | undefined {
  if (!answer.ready) return undefined;
  return (
    `something already answers as ${link.domain} before the harness launched its gateway, and it ` +
    `would be judged in place of that one: a component connected to this run's server at ` +
    `${address(link)}${explained(owners)}`
  );
}

// The stream condition as a word of its own, not a part of another condition (version-conflict).
const CONFLICT = /(?<![\w-])conflict(?![\w-])/i;

/** Whether a gateway's start-up output shows the server's `conflict` stream error. */
export function showsConflict(output: string): boolean {
  return CONFLICT.test(output);
}

/** Why a launched gateway refused with `conflict` could not start. */
export function conflictMessage(link: ComponentLink, owners: readonly SocketOwner[]): string {
  return (
    `the gateway the harness launched was refused with a conflict stream error: another component ` +
    `was already connected as ${link.domain} at ${address(link)}${explained(owners)}`
  );
}

/**
 * The decision once the domain answers: undefined when every process connected to the component
 * port is the launched gateway, in its process group or started by it (or /proc shows none:
 * cannot tell).
 */
export function foreignComponentMessage(
  link: ComponentLink,
  launchedGroup: number,
  owners: readonly SocketOwner[],
): string | undefined {
  const foreign = owners.filter(
    (owner) => owner.pgid !== launchedGroup && !owner.ancestors.includes(launchedGroup),
  );
  if (foreign.length === 0) return undefined;
  return (
    `another process than the gateway the harness launched is connected to the component port ` +
    `${address(link)} as ${link.domain}, and may be what answers there${explained(foreign)}`
  );
}

/** After the readiness probe: throws StaleGatewayError when a process outside `launchedGroup` holds a component connection. */
export async function refuseForeignComponent(
  link: ComponentLink,
  launchedGroup: number,
  lookup: OwnerLookup = processesConnectedTo,
  heldOnlyByLaunched: (link: ComponentLink, pid: number) => Promise<boolean> = (held, pid) =>
    connectionsHeldOnlyBy(held.host, held.port, pid),
): Promise<void> {
  // The launched process is its own group leader (ManagedProcess starts it detached), so the
  // usual case, every connection its own, needs no scan of every process.
  if (await heldOnlyByLaunched(link, launchedGroup)) return;
  const message = foreignComponentMessage(link, launchedGroup, await lookup(link.host, link.port));
  if (message !== undefined) throw new StaleGatewayError(message);
}

/** Asks once, before the launch, whether anything answers as the domain; throws StaleGatewayError if so. */
export async function refuseStaleGateway(
  link: ComponentLink,
  probe: SutProbe['probe'],
  lookup: OwnerLookup = processesConnectedTo,
): Promise<void> {
  const answer = await probe();
  if (!answer.ready) return;
  const message = staleGatewayMessage(link, answer, await lookup(link.host, link.port));
  if (message !== undefined) throw new StaleGatewayError(message);
}

/**
 * For a launched gateway that did not come up: the StaleGatewayError its output shows, while the
 * other component is still connected (so before the federation stops), or undefined.
 */
export async function startupConflict(
  link: ComponentLink,
  output: string,
  lookup: OwnerLookup = processesConnectedTo,
): Promise<StaleGatewayError | undefined> {
  if (!showsConflict(output)) return undefined;
  return new StaleGatewayError(conflictMessage(link, await lookup(link.host, link.port)));
}
