/**
 * #use-case-discovery, judged on the caller: a failed query about an endpoint says nothing about
 * whether the endpoint exists. The caller may leave the endpoint out while its query fails, but
 * never tells its client the endpoint does not exist, and lists it once the query succeeds.
 */
import { CannotTell, RequirementViolation } from '../../framework/verdicts.ts';
import { defineCallerSuite } from '../framework/caller-case.ts';
import { oneToolWorld } from '../framework/caller-steps.ts';
import { mcpReceived } from '../framework/task-steps.ts';

/** Words that claim non-existence, in an MCP message that names the endpoint. */
const EXISTENCE_CLAIM =
  /\b(?:does not|doesn't|do not|did not|no longer) exists?\b|\bnon-?existent\b|\bno such (?:endpoint|agent|entity|tool)\b|\bunknown (?:endpoint|agent)\b/i;

export const useCaseDiscoveryCallerSuite = defineCallerSuite(
  'use-case-discovery',
  'Discovery use case (caller side)',
  [
    {
      id: 'use-case-discovery.caller-infers-nothing-from-failure',
      requirements: ['use-case-discovery.no-existence-inference'],
      assessments: ['caller-side'],
      level: 'MUST',
      interpretations: ['interp-45'],
      statement:
        'After a query about an endpoint fails, the caller does not tell its client the endpoint does not exist, and lists it once the query succeeds again.',
      async run(context) {
        const { world, jid, tool } = oneToolWorld(context, 'flaky', 'task.run');
        const session = await context.startSession(world);
        const failing = session.target.on(
          { kind: ['disco-info', 'disco-items', 'manifest', 'schema'], to: jid },
          { answer: 'error', error: { type: 'wait', condition: 'remote-server-timeout' } },
          1,
        );
        context.note(`the first metadata query about ${jid} is answered with a remote-server-timeout error`);
        await session.caller.driver.listTools().catch((error: unknown) => {
          context.note(`tools/list failed: ${String(error)}`);
        });
        if (failing.used === 0) {
          throw new CannotTell(
            `the caller sent no metadata query about ${jid} during a tools/list, so no query of it failed and its reading of a failure was not seen`,
          );
        }
        const relisted = await session.caller.driver.remoteTool(jid, tool).catch(() => undefined);
        const claims = mcpReceived(context).filter(
          (json) => json.includes(jid) && EXISTENCE_CLAIM.test(json),
        );
        if (claims.length > 0) {
          throw new RequirementViolation(
            'use-case-discovery.no-existence-inference',
            `nothing telling the client that ${jid} does not exist (its query failed; that says nothing about existence)`,
            claims.join('\n'),
            'use-case-discovery.no-existence-inference: the caller reported a failed query as the endpoint not existing',
          );
        }
        if (relisted === undefined) {
          throw new CannotTell(
            `the caller did not list ${jid} once its queries succeeded again; it may be keeping an earlier listing, so its reading of the failure cannot be told`,
          );
        }
        context.held(
          'use-case-discovery.no-existence-inference',
          'no existence claim after the failed query, and the endpoint listed once it answered',
        );
      },
    },
  ],
);
