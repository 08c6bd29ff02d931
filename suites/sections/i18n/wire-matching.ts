/**
 * #i18n on the fixture world's own endpoints and tools: JID comparison (Core Directory) and tool
 * names (Task Execution) must not follow the process locale. The Turkish trap both ways: under
 * tr_TR, locale-aware lower-casing maps "I" to dotless "ı" (so ALICE is no longer alice) and
 * "İ" to "i" (so alİce and scrİpt find what RFC 7622 and exact names keep apart: İ maps to
 * "i" + COMBINING DOT ABOVE everywhere else, and a tool name is compared code point by code point).
 *
 * The JID vectors go raw on the component link: a server prepares the addresses it routes, and no
 * run has an account spelled with İ, so only the harness in the server's place can have the
 * gateway compare such a sender with its grants (../support/raw-component-input.ts).
 */
import type { Element } from '@xmpp/xml';
import { NS } from '../../../protocol/namespaces.ts';
import { parseBareJid } from '../../../protocol/jid/index.ts';
import { buildDiscoInfoRequest, parseDiscoInfo } from '../../../protocol/stanza/index.ts';
import { requireWorld } from '../../fixtures/reference-world.ts';
import type { CaseDeclaration } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectDiscoInfo, expectStanzaError, expectThat } from '../../framework/expect.ts';
import { MissingFixture } from '../../framework/verdicts.ts';
import { discoInfo } from '../support/discovery.ts';
import { answerOnTheLink, LOWER, link } from '../support/raw-component-input.ts';
import { TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { requireTurkishLocale } from './turkish-locale.ts';

const QUICK = { steps: [{ complete: {} }] };

/** `text` with every i replaced (İ, ı or I): spellings only a locale-dependent mapping could join. */
function withEveryI(text: string, replacement: string): string {
  return text.replace(/i/g, replacement);
}

/** The disco#info result `reply` carries, as comparable text; undefined for anything else. */
function discoInfoText(reply: Element | undefined): string | undefined {
  if (reply?.attrs['type'] !== 'result') return undefined;
  const query = reply.getChild('query', NS.discoInfo);
  if (query === undefined) return undefined;
  try {
    return JSON.stringify(parseDiscoInfo(query));
  } catch {
    return undefined;
  }
}

/**
 * A principal grant names the remote caller (alice@…, with an i) and lets it see a hidden
 * endpoint its domain's grants do not: disco#info of that endpoint sent raw on the link in the
 * name of the caller's JID spelled otherwise shows how the gateway compared the sender with the
 * grant. Capitals are the same principal in every locale; İ or ı for each i are other principals.
 */
async function senderJidCase(context: CaseContext): Promise<void> {
  link(context);
  const world = requireWorld(context);
  const endpoint = world.hiddenEndpoint;
  const principal = world.jidOf('remote');
  const { localpart = '', domainpart } = parseBareJid(principal);
  if (!localpart.includes('i') || world.maySee('remotePeer', endpoint)) {
    throw new MissingFixture(
      `${world.source}: the remote caller ${principal} needs an "i" in its localpart and a grant of its own to see ${endpoint.jid}, which its domain's other accounts may not see`,
    );
  }
  const remote = await context.callers.remote();
  const reference = JSON.stringify(
    expectDiscoInfo(await discoInfo(remote, endpoint.jid), 'endpoint-info.disco-info'),
  );
  const resource = `agentconf-${context.random.string(LOWER, 8)}`;
  const ask = (sender: string): Promise<Element | undefined> =>
    answerOnTheLink(context, remote, {
      from: `${sender}@${domainpart}/${resource}`,
      to: endpoint.jid,
      type: 'get',
      payload: buildDiscoInfoRequest({}),
      raw: {},
    });
  // RFC 7622 maps ASCII capitals to small letters whatever the locale: the same principal.
  const shouted = localpart.toUpperCase();
  const same = await ask(shouted);
  expectThat(
    same?.toString() ?? 'no answer',
    'i18n.locale-independent-matching',
    `the disco#info ${principal} itself gets from ${endpoint.jid}: ${shouted}@${domainpart} is ${principal} once prepared, I mapping to i in every locale`,
    discoInfoText(same) === reference,
  );
  // İ (U+0130) maps to i + U+0307 outside a Turkish locale, ı (U+0131) to itself: other principals.
  for (const other of [withEveryI(localpart, '\u0130'), withEveryI(localpart, '\u0131')]) {
    const answer = await ask(other);
    expectThat(
      answer?.toString() ?? 'no answer',
      'i18n.locale-independent-matching',
      `an answer, but not ${endpoint.jid}'s disco#info: ${other}@${domainpart} is not ${principal} once prepared, and only ${principal}'s own grant shows the endpoint`,
      answer !== undefined && discoInfoText(answer) !== reference,
    );
  }
  requireTurkishLocale(context);
}

async function toolNameCase(context: CaseContext): Promise<void> {
  const target = conformanceTarget(context);
  const name = target.manifest.tools.map((tool) => tool.name).find((candidate) => candidate.includes('i'));
  if (name === undefined) {
    throw new MissingFixture(`the conformance endpoint ${target.jid} has no tool whose name holds an "i"`);
  }
  const caller = await context.callers.local();
  const tasks = new TaskSession(context, caller, target);
  // The exact name is admitted, so a refusal below is about the name alone.
  const { accepted } = await tasks.start(name, QUICK);
  await tasks.awaitSettled(accepted.taskId);
  const spellings = [
    name.toUpperCase(),
    withEveryI(name, '\u0130'),
    withEveryI(name.toUpperCase(), '\u0130'),
    withEveryI(name, '\u0131'),
    withEveryI(name, 'I'),
  ];
  for (const spelling of new Set(spellings)) {
    const { exchange } = await tasks.invoke(spelling, QUICK);
    const admitted = exchange.parsed.type === 'result';
    expectThat(
      exchange.reply.xml,
      'i18n.locale-independent-matching',
      `item-not-found: ${JSON.stringify(spelling)} names no tool of ${target.jid} (names compare code point by code point, and only Turkish case rules join İ and i)`,
      !admitted,
    );
    expectStanzaError(exchange, 'invocation.unauthorized-item-not-found', 'item-not-found', context);
  }
  requireTurkishLocale(context);
}

export const wireMatchingCases: readonly CaseDeclaration<'i18n'>[] = [
  {
    id: 'i18n.sender-jid-turkish-i',
    requirements: ['i18n.locale-independent-matching', 'endpoint-info.disco-info'],
    profiles: ['core-directory'],
    level: 'MUST',
    scenario: 'equivalence',
    interpretations: ['interp-15'],
    statement:
      'Under a Turkish locale, disco#info of the hidden endpoint only the remote caller’s own grant shows, written raw on the component link in the name of that caller’s JID (an i in its localpart): with the localpart in capitals the gateway answers as it does to the caller; with every i written İ or ı (other principals once prepared) it answers without showing the endpoint.',
    run: senderJidCase,
  },
  {
    id: 'i18n.tool-name-turkish-i',
    requirements: ['i18n.locale-independent-matching', 'invocation.unauthorized-item-not-found'],
    profiles: ['task-execution'],
    level: 'MUST',
    scenario: 'equivalence',
    statement:
      'Under a Turkish locale, a conformance tool whose name has an i is admitted by its exact name, and invocations naming it in capitals, with İ, ı or I for each i (other names, code point by code point) all get item-not-found.',
    run: toolNameCase,
  },
];
