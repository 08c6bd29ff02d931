/**
 * Which local processes hold a TCP connection to an address: the client end of an established
 * connection whose remote end is host:port, found through Linux's /proc (the connection's socket
 * inode in /proc/net/tcp and tcp6, then the process whose /proc/PID/fd links to that socket).
 *
 * Best effort by nature: on another system, for processes of another user without root, or for
 * a client on another machine (or in another network namespace) nothing is found, and the
 * answer is an empty list, never an error.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';
import { isIPv4, isIPv6 } from 'node:net';

export interface SocketOwner {
  readonly pid: number;
  /** Its process group (a launched gateway's children share the gateway's); 0 when unreadable. */
  readonly pgid: number;
  /** Its parent, the parent's parent, … up to init (children that left the group still show here). */
  readonly ancestors: readonly number[];
  /** The process's command line, arguments separated by spaces ("" when unreadable). */
  readonly command: string;
}

/** /proc/net/tcp's state column for an established connection. */
const ESTABLISHED = '01';

/**
 * An address as /proc/net/tcp{,6} prints it: 32-bit words in host byte order, which is
 * little-endian on every architecture Node runs Linux on here (x86-64, arm64).
 */
function procAddresses(host: string): readonly string[] | undefined {
  const word = (bytes: readonly number[]): string =>
    bytes
      .toReversed()
      .map((byte) => byte.toString(16).padStart(2, '0'))
      .join('')
      .toUpperCase();
  if (isIPv4(host)) {
    const bytes = host.split('.').map(Number);
    // A v4 peer of a dual-stack socket appears in tcp6 as ::ffff:a.b.c.d.
    return [word(bytes), `0000000000000000FFFF0000${word(bytes)}`];
  }
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(host)?.[1];
  if (mapped !== undefined) return procAddresses(mapped);
  if (isIPv6(host)) {
    const bytes = ipv6Bytes(host);
    const words = [0, 4, 8, 12].map((offset) => word(bytes.slice(offset, offset + 4)));
    return [words.join('')];
  }
  return undefined;
}

function ipv6Bytes(host: string): number[] {
  const [head = '', tail] = host.split('::');
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const before = groups(head);
  const after = tail === undefined ? [] : groups(tail);
  const all = [...before, ...Array<string>(8 - before.length - after.length).fill('0'), ...after];
  return all.flatMap((group) => {
    const value = Number.parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

/**
 * The socket inodes of established connections to host:port in /proc/net/tcp-format `table`
 * text; a host that is not an IP address matches by port alone.
 */
export function connectionInodes(table: string, host: string, port: number): string[] {
  const addresses = procAddresses(host);
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes: string[] = [];
  for (const line of table.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    const [remoteAddress, remotePort] = (fields[2] ?? '').split(':');
    const inode = fields[9];
    if (fields[3] !== ESTABLISHED || remotePort !== hexPort || inode === undefined || inode === '0') continue;
    if (addresses === undefined || addresses.includes(remoteAddress ?? '')) inodes.push(inode);
  }
  return inodes;
}

async function readTables(): Promise<string> {
  const tables = await Promise.all(
    ['/proc/net/tcp', '/proc/net/tcp6'].map((path) => readFile(path, 'utf8').catch(() => '')),
  );
  return tables.join('\n');
}

/**
 * The process group in /proc/PID/stat text: the third field after the command name, which is in
 * parentheses and may itself hold spaces and parentheses.
 */
export function processGroupOf(stat: string): number {
  return statField(stat, 2);
}

/** The parent's PID in /proc/PID/stat text (0 when unreadable). */
export function parentOf(stat: string): number {
  return statField(stat, 1);
}

function statField(stat: string, index: number): number {
  const fields = stat
    .slice(stat.lastIndexOf(')') + 1)
    .trim()
    .split(/\s+/);
  const value = Number(fields[index]);
  return Number.isInteger(value) ? value : 0;
}

async function ancestorsOf(stat: string): Promise<number[]> {
  const ancestors: number[] = [];
  // Bounded: a PID reused while walking could otherwise loop.
  for (let parent = parentOf(stat); parent > 1 && ancestors.length < 64;) {
    ancestors.push(parent);
    parent = parentOf(await readFile(`/proc/${String(parent)}/stat`, 'utf8').catch(() => ''));
  }
  return ancestors;
}

/** The socket inodes among a process's descriptors (empty when it cannot be read). */
async function socketInodesOf(pid: string): Promise<Set<string>> {
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
  // Read side by side: every run's start waits for this after its readiness probe, and the scan
  // of every process (ownersOf) reads thousands (27 descriptors: 1.4 ms one by one, 0.3 ms so).
  const targets = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  const inodes = new Set<string>();
  for (const target of targets) {
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode !== undefined) inodes.add(inode);
  }
  return inodes;
}

/** The processes whose descriptors include one of `inodes`, in PID order. */
async function ownersOf(inodes: ReadonlySet<string>): Promise<SocketOwner[]> {
  const pids = (await readdir('/proc').catch(() => [])).filter((name) => /^\d+$/.test(name));
  const owners: SocketOwner[] = [];
  for (const pid of pids) {
    const held = await socketInodesOf(pid);
    if (![...inodes].some((inode) => held.has(inode))) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    owners.push({
      pid: Number(pid),
      pgid: processGroupOf(stat),
      ancestors: await ancestorsOf(stat),
      command: cmdline.replace(/\0+$/, '').replaceAll('\0', ' '),
    });
  }
  return owners.sort((a, b) => a.pid - b.pid);
}

/** The local processes with an established connection to host:port (best effort; see above). */
export async function processesConnectedTo(host: string, port: number): Promise<SocketOwner[]> {
  const inodes = new Set(connectionInodes(await readTables(), host, port));
  if (inodes.size === 0) return [];
  return (await ownersOf(inodes)).filter((owner) => owner.pid !== process.pid);
}

/**
 * Whether `pid` itself holds every established connection to host:port: the usual answer right
 * after a launch, read from one process's descriptors instead of every process's (a full scan
 * costs tens of milliseconds at each run's start, more on a busy machine). False when no
 * connection is found, which decides nothing.
 */
export async function connectionsHeldOnlyBy(host: string, port: number, pid: number): Promise<boolean> {
  const inodes = connectionInodes(await readTables(), host, port);
  if (inodes.length === 0) return false;
  const held = await socketInodesOf(String(pid));
  return inodes.every((inode) => held.has(inode));
}
