import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkHistory,
  formatHistory,
  type History,
  type HistoryRule,
  type ObservedEvent,
  type Operation,
  type OperationRequest,
  type OperationResult,
} from './history.ts';

const OWNER = 'bob@server.example';
const TASK = 'task-aaaaaaaaaaaaaaaaaaaaaa';

/** A small history builder: times are given explicitly so real-time order is the test's choice. */
class Builder {
  readonly operations: Operation[] = [];
  readonly events: ObservedEvent[] = [];

  op(
    process: string,
    request: OperationRequest,
    invokedAt: number,
    completedAt: number | undefined,
    result: OperationResult,
    principal = OWNER,
  ): this {
    this.operations.push({
      index: this.operations.length,
      process,
      principal,
      request,
      invokedAt,
      ...(completedAt === undefined ? {} : { completedAt }),
      result,
    });
    return this;
  }

  event(
    observer: string,
    revision: number,
    type: ObservedEvent['type'],
    payload: object,
    receivedAt: number,
  ): this {
    this.events.push({
      observer,
      revision,
      eventId: `evt-${String(revision).padStart(22, '0')}`,
      type,
      payload: JSON.stringify(payload),
      receivedAt,
    });
    return this;
  }

  /** accepted → running@1 … seen by owner/a. */
  running(at = 5): this {
    return this.event('owner/a', 1, 'status', { state: 'running', updatedAt: 'x' }, at);
  }

  history(executions?: number): History {
    return {
      owner: OWNER,
      taskId: TASK,
      operations: this.operations,
      events: this.events,
      ...(executions === undefined ? {} : { executions }),
    };
  }
}

const rules = (history: History, expectations = {}): HistoryRule[] =>
  checkHistory(history, expectations).map((violation) => violation.rule);

const ok = (value: Extract<OperationResult, { type: 'ok' }>['value']): OperationResult => ({
  type: 'ok',
  value,
});
const fail = (condition: string): OperationResult => ({ type: 'fail', condition });
const cancel = (expectedRevision: number, reason?: string): OperationRequest => ({
  kind: 'cancel',
  expectedRevision,
  ...(reason === undefined ? {} : { reason }),
});

describe('cancel vs completion', () => {
  const admits = { settled: true, terminals: [{ state: 'completed' }, { state: 'cancelled' }] } as const;

  it('passes when the completion committed first and the cancellation got conflict', () => {
    const history = new Builder()
      .running()
      .event('owner/a', 2, 'completed', { result: { content: [] } }, 20)
      .op('owner/b', cancel(1), 18, 22, fail('conflict'))
      .op(
        'owner/c',
        { kind: 'task-result' },
        25,
        27,
        ok({ kind: 'task-result', state: 'completed', revision: 2, payload: '{"result":{"content":[]}}' }),
      )
      .history(1);
    expect(rules(history, admits)).toEqual([]);
  });

  it('passes when the cancellation committed first, its identical replay returning the same revision', () => {
    const history = new Builder()
      .running()
      .op('owner/b', cancel(1, 'stop'), 10, 12, ok({ kind: 'cancel-accepted', taskId: TASK, revision: 2 }))
      .op('owner/c', cancel(1, 'stop'), 11, 13, ok({ kind: 'cancel-accepted', taskId: TASK, revision: 2 }))
      .event('owner/a', 2, 'status', { state: 'cancelling', updatedAt: 'x' }, 12)
      .event('owner/a', 3, 'cancelled', {}, 14)
      .op('owner/c', cancel(1, 'stop'), 20, 21, ok({ kind: 'cancel-accepted', taskId: TASK, revision: 2 }))
      .history(1);
    expect(rules(history, admits)).toEqual([]);
  });

  it('fails a cancellation accepted after settlement that overwrote the terminal state', () => {
    const history = new Builder()
      .running()
      .event('owner/a', 2, 'completed', { result: { content: [] } }, 20)
      .op('owner/b', cancel(2), 21, 23, ok({ kind: 'cancel-accepted', taskId: TASK, revision: 3 }))
      .event('owner/a', 3, 'cancelled', {}, 24)
      .history(1);
    expect(rules(history, admits)).toEqual(
      expect.arrayContaining(['terminal-immutable', 'cancel-after-terminal']),
    );
  });

  it('fails an identical replay refused after the acceptance was answered, and two accepted tuples', () => {
    const history = new Builder()
      .running()
      .op('owner/b', cancel(1, 'a'), 10, 12, ok({ kind: 'cancel-accepted', taskId: TASK, revision: 2 }))
      .event('owner/a', 2, 'status', { state: 'cancelling', updatedAt: 'x' }, 12)
      .op('owner/c', cancel(1, 'a'), 15, 16, fail('conflict'))
      .op('owner/a', cancel(1, 'b'), 15, 16, ok({ kind: 'cancel-accepted', taskId: TASK, revision: 2 }))
      .event('owner/a', 3, 'cancelled', {}, 30)
      .history(1);
    expect(rules(history, admits)).toEqual(expect.arrayContaining(['cancel-identity', 'cancel-tuple']));
  });

  it('fails a terminal outcome the schedule does not admit', () => {
    const history = new Builder()
      .running()
      .event('owner/a', 2, 'failed', { error: { code: 'internal-error', message: 'x', retryable: true } }, 20)
      .history(1);
    expect(rules(history, admits)).toEqual(['terminal-outcome']);
  });
});

