/**
 * #privacy: being listed is not being authorized. An endpoint a caller finds in the directory,
 * with its endpoint information, gives that caller no invocation right (the world's restricted
 * endpoint: visible to local callers, invocable by none of them), and an endpoint hidden from a
 * caller keeps its tools' schemas private from it (interp-26).
 *
 * Timing side channels between hidden and nonexistent endpoints (privacy.enumeration-side-channels,
 * SHOULD) are not measured: a statistical timing comparison on a shared, loaded machine either
 * flakes or proves nothing.
 */
import { NODE_DIRECTORY } from '../../protocol/namespaces.ts';
import { normalizeBareJid } from '../../protocol/jid/index.ts';
import { buildSchemaRequest } from '../../protocol/stanza/index.ts';
import { defineSuite } from '../framework/case.ts';
import { expectDiscoInfo, expectStanzaError, expectThat } from '../framework/expect.ts';
import { RequirementViolation } from '../framework/verdicts.ts';
import { requireWorld } from '../fixtures/reference-world.ts';
import { discoInfo, listing, traverse } from './support/discovery.ts';
import { sendInvoke, targetOf } from './support/tasks.ts';

const NOT_AUTHORITY = 'privacy.profile-not-authority';

export const privacySuite = defineSuite('privacy', 'Privacy Considerations', [
  {
    name: 'listing-grants-nothing',
    requirements: [NOT_AUTHORITY],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-26'],
    statement:
      'The local caller finds the restricted endpoint in the directory and reads its endpoint information, yet an exactly pinned invocation of each of its tools gets item-not-found; and the input schemas of the endpoint hidden from it get item-not-found too.',
    run: async (context) => {
      const world = requireWorld(context);
      const restricted = world.restrictedEndpoint;
      const caller = await context.callers.local();
      const listed = (
        await traverse(caller, context.sut.gatewayJid, NODE_DIRECTORY, 50, NOT_AUTHORITY)
      ).items.map((item) => normalizeBareJid(item.jid));
      expectThat(
        listed.includes(restricted.jid),
        NOT_AUTHORITY,
        `${restricted.jid} in the local caller's directory (the world lets it see the endpoint)`,
        listing(listed),
      );
      expectDiscoInfo(await discoInfo(caller, restricted.jid), NOT_AUTHORITY);
      const target = targetOf(restricted);
      for (const tool of restricted.active.tools) {
        const { exchange } = await sendInvoke(context, caller, target, tool.name, {});
        if (exchange.parsed.type === 'result') {
          throw new RequirementViolation(
            NOT_AUTHORITY,
            `item-not-found: seeing ${restricted.jid} in the directory grants no invocation of ${tool.name}`,
            exchange.reply.xml,
          );
        }
        expectStanzaError(context, exchange, NOT_AUTHORITY, 'item-not-found');
      }
      const hidden = world.hiddenEndpoint;
      for (const tool of hidden.active.tools) {
        const exchange = await caller.exchangeIq(
          hidden.jid,
          'get',
          buildSchemaRequest({
            tool: tool.name,
            version: hidden.active.version,
            direction: 'input',
            manifestHash: hidden.active.document.hash,
          }),
        );
        expectStanzaError(context, exchange, NOT_AUTHORITY, 'item-not-found');
      }
    },
  },
]);
