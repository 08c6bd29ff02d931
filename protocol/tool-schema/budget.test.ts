import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BudgetOutcome } from './budget.ts';
import {
  BudgetedValidator,
  closeSharedValidator,
  sharedBudgetedValidator,
  validateWithinBudget,
} from './budget.ts';
import { compileToolSchema } from './compile.ts';
import { REPO_ROOT } from '../test-support/shared-paths.ts';

// One catastrophic-backtracking pattern: exponential in the run of a's before the '!'.
const REDOS = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } } as const;
const HOSTILE = { s: `${'a'.repeat(36)}!` };
const GENEROUS = { timeoutMs: 20_000 };

function isResult(outcome: BudgetOutcome): outcome is Extract<BudgetOutcome, { valid: boolean }> {
  return 'valid' in outcome;
}

beforeAll(async () => {
  // Both the worker and its standby, as a gateway would at start-up.
  expect(await sharedBudgetedValidator().warmUp()).toBe(true);
});

afterAll(async () => {
  await closeSharedValidator();
});

describe('validateWithinBudget', () => {
  it('agrees with in-thread validation on the warm path', async () => {
    const compiled = await compileToolSchema(
      { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] },
      { direction: 'input' },
    );
    for (const instance of [{ n: 1 }, { n: 0 }, {}, { n: 'x' }]) {
      expect(await validateWithinBudget(compiled, instance, GENEROUS)).toEqual(compiled.validate(instance));
    }
  });

  it('stops a catastrophic regular expression at the budget and recovers', async () => {
    const compiled = await compileToolSchema(REDOS, { direction: 'input' });
    expect(await validateWithinBudget(compiled, { s: 'aaa' }, GENEROUS)).toMatchObject({ valid: true });
    const hostile = validateWithinBudget(compiled, HOSTILE, { timeoutMs: 250 });
    // Queued behind the runaway request; served by the standby once the budget ends.
    const next = validateWithinBudget(compiled, { s: 'aaaa' }, GENEROUS);
    const started = performance.now();
    expect(await hostile).toMatchObject({ rule: 'validation-timeout' });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await next).toMatchObject({ valid: true });
    expect(await validateWithinBudget(compiled, { s: 'b' }, GENEROUS)).toMatchObject({ valid: false });
  });

  it('keeps the warm path to a message round trip', async () => {
    const compiled = await compileToolSchema(
      { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      { direction: 'input' },
    );
    await validateWithinBudget(compiled, { city: 'Paris' }, GENEROUS);
    const rounds = 200;
    const started = performance.now();
    for (let i = 0; i < rounds; i++) await validateWithinBudget(compiled, { city: 'Paris' }, GENEROUS);
    const perCall = (performance.now() - started) / rounds;
    // Measured at about 0.15 ms; the bound only catches a cold start or recompilation per call.
    expect(perCall).toBeLessThan(20);
  });

  it('compiles a schema source in the worker, reporting the rule that refuses it', async () => {
    const source = {
      schema: { type: 'object', properties: { a: { type: 'string' } } },
      direction: 'input',
    } as const;
    expect(await validateWithinBudget(source, { a: 1 }, GENEROUS)).toMatchObject({ valid: false });
    expect(await validateWithinBudget(source, { a: 'x' }, GENEROUS)).toMatchObject({ valid: true });
    const refused = await validateWithinBudget(
      { schema: { type: 'string' }, direction: 'input' },
      'x',
      GENEROUS,
    );
    expect(refused).toEqual({ rule: 'object-root', path: '/type', message: expect.any(String) as string });
  });

  it('refuses a schema source outside the JSON model before queueing it', async () => {
    const source = { schema: { type: 'object', description: '\uD800' }, direction: 'input' } as const;
    expect(await validateWithinBudget(source, {}, GENEROUS)).toMatchObject({ rule: 'validation-failed' });
  });

  it('refuses an external reference in a schema source without contacting the server', async () => {
    let requests = 0;
    const server = createServer((_request, response) => {
      requests += 1;
      response.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
      const outcome = await validateWithinBudget(
        { schema: { type: 'object', $ref: url }, direction: 'input' },
        {},
        GENEROUS,
      );
      expect(outcome).toMatchObject({ rule: 'external-reference', path: '/$ref' });
      expect(requests).toBe(0);
    } finally {
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    }
  });

  it('reports an evaluation that exhausts the stack as failed, not as a verdict', async () => {
    const compiled = await compileToolSchema(
      {
        type: 'object',
        $defs: { loop: { $ref: '#/$defs/loop' } },
        properties: { x: { $ref: '#/$defs/loop' } },
      },
      { direction: 'input' },
    );
    const outcome = await validateWithinBudget(compiled, { x: 1 }, GENEROUS);
    expect(outcome).toMatchObject({ rule: 'validation-failed' });
    expect(isResult(outcome)).toBe(false);
  });
});