describe('events and reads', () => {
  it('fails a revision gap at one observer and disagreeing copies of a revision', () => {
    const history = new Builder()
      .running()
      .event('owner/a', 3, 'completed', { result: { content: [] } }, 20)
      .event('owner/b', 1, 'status', { state: 'cancelling', updatedAt: 'x' }, 6)
      .history();
    expect(rules(history)).toEqual(expect.arrayContaining(['revision-gaps', 'event-identity']));
  });

  it('fails a state read older than an event received before it was sent', () => {
    const history = new Builder()
      .running(5)
      .event('owner/a', 2, 'progress', { percent: 50 }, 8)
      .op(
        'owner/b',
        { kind: 'task-state' },
        10,
        12,
        ok({ kind: 'task-state', state: 'running', revision: 1, resultAvailable: false }),
      )
      .event('owner/a', 3, 'completed', { result: { content: [] } }, 20)
      .history();
    expect(rules(history)).toEqual(['read-order']);
  });

  it('accepts a read that overlaps the event it does not show yet', () => {
    const history = new Builder()
      .running(5)
      .op(
        'owner/b',
        { kind: 'task-state' },
        4,
        12,
        ok({ kind: 'task-state', state: 'accepted', revision: 0, resultAvailable: false }),
      )
      .op('owner/b', { kind: 'task-result' }, 13, 14, fail('unexpected-request'))
      .event('owner/a', 2, 'completed', { result: { content: [] } }, 20)
      .history();
    expect(rules(history)).toEqual([]);
  });

  it('fails a state read at a revision no event announced, and a result refused after settlement was seen', () => {
    const history = new Builder()
      .running(5)
      .op(
        'owner/b',
        { kind: 'task-state' },
        6,
        7,
        ok({ kind: 'task-state', state: 'running', revision: 4, resultAvailable: false }),
      )
      .event('owner/a', 2, 'completed', { result: { content: [] } }, 20)
      .op('owner/c', { kind: 'task-result' }, 25, 26, fail('unexpected-request'))
      .history();
    expect(rules(history)).toEqual(expect.arrayContaining(['state-read', 'read-order']));
  });

  it('fails anything but item-not-found for another account', () => {
    const history = new Builder()
      .running()
      .op(
        'peer',
        { kind: 'task-state' },
        6,
        7,
        ok({ kind: 'task-state', state: 'running', revision: 1, resultAvailable: false }),
        'dave@server.example',
      )
      .op('remote', cancel(1), 6, 7, fail('item-not-found'), 'alice@example.com')
      .event('owner/a', 2, 'completed', { result: { content: [] } }, 20)
      .history();
    expect(rules(history)).toEqual(['authorization']);
  });
});

