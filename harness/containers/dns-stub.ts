// The containers' only resolver: a tiny authoritative DNS server on the host, one per server
// container, answering from the run's routing table and nothing else.
//
// Why: Prosody's lua-unbound asking Docker's embedded DNS for `_xmpp-server._tcp.<domain>` waits
// ~17 s per direction for an upstream that never answers. The stub answers at once: SRV records
// for the s2s names (so a route can point at any port, e.g. a fault proxy on the host), A records
// for the domains and the SRV targets, NODATA for other types of a known name and NXDOMAIN for
// every other name. TTL 0: a route changed during the run (a restarted peer) is seen at once.
// The wire format is dns-packet's; this module only decides what to answer.
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { isIPv4 } from 'node:net';

import * as dnsPacket from 'dns-packet';
import type { Answer, DecodedPacket, Question } from 'dns-packet';

import type { Endpoint } from '../faults/fault-proxy.ts';

/** The response codes the stub gives (RFC 1035 §4.1.1). */
const RCODE = { noError: 0, formErr: 1, nxDomain: 3, notImp: 4, refused: 5 } as const;
/** The header's QR bit: set on responses, which the stub never answers. */
const QR_BIT = 0x8000;
/** The opcode's four bits in the header's flags (RFC 1035 §4.1.1). */
const OPCODE_BITS = 0x7800;
/** The query's opcode and RD bit are copied into the answer. */
const OPCODE_AND_RD = OPCODE_BITS | dnsPacket.RECURSION_DESIRED;
/** Our own OPT record's UDP payload size, when the query carried EDNS. */
const EDNS_UDP_PAYLOAD = 1232;

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

/** The table's key for a name: lower case, without the final dot. */
function tableKey(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/** The query, or undefined when it does not decode (the caller answers FORMERR). */
function decodeQuery(message: Buffer): DecodedPacket | undefined {
  try {
    return dnsPacket.decode(message);
  } catch {
    return undefined;
  }
}

/** The records answering `question` from a known name's entry. */
function records(question: Question, found: DnsRecords): Answer[] {
  const owned = { name: question.name, class: 'IN', ttl: 0 } as const;
  if (question.type === 'A') {
    return (found.a ?? []).map((address) => {
      // dns-packet would write an IPv6 text as 16 bytes into an A record.
      if (!isIPv4(address)) throw new RangeError(`not an IPv4 address: ${address}`);
      return { ...owned, type: 'A', data: address };
    });
  }
  if (question.type === 'SRV') {
    return (found.srv ?? []).map((srv) => ({
      ...owned,
      type: 'SRV',
      data: { priority: srv.priority ?? 0, weight: srv.weight ?? 0, port: srv.port, target: srv.target },
    }));
  }
  // Any other type of a known name (AAAA above all): NOERROR with no answer, i.e. NODATA.
  return [];
}

/** The response code and answers for a query with exactly one question. */
function resolve(
  query: DecodedPacket,
  question: Question,
  lookup: DnsLookup,
): { rcode: number; answers: Answer[] } {
  if (((query.flags ?? 0) & OPCODE_BITS) !== 0) return { rcode: RCODE.notImp, answers: [] };
  if (question.class !== 'IN') return { rcode: RCODE.refused, answers: [] };
  const found = lookup(tableKey(question.name));
  if (found === undefined) return { rcode: RCODE.nxDomain, answers: [] };
  return { rcode: RCODE.noError, answers: records(question, found) };
}

/** The answer to one query, from `lookup` (names are looked up in lower case, without the final dot). */
export function answerQuery(message: Buffer, lookup: DnsLookup): Buffer | undefined {
  // Too short for a header, or a response: not worth an answer at all.
  if (message.length < 12 || (message.readUInt16BE(2) & QR_BIT) !== 0) return undefined;
  const query = decodeQuery(message);
  const question = query?.questions?.length === 1 ? query.questions[0] : undefined;
  // A message that does not decode still has a header: the FORMERR echoes its id and flags.
  const queryFlags = query?.flags ?? message.readUInt16BE(2);
  const { rcode, answers } =
    query === undefined || question === undefined
      ? { rcode: RCODE.formErr, answers: [] }
      : resolve(query, question, lookup);
  const edns = query?.additionals?.some((record) => record.type === 'OPT') === true;
  return dnsPacket.encode({
    type: 'response',
    id: query?.id ?? message.readUInt16BE(0),
    flags:
      (queryFlags & OPCODE_AND_RD) | dnsPacket.AUTHORITATIVE_ANSWER | dnsPacket.RECURSION_AVAILABLE | rcode,
    questions: question === undefined ? [] : [question],
    answers,
    additionals: edns
      ? [
          {
            type: 'OPT',
            name: '.',
            udpPayloadSize: EDNS_UDP_PAYLOAD,
            extendedRcode: 0,
            ednsVersion: 0,
            flags: 0,
            flag_do: false,
            options: [],
          },
        ]
      : [],
  });
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
      const key = tableKey(name);
      if (value === undefined) this.#records.delete(key);
      else this.#records.set(key, value);
    }
  }

  lookup(name: string): DnsRecords | undefined {
    return this.#records.get(tableKey(name));
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#socket.close(() => {
        resolve();
      });
    });
  }
}
