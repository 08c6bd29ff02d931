/**
 * #idempotency: the target authorizes the immediate authenticated sender, whatever the request
 * claims about anyone else.
 */
import { defineSuite } from '../../framework/case.ts';
import { expectStanzaError } from '../../framework/expect.ts';
import { requireWorld } from '../../fixtures/reference-world.ts';
import type { JsonValue } from '../../../protocol/json/json-value.ts';
import {
  awaitSettled,
  conformanceTarget,
  expectLedgerUntouched,
  freshLedgerKey,
  sendInvoke,
  startTask,
} from '../support/tasks.ts';
import { raceCases } from './races.ts';

export const idempotencySuite = defineSuite('idempotency', 'Idempotency and Delegation', [
  {
    id: 'idempotency.immediate-sender-authorized',
    requirements: ['idempotency.immediate-sender'],
    profiles: ['task-execution'],
    level: 'MUST',
    statement:
      'A caller without grants that claims in its request to act for a granted user is judged as itself: item-not-found, and the tool never runs; the same request from the granted user is admitted (the positive control).',
    run: async (context) => {
      const world = requireWorld(context);
      const target = conformanceTarget(context);
      // The claim travels where a caller can put anything valid: the result's _meta.
      const claiming = (key: string): JsonValue => ({
        ledgerKey: key,
        steps: [
          { complete: { _meta: { onBehalfOf: world.jidOf('local'), approvedBy: world.jidOf('local') } } },
        ],
      });
      const local = await context.callers.local();
      const admitted = await startTask(
        context,
        local,
        target,
        'script',
        claiming(freshLedgerKey(context, 'delegation-control')),
        {},
        'idempotency.immediate-sender',
      );
      await awaitSettled(context, local, admitted.accepted.taskId);
      const denied = await context.callers.denied();
      const key = freshLedgerKey(context, 'delegation');
      const { exchange } = await sendInvoke(context, denied, target, 'script', claiming(key));
      expectStanzaError(exchange, 'idempotency.immediate-sender', 'item-not-found', context);
      await expectLedgerUntouched(
        context,
        local,
        target,
        key,
        'idempotency.immediate-sender',
        'the tool never ran for the caller without grants (ledger 0)',
      );
    },
  },
  ...raceCases,
]);
