/**
 * #security, judged on a caller. A gateway that calls out sends only as itself: never as the
 * remote target it calls (below, `security.caller-sends-as-itself`). And an MCP bridge keeps the
 * credentials its MCP clients present:
 *
 * The rule in our words: a gateway that serves MCP over HTTP must not hand a token an MCP client
 * gave it on to the service behind it, here the XMPP side, unless an explicit token-exchange
 * design (a new token, issued for that service) stands in between. MCP's own authorization rules
 * say the same of any MCP server (it accepts only tokens issued for itself and never passes a
 * client's token upstream; a server that calls upstream holds credentials of its own). A bridge
 * logs in to XMPP with its own account, so the client's token has no business in any stanza.
 * A canary found verbatim downstream is never the product of an exchange: it is the token itself.
 */
import type { CallerSession } from '../../../harness/caller-under-test/index.ts';
import { StanzaWaitTimeout, type FakeTask } from '../../../harness/fake-target/index.ts';
import type { ElicitParams } from '../../../harness/caller-under-test/mcp-driver.ts';
import { CannotTell, NotApplicable, RequirementViolation } from '../../framework/verdicts.ts';
import { defineCallerSuite } from '../framework/caller-case.ts';
import { gatewayToolOnly, mcpOnly } from '../framework/caller-under-test.ts';
import type { CallerCaseContext } from '../framework/caller-context.ts';
import { callerWaitMs, listedTool, oneToolWorld } from '../framework/caller-steps.ts';
import { completedWith, marker } from '../framework/task-steps.ts';
import { parseJid } from '../../../protocol/jid/index.ts';
import type { Element } from '@xmpp/xml';
import { callAndAdmit } from '../mcp-mapping/bridge-steps.ts';
import { canarySightings, credentialCanaries, headersOf } from './token-canaries.ts';

/** Why a bridge declared on stdio is not judged on the rule (docs/mcp-bridge.md). */
export const STDIO_NO_TOKEN_REASON =
  "the SUT file declares the bridge on stdio, where an MCP client presents no token: MCP authorization is defined for HTTP transports (a stdio server takes its credentials from its environment), and #security's rule binds a bridge reached over HTTP. Declare the bridge's Streamable HTTP `url` to have it judged";

/** The input schema the task asks for: one a form elicitation carries as it is. */
const INPUT_SCHEMA = { type: 'object', properties: { ok: { type: 'boolean' } } };

/** Accepts an elicitation, as the bridge asked for it: the form itself or one JSON text field. */
function acceptInput(params: ElicitParams): { action: 'accept'; content: Record<string, string | boolean> } {
  const properties = (params as { requestedSchema?: { properties?: Record<string, unknown> } })
    .requestedSchema?.properties;
  const field = Object.keys(properties ?? {}).find((name) => name !== 'ok');
  return { action: 'accept', content: field === undefined ? { ok: true } : { [field]: '{"ok":true}' } };
}

/** A call that asks for input, gets the suite's answer and completes: invoke and provide-input go out. */
async function callWithInput(
  context: CallerCaseContext,
  session: CallerSession,
  name: string,
): Promise<void> {
  const waitMs = callerWaitMs(context);
  const { call, task } = await callAndAdmit(session, name, { note: marker(context, 'note') }, waitMs);
  const inputs = session.target.stream({ kind: 'provide-input' });
  session.caller.driver.answerElicitation(acceptInput);
  await session.target.sendEvent(task, {
    type: 'input_required',
    payload: {
      requestId: `input-${context.random.string('abcdefghijklmnopqrstuvwxyz0123456789', 24)}`,
      question: 'Apply the change?',
      inputSchema: INPUT_SCHEMA,
      createdAt: session.target.timestamp(),
    },
  });
  try {
    await inputs.next(waitMs);
  } catch (error) {
    if (!(error instanceof StanzaWaitTimeout)) throw error;
    context.note('the bridge relayed no input to the target (asking the MCP client is its choice)');
  }
  await session.target.sendEvent(task, { type: 'completed', payload: completedWith('applied') });
  await call.done.catch((error: unknown) => {
    context.note(`the completed call answered with an error: ${String(error)}`);
  });
}