it('accepts item-not-found for the owner once the task may have been purged, not before', () => {
  const history = new Builder()
    .running(5)
    .event('owner/a', 2, 'completed', { result: { content: [] } }, 20)
    .op('owner/b', { kind: 'task-state' }, 25, 26, fail('item-not-found'))
    .op('owner/c', { kind: 'task-result' }, 45, 46, fail('item-not-found'))
    .op('owner/c', cancel(2), 45, 46, fail('item-not-found'))
    .history();
  expect(rules({ ...history, purgeableFrom: 40 })).toEqual(['state-read']);
});

it('accepts item-not-found for a request sent before the task may have been purged but answered after', () => {
  const history = new Builder()
    .running(5)
    .event('owner/a', 2, 'completed', { result: { content: [] } }, 20)
    // Sent at 35, answered at 45: the gateway may have taken it after the purge at 40.
    .op('owner/c', cancel(2), 35, 45, fail('item-not-found'))
    .op('owner/b', { kind: 'task-state' }, 30, 39, fail('item-not-found'))
    .history();
  expect(rules({ ...history, purgeableFrom: 40 })).toEqual(['state-read']);
});

describe('input races', () => {
  const ask = (b: Builder, revision: number, requestId: string, at: number): Builder =>
    b.event(
      'owner/a',
      revision,
      'input_required',
      { requestId, question: 'q', inputSchema: {}, createdAt: 'x' },
      at,
    );
  const answer = (requestId: string, expectedRevision: number, input: object): OperationRequest => ({
    kind: 'provide-input',
    requestId,
    expectedRevision,
    input: JSON.stringify(input),
  });

  it('passes the cancellation winning: the answer gets conflict, the task is cancelled', () => {
    const b = ask(new Builder().running(), 2, 'req-1', 8)
      .op('owner/b', cancel(2), 10, 12, ok({ kind: 'cancel-accepted', taskId: TASK, revision: 3 }))
      .op('owner/c', answer('req-1', 2, { a: 1 }), 10, 13, fail('conflict'))
      .event('owner/a', 3, 'status', { state: 'cancelling', updatedAt: 'x' }, 12)
      .event('owner/a', 4, 'cancelled', {}, 14);
    expect(rules(b.history(1), { echoesInputs: true })).toEqual([]);
  });

  it('fails an answer accepted after the cancellation superseded its request', () => {
    const b = ask(new Builder().running(), 2, 'req-1', 8)
      .op('owner/b', cancel(2), 10, 12, ok({ kind: 'cancel-accepted', taskId: TASK, revision: 3 }))
      .event('owner/a', 3, 'status', { state: 'cancelling', updatedAt: 'x' }, 12)
      .op(
        'owner/c',
        answer('req-1', 2, { a: 1 }),
        13,
        14,
        ok({ kind: 'input-accepted', taskId: TASK, revision: 4 }),
      )
      .event('owner/a', 4, 'status', { state: 'running', updatedAt: 'x' }, 14)
      .event(
        'owner/a',
        5,
        'completed',
        { result: { content: [], structuredContent: { inputs: [{ a: 1 }] } } },
        16,
      );
    expect(rules(b.history(1), { echoesInputs: true })).toEqual(
      expect.arrayContaining(['transitions', 'input-superseded']),
    );
  });

  it('fails an accepted input applied twice, and item-not-found for an expired request', () => {
    const b = ask(new Builder().running(), 2, 'req-1', 8)
      .op(
        'owner/b',
        answer('req-1', 2, { a: 1 }),
        10,
        12,
        ok({ kind: 'input-accepted', taskId: TASK, revision: 3 }),
      )
      .event('owner/a', 3, 'status', { state: 'running', updatedAt: 'x' }, 12)
      .op('owner/c', answer('req-1', 2, { a: 2 }), 13, 14, fail('item-not-found'))
      .event(
        'owner/a',
        4,
        'completed',
        { result: { content: [], structuredContent: { inputs: [{ a: 1 }, { a: 1 }] } } },
        16,
      );
    expect(rules(b.history(1), { echoesInputs: true })).toEqual(
      expect.arrayContaining(['input-late-not-found', 'input-applied-once']),
    );
  });
});

