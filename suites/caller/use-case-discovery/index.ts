/**
 * #use-case-discovery, judged on the caller: a failed query about an endpoint says nothing about
 * whether the endpoint exists. The caller may leave the endpoint out while its query fails, but
 * never tells its client the endpoint does not exist, and lists (MCP) or calls (a gateway's
 * call-out tool) it once the query succeeds.
 */
import { CannotTell, RequirementViolation } from '../../framework/verdicts.ts';
import { defineCallerSuite } from '../framework/caller-case.ts';
import { EVERY_INTERFACE } from '../framework/caller-under-test.ts';
import type { CallerCaseContext, CallerScene } from '../framework/caller-context.ts';
import {
  callerWaitMs,
  metadataPrompt,
  oneToolWorld,
  promptMetadataQuery,
} from '../framework/caller-steps.ts';
import { completedWith, marker } from '../framework/task-steps.ts';

/**
 * Whether the caller reaches the endpoint once its queries answer: an MCP bridge lists it; a
 * gateway's call-out tool, asked again, invokes it (the task is then completed and its report awaited).
 */
async function reachesEndpointAgain(
  context: CallerCaseContext,
  session: CallerScene,
  jid: string,
  tool: string,
): Promise<boolean> {
  if (session.mcp !== undefined) {
    return (await session.mcp.caller.driver.remoteTool(jid, tool).catch(() => undefined)) !== undefined;
  }
  const invokes = session.target.stream({ kind: 'invoke' });
  const call = await session.caller.call({ jid, tool, arguments: {} });
  const invoke = await invokes.next(callerWaitMs(context)).catch(() => undefined);
  if (invoke === undefined) return false;
  await session.target.sendEvent(session.target.taskOf(invoke), {
    type: 'completed',
    payload: completedWith(marker(context, 'done')),
  });
  await call.done.catch(() => undefined);
  return true;
}

/** Words that claim non-existence, in a report (an MCP message, a stanza) that names the endpoint. */
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
      interfaces: EVERY_INTERFACE,
      level: 'MUST',
      interpretations: ['interp-45'],
      statement:
        'After a query about an endpoint fails, the caller does not tell its client the endpoint does not exist, and lists it once the query succeeds again.',
      async run(context) {
        const { world, jid, tool } = oneToolWorld(context, 'flaky', 'task.run');
        const session = await context.startCaller(world);
        const failing = session.target.on(
          { kind: ['disco-info', 'disco-items', 'manifest', 'schema'], to: jid },
          { answer: 'error', error: { type: 'wait', condition: 'remote-server-timeout' } },
          1,
        );
        context.note(`the first metadata query about ${jid} is answered with a remote-server-timeout error`);
        await promptMetadataQuery(context, session, jid, tool);
        if (failing.used === 0) {
          throw new CannotTell(
            `the caller sent no metadata query about ${jid} ${metadataPrompt(session)}, so no query of it failed and its reading of a failure was not seen`,
          );
        }
        const reached = await reachesEndpointAgain(context, session, jid, tool);
        const claims = session.caller
          .reported()
          .filter((json) => json.includes(jid) && EXISTENCE_CLAIM.test(json));
        if (claims.length > 0) {
          throw new RequirementViolation(
            'use-case-discovery.no-existence-inference',
            `nothing telling the client that ${jid} does not exist (its query failed; that says nothing about existence)`,
            claims.join('\n'),
            'use-case-discovery.no-existence-inference: the caller reported a failed query as the endpoint not existing',
          );
        }
        if (!reached) {
          throw new CannotTell(
            `the caller did not ${session.mcp === undefined ? 'invoke' : 'list'} ${jid} once its queries succeeded again; it may be keeping an earlier answer, so its reading of the failure cannot be told`,
          );
        }
        context.held(
          'use-case-discovery.no-existence-inference',
          `no existence claim after the failed query, and the endpoint ${session.mcp === undefined ? 'invoked' : 'listed'} once it answered`,
        );
      },
    },
  ],
);