/** A call the suite cancels over MCP: a <cancel/> goes out, when the bridge relays it. */
async function cancelledCall(
  context: CallerCaseContext,
  session: CallerSession,
  name: string,
): Promise<void> {
  const waitMs = callerWaitMs(context);
  const { call, task } = await callAndAdmit(session, name, { note: marker(context, 'note') }, waitMs);
  const cancels = session.target.stream({ kind: 'cancel' });
  call.cancel('the suite cancels the call');
  try {
    await cancels.next(waitMs);
  } catch (error) {
    if (!(error instanceof StanzaWaitTimeout)) throw error;
    context.note('the bridge relayed no cancellation to the target');
  }
  await session.target.sendEvent(task, {
    type: 'cancelled',
    payload: { reason: marker(context, 'cancelled') },
  });
}

/** The domain a stanza's address names, or undefined when it names none or none that parses. */
function domainOf(address: string | undefined): string | undefined {
  if (address === undefined) return undefined;
  try {
    return parseJid(address).domainpart.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Why an MCP bridge is not judged on sending as the target. */
const BRIDGE_CANNOT_SPOOF =
  'an MCP bridge logs in to XMPP as a client account, and its server stamps the sender of every stanza it sends: the rule binds a gateway that originates stanzas itself, which only a call-out shows';

/** Whether the gateway, in `sent`, spoke as a JID of the remote target's domain. */
function spoofed(sent: readonly Element[], targetDomain: string): Element[] {
  return sent.filter((stanza) => domainOf(stanza.attrs['from']) === targetDomain);
}

export const securityCallerSuite = defineCallerSuite('security', 'Security Considerations (caller)', [
  {
    id: 'security.caller-sends-as-itself',
    requirements: ['security.caller-no-spoofing'],
    assessments: ['caller-side'],
    interfaces: gatewayToolOnly(BRIDGE_CANNOT_SPOOF),
    level: 'MUST',
    statement:
      'While it calls a remote endpoint — invoking it, relaying its progress and result to the local account that asked — the gateway never sends a stanza as a JID of the remote target’s domain: its component link carries only its own addresses.',
    async run(context) {
      const { world, jid, tool } = oneToolWorld(context, 'spoofing', 'task.run');
      const scene = await context.startCaller(world);
      const { target, gatewaySent } = scene;
      if (gatewaySent === undefined) {
        throw new CannotTell(
          'the gateway’s component link is not read in this federation (a gateway the user connected elsewhere), so what it sent before its server judged it cannot be seen',
        );
      }
      // A spoofed stanza may be refused by the gateway's own server and so break the call: what
      // the link carried is judged whether or not the call got through.
      const invokes = target.stream({ kind: 'invoke' });
      const call = await scene.caller.call({ jid, tool, arguments: { input: marker(context, 'input') } });
      // A call the gateway reports over before any invoke arrived sends none: no need to wait on.
      const over = call.done.then(
        () => 'the call-out reported the call over',
        (error: unknown) => `the call-out failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      let task: FakeTask | undefined;
      try {
        const first = await Promise.race([invokes.next(callerWaitMs(context)), over]);
        if (typeof first === 'string') context.note(`the fake target saw no invoke: ${first}`);
        else task = target.taskOf(first);
      } catch (error) {
        if (!(error instanceof StanzaWaitTimeout)) throw error;
        context.note(`the fake target saw no invoke: ${error.message}`);
      }
      let reported = false;
      let settled = false;
      if (task !== undefined) {
        const cue = marker(context, 'progress');
        await target.sendEvent(task, { type: 'progress', payload: { message: cue } });
        context.note(`the fake target reports progress (${cue}), then completes`);
        reported = await scene.caller.reportedProgress(cue, callerWaitMs(context));
        await target.sendEvent(task, {
          type: 'completed',
          payload: completedWith(marker(context, 'result')),
        });
        settled = await call.done.then(
          () => true,
          (error: unknown) => {
            context.note(
              `the call-out did not report the completed call: ${error instanceof Error ? error.message : String(error)}`,
            );
            return false;
          },
        );
      }
      const sent = [...gatewaySent];
      const asTarget = spoofed(sent, context.targetDomain);
      if (asTarget[0] !== undefined) {
        throw new RequirementViolation(
          'security.caller-no-spoofing',
          `every stanza the gateway sends during the call from its own domain, none from ${context.targetDomain} (the remote target’s)`,
          asTarget.map((stanza) => stanza.toString()).join('\n'),
          `security.caller-no-spoofing: the gateway sent ${String(asTarget.length)} stanza(s) as ${String(asTarget[0].attrs['from'])}, a JID of the remote target it calls`,
        );
      }
      const toTarget = sent.filter((stanza) => domainOf(stanza.attrs['to']) === context.targetDomain);
      const toOthers = sent.length - toTarget.length;
      if (!settled || toTarget.length === 0 || toOthers === 0) {
        throw new CannotTell(
          `${settled ? 'the call completed' : 'the call did not complete'}, and the gateway’s component link showed ${String(toTarget.length)} stanza(s) to the target and ${String(toOthers)} to anyone else: the invoke and the relay of the result were not both seen`,
        );
      }
      context.held(
        'security.caller-no-spoofing',
        `${String(sent.length)} stanza(s) on the gateway’s component link (${String(toTarget.length)} to ${context.targetDomain}, ${String(toOthers)} to the suite's account${reported ? ', the relayed progress among them' : ''}), none from ${context.targetDomain}`,
      );
    },
  },
  {
    id: 'security.bridge-keeps-client-credentials',
    requirements: ['security.no-token-passthrough'],
    assessments: ['mcp-bridge'],
    interfaces: mcpOnly(
      'it sends HTTP tokens to a Streamable HTTP MCP bridge; a call-out tool is invoked over XMPP, where no client token exists',
    ),
    level: 'MUST',
    statement:
      'The credentials an MCP client presents over HTTP (a bearer token, an API key, a cookie) stay with the bridge: none appears in a stanza it sends the XMPP target while listing tools, calling, relaying input and cancelling.',
    async run(context) {
      if (context.mcpTransport === 'stdio') throw new NotApplicable(STDIO_NO_TOKEN_REASON);
      const canaries = credentialCanaries(context);
      context.note(
        `every HTTP request to the bridge carries ${canaries.map((canary) => `${canary.header}: ${canary.value}`).join('; ')}`,
      );
      const { world, jid, tool } = oneToolWorld(context, 'guarded', 'account.update');
      const session = await context.startSession(world, { httpHeaders: headersOf(canaries) });
      const { name } = await listedTool(session, jid, tool);
      await callWithInput(context, session, name);
      await cancelledCall(context, session, name);
      const carried = session.caller.requestsWithHeaders();
      if (carried === 0) {
        throw new CannotTell(
          'no HTTP request to the bridge carried the credentials, so none could be forwarded',
        );
      }
      const stanzas = session.target.log.all();
      const sightings = canarySightings(stanzas, canaries);
      const [first] = sightings;
      if (first !== undefined) {
        throw new RequirementViolation(
          'security.no-token-passthrough',
          `no stanza to the target carries a credential the MCP client presented (${canaries.map((canary) => canary.carrier).join(', ')}); the bridge calls as its own XMPP account`,
          sightings
            .map(({ canary, stanza }) => `${canary.carrier} in a ${stanza.kind}: ${stanza.xml}`)
            .join('\n'),
          `security.no-token-passthrough: the bridge forwarded the MCP client's ${first.canary.carrier} to the XMPP target (${String(sightings.length)} sighting(s))`,
        );
      }
      const kinds = [...new Set(stanzas.map((stanza) => stanza.kind))];
      context.held(
        'security.no-token-passthrough',
        `${String(carried)} HTTP request(s) carried ${String(canaries.length)} credentials; none of ${String(stanzas.length)} stanzas to the target (${kinds.join(', ')}) carries one`,
      );
    },
  },
]);