describe('duplicate invocations', () => {
  const invoke = (fingerprint = 'f1'): OperationRequest => ({
    kind: 'invoke',
    requestId: 'req-x',
    fingerprint,
  });
  const accepted = (taskId = TASK, created = 'c1'): OperationResult =>
    ok({ kind: 'accepted', taskId, created, revision: 0 });

  it('passes identical invocations from three resources returning one task, another account its own', () => {
    const history = new Builder()
      .op('owner/a', invoke(), 0, 3, accepted())
      .op('owner/b', invoke(), 1, 4, accepted())
      .op('owner/c', invoke(), 1, 5, accepted())
      .op('remote', invoke('g'), 1, 6, accepted('task-bbbbbbbbbbbbbbbbbbbbbb', 'c2'), 'alice@example.com')
      .op('owner/b', invoke('f2'), 2, 6, fail('conflict'))
      .running()
      .event('owner/a', 2, 'completed', { result: { content: [] } }, 20)
      .history(1);
    expect(rules(history)).toEqual([]);
  });

  it('fails a second task for the identical request, a second execution and a shared task across accounts', () => {
    const history = new Builder()
      .op('owner/a', invoke(), 0, 3, accepted())
      .op('owner/b', invoke(), 1, 4, accepted('task-cccccccccccccccccccccc', 'c3'))
      .op('remote', invoke('g'), 1, 6, accepted(), 'alice@example.com')
      .running()
      .event('owner/a', 2, 'completed', { result: { content: [] } }, 20)
      .history(2);
    expect(rules(history)).toEqual(
      expect.arrayContaining(['invoke-identity', 'invoke-scope', 'double-execution']),
    );
  });
});

it('formats a history in time order with its ledger count', () => {
  const text = formatHistory(
    new Builder().op('owner/b', cancel(1), 10, 12, fail('conflict')).running(5).history(1),
  );
  expect(text.split('\n')).toEqual([
    `task ${TASK} of ${OWNER}; ledger: 1 execution(s)`,
    expect.stringMatching(/^\s+\+0\.0 ms {2}event owner\/a {2}← status\{running\}@1 /),
    expect.stringMatching(
      /^\s+\+5\.0 ms {2}#0 {3}owner\/b {2}cancel expected=1 → fail conflict \(\+7\.0 ms\)$/,
    ),
  ]);
});

/**
 * The checker against its own model: histories made by a serial task (one commit at a time, each
 * operation taking effect at one instant between its sending and its answer, events received in
 * order after their commit) must all pass, whatever the interleaving.
 */
