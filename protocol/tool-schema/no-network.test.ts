import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECT_2020_12 } from './dialect.ts';
import { compileIsolated } from './registry.ts';
import { expectRejected } from './test-support/expect-rejection.ts';

// A real listener on loopback: if anything in the evaluator tried to fetch, it would arrive here.
let requests = 0;
const server = createServer((_request, response) => {
  requests += 1;
  response.setHeader('content-type', 'application/schema+json');
  response.end(JSON.stringify({ $schema: DIALECT_2020_12, type: 'string' }));
});
let origin = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
});

describe('no schema reference is ever fetched', () => {
  it('refuses references to a listening HTTP server without contacting it', async () => {
    await expectRejected({ type: 'object', $ref: `${origin}/x` }, 'external-reference', '/$ref');
    await expectRejected(
      { type: 'object', properties: { a: { $dynamicRef: `${origin}/x#a` } } },
      'external-reference',
      '/properties/a/$dynamicRef',
    );
    await expectRejected(
      { $id: `${origin}/root.json`, type: 'object', $ref: 'other.json' },
      'external-reference',
      '/$ref',
    );
    await expectRejected({ type: 'object', $schema: `${origin}/meta` }, 'unsupported-dialect', '/$schema');
    expect(requests).toBe(0);
  });

  it('cannot fetch even below the policy: the evaluator has no retrievable URI scheme', async () => {
    for (const [index, [target, scheme]] of [
      [`${origin}/x`, 'http'],
      ['file:///etc/hostname', 'file'],
    ].entries()) {
      const error: unknown = await compileIsolated(
        { $ref: target ?? '' },
        { retrievalUri: `https://no-network.invalid/${index}`, contextDialect: DIALECT_2020_12 },
      ).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).cause).toMatchObject({ name: 'UnsupportedUriSchemeError', scheme });
    }
    expect(requests).toBe(0);
  });
});
