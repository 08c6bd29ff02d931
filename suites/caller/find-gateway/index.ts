/**
 * #find-gateway, judged on the caller: a domain is a gateway when its disco#info carries the
 * directory feature, whatever its identity or name says. A caller that queried a candidate and
 * found no feature sends it no directory request; a caller that never looks for gateways (a
 * bridge configured with endpoint JIDs) is not judged.
 */
import { FEATURE } from '../../../protocol/namespaces.ts';
import { NotApplicable, RequirementViolation } from '../../framework/verdicts.ts';
import { defineCallerSuite } from '../framework/caller-case.ts';
import { oneToolWorld } from '../framework/caller-steps.ts';

export const findGatewayCallerSuite = defineCallerSuite('find-gateway', 'Finding a gateway (caller side)', [
  {
    id: 'find-gateway.caller-needs-directory-feature',
    requirements: ['find-gateway.client-verifies-feature'],
    assessments: ['caller-side'],
    level: 'MUST',
    statement:
      'A domain that names itself an agent gateway but withholds the directory feature gets no directory request from the caller once it has read that disco#info.',
    async run(context) {
      const { world } = oneToolWorld(context, 'behind', 'task.run');
      const session = await context.startSession({
        ...world,
        gatewayFeatures: { withhold: [FEATURE.directory] },
      });
      const domain = session.target.domain;
      context.note(`${domain} answers disco#info with the gateway identity and no ${FEATURE.directory}`);
      await session.caller.driver.listTools().catch((error: unknown) => {
        context.note(`tools/list failed: ${String(error)}`);
      });
      const toDomain = session.target.log.all({ to: domain });
      const info = toDomain.find((stanza) => stanza.kind === 'disco-info');
      if (info === undefined) {
        throw new NotApplicable(
          `the caller never queried ${domain}'s disco#info: it does not look for gateways, so it never decides whether a domain is one`,
        );
      }
      const directoryRequests = toDomain.filter(
        (stanza) =>
          stanza.index > info.index && stanza.kind !== 'disco-info' && stanza.kind !== 'iq-response',
      );
      if (directoryRequests[0] !== undefined) {
        throw new RequirementViolation(
          'find-gateway.client-verifies-feature',
          `no directory request to ${domain} after its disco#info lacked ${FEATURE.directory}`,
          directoryRequests.map((stanza) => stanza.xml).join('\n'),
          'find-gateway.client-verifies-feature: the caller treated a domain without the directory feature as a gateway',
        );
      }
      context.held(
        'find-gateway.client-verifies-feature',
        `after ${domain}'s disco#info lacked the feature, the caller sent it no directory request`,
      );
    },
  },
]);