describe('BudgetedValidator', () => {
  it('batches requests with the same budget and retries each alone when the batch runs out', async () => {
    const validator = new BudgetedValidator();
    try {
      expect(await validator.warmUp()).toBe(true);
      const compiled = await compileToolSchema(REDOS, { direction: 'input' });
      const budget = { timeoutMs: 1_000 };
      const outcomes = await Promise.all([
        validator.validate(compiled, { s: 'aaa' }, budget),
        validator.validate(compiled, HOSTILE, budget),
        validator.validate(compiled, { s: 'b' }, budget),
        validator.validate(compiled, { s: 'aa' }, budget),
      ]);
      expect(outcomes).toMatchObject([
        { valid: true },
        { rule: 'validation-timeout' },
        { valid: false },
        { valid: true },
      ]);
      // One batch of four ran out of budget; then each of the four alone.
      expect(validator.batchesSent).toBe(5);
    } finally {
      await validator.close();
    }
  });

  it('keeps requests with different budgets in different batches', async () => {
    const validator = new BudgetedValidator();
    try {
      expect(await validator.warmUp()).toBe(true);
      const compiled = await compileToolSchema(REDOS, { direction: 'input' });
      const outcomes = await Promise.all([
        validator.validate(compiled, { s: 'aaa' }, GENEROUS),
        validator.validate(compiled, HOSTILE, { timeoutMs: 250 }),
        validator.validate(compiled, { s: 'b' }, GENEROUS),
        validator.validate(compiled, { s: 'aa' }, GENEROUS),
      ]);
      expect(outcomes).toMatchObject([
        { valid: true },
        { rule: 'validation-timeout' },
        { valid: false },
        { valid: true },
      ]);
      // [aaa], [hostile] stopped at its own 250 ms, then [b, aa] on the standby.
      expect(validator.batchesSent).toBe(3);
    } finally {
      await validator.close();
    }
  });

  it('refuses work beyond its pending limit and settles everything on close', async () => {
    // inline: false, or the small schema would never reach the queue (inline-bound.ts).
    const validator = new BudgetedValidator({ maxPending: 1, standby: false, inline: false });
    const compiled = await compileToolSchema({ type: 'object' }, { direction: 'input' });
    const running = validator.validate(compiled, {}, GENEROUS);
    const queued = validator.validate(compiled, {}, GENEROUS);
    expect(await validator.validate(compiled, {}, GENEROUS)).toMatchObject({ rule: 'validation-overloaded' });
    await validator.close();
    expect(await running).toMatchObject({ rule: 'validation-failed' });
    expect(await queued).toMatchObject({ rule: 'validation-failed' });
    expect(await validator.validate(compiled, {}, GENEROUS)).toMatchObject({ rule: 'validation-failed' });
  });
});

describe('inline validation under the static bound (inline-bound.ts)', () => {
  const SMALL = {
    type: 'object',
    properties: { city: { type: 'string', minLength: 1 }, days: { enum: [1, 2, 3] } },
    required: ['city'],
    additionalProperties: false,
  };
  const INSTANCES = [{ city: 'Oslo' }, { city: '' }, { city: 'Oslo', days: 4 }, { town: 'x' }, {}];

  it('evaluates a small reference-free schema in the calling thread, with the worker’s verdicts', async () => {
    const inline = new BudgetedValidator({ standby: false });
    const worker = new BudgetedValidator({ standby: false, inline: false });
    try {
      const compiled = await compileToolSchema(SMALL, { direction: 'input' });
      for (const instance of INSTANCES) {
        expect(await inline.validate(compiled, instance, GENEROUS)).toEqual(
          await worker.validate(compiled, instance, GENEROUS),
        );
      }
      expect(inline.inlineValidations).toBe(INSTANCES.length);
      expect(inline.batchesSent).toBe(0);
      expect(worker.inlineValidations).toBe(0);
      expect(worker.batchesSent).toBeGreaterThan(0);
    } finally {
      await Promise.all([inline.close(), worker.close()]);
    }
  });

  it('sends to the worker what the bound cannot see: a pattern, a reference, a large instance', async () => {
    const validator = new BudgetedValidator({ standby: false });
    try {
      const patterned = await compileToolSchema(REDOS, { direction: 'input' });
      const referencing = await compileToolSchema(
        { type: 'object', properties: { a: { $ref: '#/$defs/a' } }, $defs: { a: { type: 'string' } } },
        { direction: 'input' },
      );
      const small = await compileToolSchema(SMALL, { direction: 'input' });
      expect(await validator.validate(patterned, { s: 'aaa' }, GENEROUS)).toMatchObject({ valid: true });
      expect(await validator.validate(referencing, { a: 'x' }, GENEROUS)).toMatchObject({ valid: true });
      expect(await validator.validate(small, { city: 'x'.repeat(9_000) }, GENEROUS)).toMatchObject({
        valid: true,
      });
      expect(validator.inlineValidations).toBe(0);
      expect(validator.batchesSent).toBe(3);
    } finally {
      await validator.close();
    }
  });
});

describe('idle workers', () => {
  it('never keep the process alive: a process done with validating exits on its own', async () => {
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolveRun) => {
      const child = execFile(
        process.execPath,
        ['bin/run-ts.js', 'protocol/tool-schema/test-support/warm-then-idle.ts'],
        { cwd: REPO_ROOT, timeout: 30_000 },
        (_error, out) => {
          resolveRun({ code: child.exitCode, stdout: out });
        },
      );
    });
    expect(stdout).toBe('validated\n');
    // Killed by the timeout, it would have no exit code of 0.
    expect(code).toBe(0);
  }, 40_000);

  it.each([
    ['leave', 'left\n'],
    ['hold', 'waited\n'],
  ])(
    'a warm-up keeps the process alive until the workers are ready unless told not to (%s)',
    async (mode, said) => {
      const stdout = await new Promise<string>((resolveRun) => {
        execFile(
          process.execPath,
          ['bin/run-ts.js', 'protocol/tool-schema/test-support/warm-and-leave.ts', mode],
          { cwd: REPO_ROOT, timeout: 30_000 },
          (_error, out) => {
            resolveRun(out);
          },
        );
      });
      expect(stdout).toBe(said);
    },
    40_000,
  );
});
