// The containers' resolver, asked by a real DNS client (Node's c-ares) over UDP on loopback.
import { Resolver } from 'node:dns/promises';

import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { answerQuery, DnsStub, s2sRecords } from './dns-stub.ts';

describe('DNS stub', () => {
  let stub: DnsStub;
  let resolver: Resolver;

  beforeAll(async () => {
    stub = await DnsStub.start('127.0.0.1');
    stub.set(s2sRecords('server.example', { host: '172.30.0.1', port: 40123 }));
    resolver = new Resolver({ timeout: 2_000, tries: 1 });
    resolver.setServers([`127.0.0.1:${stub.address.port}`]);
  });

  afterAll(async () => {
    await stub.close();
  });

  it('answers the s2s SRV name with the route and the domain with its address', async () => {
    await expect(resolver.resolveSrv('_xmpp-server._tcp.server.example')).resolves.toEqual([
      { name: 'server.example', port: 40123, priority: 0, weight: 0 },
    ]);
    await expect(resolver.resolve4('server.example')).resolves.toEqual(['172.30.0.1']);
    // Names are case-insensitive.
    await expect(resolver.resolve4('Server.Example')).resolves.toEqual(['172.30.0.1']);
  });

  it('answers at once, with NODATA for other types of a known name and NXDOMAIN for unknown names', async () => {
    const began = performance.now();
    await expect(resolver.resolve6('server.example')).rejects.toMatchObject({ code: 'ENODATA' });
    await expect(resolver.resolveSrv('_xmpps-server._tcp.server.example')).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
    await expect(resolver.resolve4('deb.debian.org')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(performance.now() - began).toBeLessThan(1_000);
  });

  it('follows changes of the table while it runs', async () => {
    stub.set(s2sRecords('example.com', { host: '172.30.0.7', port: 5269 }));
    await expect(resolver.resolve4('example.com')).resolves.toEqual(['172.30.0.7']);
    stub.set(new Map([['example.com', undefined]]));
    await expect(resolver.resolve4('example.com')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(stub.queries).toBeGreaterThan(0);
  });

  it('ignores responses and answers malformed queries with FORMERR', () => {
    const lookup = (): undefined => undefined;
    const response = Buffer.from([0, 1, 0x80, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    expect(answerQuery(response, lookup)).toBeUndefined();
    expect(answerQuery(Buffer.from([1, 2]), lookup)).toBeUndefined();
    // One question whose name runs past the end of the message.
    const truncated = Buffer.from([0, 7, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 9, 0x61]);
    const answer = answerQuery(truncated, lookup);
    expect(answer?.readUInt16BE(0)).toBe(7);
    expect((answer?.readUInt16BE(2) ?? 0) & 0x0f).toBe(1);
  });

  it('carries EDNS back, refuses other classes and does not implement other opcodes', () => {
    const lookup = (name: string) => (name === 'server.example' ? { a: ['172.30.0.1'] } : undefined);
    const ask = (packet: dnsPacket.Packet, opcode = 0): dnsPacket.DecodedPacket => {
      const query = dnsPacket.encode({ type: 'query', id: 11, ...packet });
      query.writeUInt16BE(query.readUInt16BE(2) | (opcode << 11), 2);
      const answer = answerQuery(query, lookup);
      if (answer === undefined) throw new Error('no answer');
      return dnsPacket.decode(answer);
    };
    const question: dnsPacket.Question = { name: 'server.example', type: 'A' };
    const withEdns = ask({
      questions: [question],
      additionals: [
        {
          type: 'OPT',
          name: '.',
          udpPayloadSize: 4096,
          extendedRcode: 0,
          ednsVersion: 0,
          flags: 0,
          flag_do: false,
          options: [],
        },
      ],
    });
    expect(withEdns).toMatchObject({ id: 11, rcode: 'NOERROR', flag_aa: true });
    expect(withEdns.answers).toEqual([
      { name: 'server.example', type: 'A', class: 'IN', ttl: 0, flush: false, data: '172.30.0.1' },
    ]);
    expect(withEdns.additionals).toMatchObject([{ type: 'OPT', udpPayloadSize: 1232 }]);
    expect(ask({ questions: [{ ...question, class: 'CH' }] })).toMatchObject({ rcode: 'REFUSED' });
    expect(ask({ questions: [question] }, 2)).toMatchObject({ rcode: 'NOTIMP', opcode: 'STATUS' });
    const twoQuestions = ask({ questions: [question, question] });
    expect(twoQuestions).toMatchObject({ rcode: 'FORMERR', questions: [] });
  });
});
