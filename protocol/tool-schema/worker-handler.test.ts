import { describe, expect, it } from 'vitest';
import { compileToolSchema } from './compile.ts';
import { WORKER_CACHE_CAPACITY, WorkerHandler } from './worker-handler.ts';

describe('WorkerHandler', () => {
  it('asks for the payload once, then evaluates from its cache', async () => {
    const handler = new WorkerHandler();
    const compiled = await compileToolSchema(
      { type: 'object', properties: { n: { type: 'integer' } } },
      { direction: 'input' },
    );
    const payload = {
      kind: 'evaluator',
      serialized: compiled.serializedEvaluator,
      documentUri: compiled.documentUri,
    } as const;
    expect(await handler.handle({ id: 1, key: 'k', instance: '{"n":1}' })).toEqual({
      type: 'need-payload',
      id: 1,
    });
    expect(await handler.handle({ id: 2, key: 'k', instance: '{"n":1}', payload })).toEqual({
      type: 'result',
      id: 2,
      result: compiled.validate({ n: 1 }),
    });
    expect(await handler.handle({ id: 3, key: 'k', instance: '{"n":"x"}' })).toEqual({
      type: 'result',
      id: 3,
      result: compiled.validate({ n: 'x' }),
    });
  });

  it('treats "__proto__" in an instance as a member name', async () => {
    const handler = new WorkerHandler();
    const schema = '{"type":"object","properties":{"__proto__":{"type":"string"}}}';
    const payload = { kind: 'schema', schema, direction: 'input' } as const;
    const reply = await handler.handle({ id: 1, key: 's', instance: '{"__proto__":1}', payload });
    expect(reply).toMatchObject({ type: 'result', result: { valid: false } });
  });

  it('caches a refused schema source as its rejection', async () => {
    const handler = new WorkerHandler();
    const payload = { kind: 'schema', schema: '{"type":"array"}', direction: 'input' } as const;
    const expected = {
      type: 'rejected',
      id: 1,
      rule: 'object-root',
      path: '/type',
      message: expect.any(String) as string,
    };
    expect(await handler.handle({ id: 1, key: 'r', instance: '[]', payload })).toEqual(expected);
    expect(await handler.handle({ id: 1, key: 'r', instance: '[]' })).toEqual(expected);
  });

  it('reports an evaluation that throws as failed, by error name only', async () => {
    const handler = new WorkerHandler();
    const payload = { kind: 'evaluator', serialized: 'not json', documentUri: 'urn:x' } as const;
    expect(await handler.handle({ id: 9, key: 'bad', instance: '{}', payload })).toEqual({
      type: 'failed',
      id: 9,
      message: 'SyntaxError',
    });
  });

  it('forgets the least recently used evaluator beyond its capacity', async () => {
    const handler = new WorkerHandler();
    const compiled = await compileToolSchema({ type: 'object' }, { direction: 'input' });
    const payload = {
      kind: 'evaluator',
      serialized: compiled.serializedEvaluator,
      documentUri: compiled.documentUri,
    } as const;
    for (let i = 0; i <= WORKER_CACHE_CAPACITY; i++) {
      await handler.handle({ id: i, key: `k${i}`, instance: '{}', payload });
    }
    expect(await handler.handle({ id: 0, key: 'k0', instance: '{}' })).toEqual({
      type: 'need-payload',
      id: 0,
    });
    expect(await handler.handle({ id: 1, key: `k${WORKER_CACHE_CAPACITY}`, instance: '{}' })).toMatchObject({
      type: 'result',
    });
  });
});