describe('every history a serial task produces', () => {
  type Action =
    | { kind: 'progress' | 'ask' | 'finish' }
    | { kind: 'cancel'; stale: boolean; reason: number }
    | { kind: 'input'; stale: boolean; old: boolean; value: number }
    | { kind: 'state' | 'result' };

  const action = fc.oneof(
    fc.constantFrom<Action>({ kind: 'progress' }, { kind: 'ask' }, { kind: 'state' }, { kind: 'result' }),
    fc.record({
      kind: fc.constant('cancel' as const),
      stale: fc.boolean(),
      reason: fc.integer({ min: 0, max: 1 }),
    }),
    fc.record({
      kind: fc.constant('input' as const),
      stale: fc.boolean(),
      old: fc.boolean(),
      value: fc.integer({ min: 0, max: 1 }),
    }),
  );

  function simulate(actions: readonly Action[], delays: readonly number[]): History {
    const b = new Builder();
    let state = 'running';
    let revision = 1;
    let pending: string | undefined;
    const issued: string[] = [];
    const inputs: unknown[] = [];
    let acceptedCancel: { tuple: string; revision: number } | undefined;
    const acceptedInputs = new Map<string, { tuple: string; revision: number }>();
    let time = 10;
    let delivered = 0;
    const delay = (i: number): number => delays[i % delays.length] ?? 1;
    const commit = (type: ObservedEvent['type'], payload: object): void => {
      revision += 1;
      delivered = Math.max(delivered, time) + delay(revision);
      b.event('owner/a', revision, type, payload, delivered);
    };
    b.event('owner/a', 1, 'status', { state: 'running', updatedAt: 'x' }, 5);
    const terminal = (): boolean => ['completed', 'cancelled', 'failed'].includes(state);
    actions.forEach((step, index) => {
      time += 3;
      const op = (request: OperationRequest, result: OperationResult): void => {
        b.op(
          ['a', 'b', 'c'][index % 3] ?? 'a',
          request,
          time - delay(index) - 0.5,
          time + delay(index + 1) + 0.5,
          result,
        );
      };
      switch (step.kind) {
        case 'progress':
          if (!terminal()) commit('progress', { percent: 50 });
          return;
        case 'ask':
          if (state !== 'running') return;
          pending = `req-${String(issued.length)}`;
          issued.push(pending);
          state = 'input_required';
          commit('input_required', { requestId: pending, question: 'q', inputSchema: {}, createdAt: 'x' });
          return;
        case 'finish':
          if (terminal()) return;
          state = 'completed';
          pending = undefined;
          commit('completed', { result: { content: [], structuredContent: { inputs } } });
          return;
        case 'cancel': {
          const expected = step.stale ? revision - 1 : revision;
          const reason = step.reason === 0 ? undefined : 'r';
          const tuple = JSON.stringify([expected, reason ?? null]);
          let result: OperationResult;
          if (acceptedCancel !== undefined) {
            result =
              acceptedCancel.tuple === tuple
                ? ok({ kind: 'cancel-accepted', taskId: TASK, revision: acceptedCancel.revision })
                : fail('conflict');
          } else if (terminal() || expected !== revision) {
            result = fail('conflict');
          } else {
            state = 'cancelling';
            pending = undefined;
            commit('status', { state: 'cancelling', updatedAt: 'x' });
            acceptedCancel = { tuple, revision };
            result = ok({ kind: 'cancel-accepted', taskId: TASK, revision });
          }
          op(cancel(expected, reason), result);
          return;
        }
        case 'input': {
          const requestId = (step.old ? issued[0] : issued.at(-1)) ?? 'req-none';
          const expected = step.stale ? revision - 1 : revision;
          const input = JSON.stringify({ v: step.value });
          const tuple = JSON.stringify([expected, input]);
          const known = acceptedInputs.get(requestId);
          let result: OperationResult;
          if (known !== undefined) {
            result =
              known.tuple === tuple
                ? ok({ kind: 'input-accepted', taskId: TASK, revision: known.revision })
                : fail('conflict');
          } else if (!issued.includes(requestId)) {
            result = fail('item-not-found');
          } else if (state !== 'input_required' || pending !== requestId || expected !== revision) {
            result = fail('conflict');
          } else {
            state = 'running';
            pending = undefined;
            inputs.push({ v: step.value });
            commit('status', { state: 'running', updatedAt: 'x' });
            acceptedInputs.set(requestId, { tuple, revision });
            result = ok({ kind: 'input-accepted', taskId: TASK, revision });
          }
          op({ kind: 'provide-input', requestId, expectedRevision: expected, input }, result);
          return;
        }
        case 'state':
          op(
            { kind: 'task-state' },
            ok({
              kind: 'task-state',
              state,
              revision,
              resultAvailable: terminal(),
              ...(state === 'input_required' && pending !== undefined ? { pendingRequestId: pending } : {}),
            }),
          );
          return;
        case 'result':
          op(
            { kind: 'task-result' },
            terminal()
              ? ok({ kind: 'task-result', state, revision, payload: lastPayload() })
              : fail('unexpected-request'),
          );
          return;
      }
    });
    time += 3;
    if (!terminal()) {
      state = state === 'cancelling' ? 'cancelled' : 'completed';
      if (state === 'cancelled') commit('cancelled', {});
      else commit('completed', { result: { content: [], structuredContent: { inputs } } });
    }
    return b.history(1);

    function lastPayload(): string {
      return b.events.find((event) => event.revision === revision)?.payload ?? '';
    }
  }

  it('passes the checker', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            { arbitrary: action, weight: 12 },
            { arbitrary: fc.constant<Action>({ kind: 'finish' }), weight: 1 },
          ),
          { maxLength: 30 },
        ),
        fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 8 }),
        (actions, delays) => {
          const history = simulate(actions, delays);
          expect(
            checkHistory(history, { settled: true, echoesInputs: true }),
            formatHistory(history),
          ).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
