/**
 * #idempotency: the target authorizes the immediate authenticated sender, whatever the request
 * claims about anyone else.
 */
import { defineSuite } from '../../framework/case.ts';
import { expectStanzaError } from '../../framework/expect.ts';
import { requireWorld } from '../../fixtures/reference-world.ts';
import type { JsonValue } from '../../../protocol/json/json-value.ts';
import { expectLedgerUntouched, freshLedgerKey } from '../support/ledger.ts';
import { TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
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
      const localTasks = new TaskSession(context, local, target);
      const admitted = await localTasks.start(
        'script',
        claiming(freshLedgerKey(context, 'delegation-control')),
        {},
        'idempotency.immediate-sender',
      );
      await localTasks.awaitSettled(admitted.accepted.taskId);
      const denied = await context.callers.denied();
      const deniedTasks = new TaskSession(context, denied, target);
      const key = freshLedgerKey(context, 'delegation');
      const { exchange } = await deniedTasks.invoke('script', claiming(key));
      expectStanzaError(exchange, 'idempotency.immediate-sender', 'item-not-found', context);
      await expectLedgerUntouched(
        localTasks,
        key,
        'idempotency.immediate-sender',
        'the tool never ran for the caller without grants (ledger 0)',
      );
    },
  },
  ...raceCases,
]);
