// The containers' only resolver: a tiny authoritative DNS server on the host, one per server
// container, answering from the run's routing table and nothing else.
//
// Why: Prosody's lua-unbound asking Docker's embedded DNS for `_xmpp-server._tcp.<domain>` waits
// ~17 s per direction for an upstream that never answers. The stub answers at once: SRV records
// for the s2s names (so a route can point at any port, e.g. a fault proxy on the host), A records
// for the domains and the SRV targets, NODATA for other types of a known name and NXDOMAIN for
// every other name. TTL 0: a route changed during the run (a restarted peer) is seen at once.
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { isIPv4 } from 'node:net';

import type { Endpoint } from '../faults/fault-proxy.ts';

export const DNS_TYPE = { A: 1, AAAA: 28, SRV: 33, OPT: 41 } as const;
const CLASS_IN = 1;
const RCODE = { noError: 0, formErr: 1, nxDomain: 3, notImp: 4, refused: 5 } as const;

export interface SrvRecord {
  readonly priority?: number;
  readonly weight?: number;
  readonly port: number;
  readonly target: string;
}

export interface DnsRecords {
  readonly a?: readonly string[];
  readonly srv?: readonly SrvRecord[];
}

export type DnsLookup = (name: string) => DnsRecords | undefined;

export interface DnsQuestion {
  readonly id: number;
  readonly name: string;
  readonly type: number;
  readonly qclass: number;
  /** Bytes of the question section, echoed in the answer. */
  readonly questionBytes: Buffer;
  readonly flags: number;
  readonly edns: boolean;
}

class MalformedQuery extends Error {}

function readName(message: Buffer, start: number): { name: string; end: number } {
  const labels: string[] = [];
  let offset = start;
  for (;;) {
    const length = message[offset];
    if (length === undefined) throw new MalformedQuery('name runs past the end');
    // Queries carry no compression pointers (and the labels we answer are never longer than 63).
    if (length > 63) throw new MalformedQuery('compressed or oversized label in a query');
    offset += 1;
    if (length === 0) break;
    if (offset + length > message.length) throw new MalformedQuery('label runs past the end');
    labels.push(message.toString('latin1', offset, offset + length));
    offset += length;
  }
  return { name: labels.join('.'), end: offset };
}

/** Parses a query with exactly one question; undefined when it is not worth an answer at all. */
export function parseQuery(message: Buffer): DnsQuestion | undefined {
  if (message.length < 12) return undefined;
  const flags = message.readUInt16BE(2);
  if ((flags & 0x8000) !== 0) return undefined; // a response, not a query
  const id = message.readUInt16BE(0);
  const questions = message.readUInt16BE(4);
  if (questions !== 1) {
    return { id, name: '', type: 0, qclass: 0, questionBytes: Buffer.alloc(0), flags, edns: false };
  }
  try {
    const { name, end } = readName(message, 12);
    if (end + 4 > message.length) throw new MalformedQuery('question runs past the end');
    const type = message.readUInt16BE(end);
    const qclass = message.readUInt16BE(end + 2);
    const additional = message.readUInt16BE(10);
    // An OPT record (EDNS) right after the question: its owner is the root, one zero byte.
    const edns =
      additional > 0 &&
      message[end + 4] === 0 &&
      message.length >= end + 7 &&
      message.readUInt16BE(end + 5) === DNS_TYPE.OPT;
    return { id, name, type, qclass, questionBytes: message.subarray(12, end + 4), flags, edns };
  } catch (error) {
    if (error instanceof MalformedQuery) {
      return { id, name: '', type: 0, qclass: 0, questionBytes: Buffer.alloc(0), flags, edns: false };
    }
    throw error;
  }
}

function encodeName(name: string): Buffer {
  const parts = name
    .replace(/\.$/, '')
    .split('.')
    .filter((label) => label !== '');
  const bytes: Buffer[] = [];
  for (const label of parts) {
    const encoded = Buffer.from(label, 'latin1');
    if (encoded.length > 63) throw new RangeError(`DNS label too long: ${label}`);
    bytes.push(Buffer.from([encoded.length]), encoded);
  }
  bytes.push(Buffer.from([0]));
  return Buffer.concat(bytes);
}

