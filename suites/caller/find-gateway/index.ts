/**
 * #find-gateway, judged on the caller: a domain is a gateway when its disco#info carries the
 * directory feature, whatever its identity or name says. A caller that queried a candidate and
 * found no feature sends it no directory request, and none goes to a candidate it never queried.
 * A caller that never looks for gateways (a bridge configured with endpoint JIDs, reaching them
 * directly) leaves the MUST undecided: the case drives it through a listing and a call first, and
 * cannot tell when neither made it look.
 */
import type { RecordedStanza } from '../../../harness/fake-target/index.ts';
import { FEATURE } from '../../../protocol/namespaces.ts';
import { CannotTell, RequirementViolation } from '../../framework/verdicts.ts';
import type { CallerCaseContext, CallerScene } from '../framework/caller-context.ts';
import { defineCallerSuite } from '../framework/caller-case.ts';
import { EVERY_INTERFACE } from '../framework/caller-under-test.ts';
import { nextDuringCall } from '../framework/call-settled.ts';
import { callerWaitMs, oneToolWorld } from '../framework/caller-steps.ts';

/** An IQ request other than disco#info: what a caller sends a domain it takes for a gateway. */
function isDirectoryRequest(stanza: RecordedStanza): boolean {
  return stanza.name === 'iq' && !['disco-info', 'iq-response'].includes(stanza.kind);
}

/**
 * Gives the caller every occasion its interface has to look for the gateway. MCP: a listing and,
 * when it lists the endpoint's tool anyway, a call of it; a gateway's call-out tool: a call. In
 * both, until the invoke arrives, the call settled (and was flushed), or the wait ends: what it
 * sends before invoking is what matters.
 */
async function driveCaller(
  context: CallerCaseContext,
  session: CallerScene,
  jid: string,
  tool: string,
): Promise<void> {
  const invokes = session.target.stream({ kind: 'invoke' });
  let done: Promise<unknown>;
  if (session.mcp === undefined) {
    done = (await session.caller.call({ jid, tool, arguments: {}, waitMs: callerWaitMs(context) })).done;
  } else {
    const { driver } = session.mcp.caller;
    const listed = await driver.remoteTool(jid, tool).catch((error: unknown) => {
      context.note(`tools/list failed: ${String(error)}`);
      return undefined;
    });
    if (listed === undefined) return;
    context.note(`the caller lists ${tool} although ${session.target.domain} lacks the feature: calling it`);
    done = driver.call(listed.name, {}, { timeoutMs: callerWaitMs(context) }).done;
  }
  done.catch(() => undefined);
  const invoke = await nextDuringCall(context, session, done, invokes, callerWaitMs(context));
  if (invoke === undefined) context.note('no invoke arrived while the call lasted');
}

export const findGatewayCallerSuite = defineCallerSuite('find-gateway', 'Finding a gateway (caller side)', [
  {
    id: 'find-gateway.caller-needs-directory-feature',
    requirements: ['find-gateway.client-verifies-feature'],
    assessments: ['caller-side'],
    interfaces: EVERY_INTERFACE,
    level: 'MUST',
    statement:
      'A domain that names itself an agent gateway but withholds the directory feature gets no directory request from the caller, neither after it read that disco#info nor without reading it.',
    async run(context) {
      const { world, jid, tool } = oneToolWorld(context, 'behind', 'task.run');
      const session = await context.startCaller({
        ...world,
        gatewayFeatures: { withhold: [FEATURE.directory] },
      });
      const domain = session.target.domain;
      context.note(`${domain} answers disco#info with the gateway identity and no ${FEATURE.directory}`);
      await driveCaller(context, session, jid, tool);
      const toDomain = session.target.log.all({ to: domain });
      const info = toDomain.find((stanza) => stanza.kind === 'disco-info');
      const directoryRequests = toDomain.filter(
        (stanza) => isDirectoryRequest(stanza) && (info === undefined || stanza.index > info.index),
      );
      if (directoryRequests[0] !== undefined) {
        throw new RequirementViolation(
          'find-gateway.client-verifies-feature',
          info === undefined
            ? `no directory request to ${domain} before its disco#info showed ${FEATURE.directory}`
            : `no directory request to ${domain} after its disco#info lacked ${FEATURE.directory}`,
          directoryRequests.map((stanza) => stanza.xml).join('\n'),
          info === undefined
            ? 'find-gateway.client-verifies-feature: the caller used a domain as a gateway without querying its disco#info'
            : 'find-gateway.client-verifies-feature: the caller treated a domain without the directory feature as a gateway',
        );
      }
      if (info === undefined) {
        throw new CannotTell(
          `the caller never queried ${domain}'s disco#info nor sent it any request, ${session.mcp === undefined ? "when asked to call the endpoint's tool" : 'through a tools/list and a call of the listed tool'}: it does not look for gateways (it reaches the configured endpoint directly), so whether it verifies the directory feature was not seen`,
        );
      }
      context.held(
        'find-gateway.client-verifies-feature',
        `after ${domain}'s disco#info lacked the feature, the caller sent it no directory request`,
      );
    },
  },
]);
