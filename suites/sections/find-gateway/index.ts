/**
 * #find-gateway: a client finds a gateway among its server's disco#items and confirms it by the
 * directory feature. Both client duties are the suite's own (it is the client); what is left to
 * observe is the server's SHOULD: listing the gateway it fronts. That is a server's finding, so
 * it is a warning on the run, never a failure of the gateway.
 */
import { bareJidEquals, parseBareJid } from '../../../protocol/jid/index.ts';
import { FEATURE } from '../../../protocol/namespaces.ts';
import { defineSuite } from '../../framework/case.ts';
import { expectDiscoInfo, expectDiscoItems, expectFeatures } from '../../framework/expect.ts';
import { discoInfo, discoItems } from '../support/discovery.ts';

export const findGatewaySuite = defineSuite('find-gateway', 'Finding a Gateway', { alongside: true }, [
  {
    id: 'find-gateway.server-lists-gateway',
    requirements: ['find-gateway.server-lists-gateway'],
    profiles: ['core-directory'],
    level: 'SHOULD',
    statement:
      'The local caller’s server lists the gateway among its disco#items, and the listed JID proves itself a gateway by the directory feature.',
    run: async (context) => {
      const caller = await context.callers.local();
      const server = parseBareJid(caller.bareJid).domainpart;
      const items = expectDiscoItems(await discoItems(caller, server), 'find-gateway.server-lists-gateway');
      const listed = items.items.find(
        (item) => item.node === undefined && bareJidEquals(item.jid, context.sut.gatewayJid),
      );
      if (listed === undefined) {
        context.warn(
          'find-gateway.server-lists-gateway',
          `${server} does not list ${context.sut.gatewayJid} among its disco#items`,
        );
        return;
      }
      // The client's check (#find-gateway): the candidate must show the directory feature.
      const exchange = await discoInfo(caller, listed.jid);
      expectFeatures(
        expectDiscoInfo(exchange, 'gateway-info.features'),
        'gateway-info.features',
        [FEATURE.directory],
        exchange.reply.xml,
      );
    },
  },
]);