/** An answer record owned by the question's name (compression pointer to offset 12). */
function answerRecord(type: number, rdata: Buffer): Buffer {
  const head = Buffer.alloc(12);
  head.writeUInt16BE(0xc00c, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt16BE(CLASS_IN, 4);
  head.writeUInt32BE(0, 6); // TTL 0: never cached
  head.writeUInt16BE(rdata.length, 10);
  return Buffer.concat([head, rdata]);
}

function ipv4Bytes(address: string): Buffer {
  if (!isIPv4(address)) throw new RangeError(`not an IPv4 address: ${address}`);
  return Buffer.from(address.split('.').map(Number));
}

function srvBytes(record: SrvRecord): Buffer {
  const head = Buffer.alloc(6);
  head.writeUInt16BE(record.priority ?? 0, 0);
  head.writeUInt16BE(record.weight ?? 0, 2);
  head.writeUInt16BE(record.port, 4);
  return Buffer.concat([head, encodeName(record.target)]);
}

/** The answer to one query, from `lookup` (names are looked up in lower case, without the final dot). */
export function answerQuery(message: Buffer, lookup: DnsLookup): Buffer | undefined {
  const question = parseQuery(message);
  if (question === undefined) return undefined;
  const opcode = (question.flags >> 11) & 0x0f;
  let rcode: number = RCODE.noError;
  const answers: Buffer[] = [];
  if (question.questionBytes.length === 0) {
    rcode = RCODE.formErr;
  } else if (opcode !== 0) {
    rcode = RCODE.notImp;
  } else if (question.qclass !== CLASS_IN) {
    rcode = RCODE.refused;
  } else {
    const records = lookup(question.name.toLowerCase().replace(/\.$/, ''));
    if (records === undefined) {
      rcode = RCODE.nxDomain;
    } else if (question.type === DNS_TYPE.A) {
      for (const address of records.a ?? []) answers.push(answerRecord(DNS_TYPE.A, ipv4Bytes(address)));
    } else if (question.type === DNS_TYPE.SRV) {
      for (const record of records.srv ?? []) answers.push(answerRecord(DNS_TYPE.SRV, srvBytes(record)));
    }
    // Any other type of a known name (AAAA above all): NOERROR with no answer, i.e. NODATA.
  }
  const header = Buffer.alloc(12);
  header.writeUInt16BE(question.id, 0);
  // QR, the query's opcode, AA, the query's RD, RA, and the response code.
  header.writeUInt16BE(0x8000 | (question.flags & 0x7900) | 0x0400 | 0x0080 | rcode, 2);
  header.writeUInt16BE(question.questionBytes.length > 0 ? 1 : 0, 4);
  header.writeUInt16BE(answers.length, 6);
  header.writeUInt16BE(0, 8);
  header.writeUInt16BE(question.edns ? 1 : 0, 10);
  // Our own OPT when the query had one: no options, a 1232-byte UDP payload size.
  const opt = question.edns
    ? Buffer.from([0, 0, DNS_TYPE.OPT, 0x04, 0xd0, 0, 0, 0, 0, 0, 0])
    : Buffer.alloc(0);
  return Buffer.concat([header, question.questionBytes, ...answers, opt]);
}

/** Where a server finds a peer domain: s2s SRV and A records pointing at `endpoint`. */
export function s2sRecords(domain: string, endpoint: Endpoint): Map<string, DnsRecords> {
  return new Map<string, DnsRecords>([
    [domain, { a: [endpoint.host] }],
    [`_xmpp-server._tcp.${domain}`, { srv: [{ port: endpoint.port, target: domain }] }],
  ]);
}

/** A UDP DNS server answering from a table that can change while it runs. */
export class DnsStub {
  readonly #socket: Socket;
  readonly #records = new Map<string, DnsRecords>();
  #queries = 0;
  #address: Endpoint;

  private constructor(socket: Socket, address: Endpoint) {
    this.#socket = socket;
    this.#address = address;
  }

  /** Listens on `host` (port 0: any free port). */
  static async start(host: string, port = 0): Promise<DnsStub> {
    const socket = createSocket('udp4');
    socket.bind({ address: host, port, exclusive: true });
    await once(socket, 'listening');
    const { address, port: bound } = socket.address();
    const stub = new DnsStub(socket, { host: address, port: bound });
    socket.on('message', (message, remote) => {
      stub.#queries += 1;
      const answer = answerQuery(message, (name) => stub.#records.get(name));
      if (answer !== undefined) socket.send(answer, remote.port, remote.address);
    });
    // A malformed datagram or an unreachable client must not end the stub.
    socket.on('error', () => undefined);
    return stub;
  }

  get address(): Endpoint {
    return this.#address;
  }

  /** Queries received so far. */
  get queries(): number {
    return this.#queries;
  }

  /** Sets (or, with undefined, removes) the records of each name. */
  set(records: ReadonlyMap<string, DnsRecords | undefined>): void {
    for (const [name, value] of records) {
      const key = name.toLowerCase().replace(/\.$/, '');
      if (value === undefined) this.#records.delete(key);
      else this.#records.set(key, value);
    }
  }

  lookup(name: string): DnsRecords | undefined {
    return this.#records.get(name.toLowerCase().replace(/\.$/, ''));
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#socket.close(() => {
        resolve();
      });
    });
  }
}
