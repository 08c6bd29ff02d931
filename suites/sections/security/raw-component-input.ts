/**
 * Restricted XML on the component link (RFC 6120 §11.1): a DTD whose internal subset declares nested
 * entities (billion laughs, kept to 64 copies), a DTD declaring an external entity on the
 * canary listener, an undeclared entity reference, a comment and a processing instruction
 * inside a stanza, each inside a disco#info IQ from the local caller whose `id` or content
 * carries the entity or the canary text. RFC 6120 §11.1 has the receiver close the stream with
 * a stream error (<restricted-xml/>, §4.9.3.18; <bad-format/> is allowed instead, §4.9.3.1);
 * RFC 3920 let it ignore the feature. Either passes: a stream error, a plain close, or an
 * answer that ignored the comment or instruction (warned: RFC 6120 no longer allows it). What fails: the external entity fetched
 * (`security.no-xxe`: XML parsers must not resolve external entities), an entity's
 * replacement text or the canary in anything the gateway sends (an entity was expanded, or the
 * restricted input reflected), and a gateway that neither answers the stanza following the
 * injection nor closes its stream in the reply timeout, or does not answer again at all
 * (crash or stall: `security.authorize-and-validate`, refuse when in doubt).
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import { type Element } from '@xmpp/xml';
import type { Caller } from '../../../harness/driver/index.ts';
import { NS } from '../../../protocol/namespaces.ts';
import type { CaseContext, ComponentLinkControl } from '../../framework/context.ts';
import { expectThat } from '../../framework/expect.ts';
import { RequirementViolation } from '../../framework/verdicts.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';
import { withCanaryListener, type CanaryListener } from '../support/canary-listener.ts';
import { LOWER, link } from '../support/raw-component-input.ts';

const DISCO_INFO = 'http://jabber.org/protocol/disco#info';

/** One restricted-XML vector: the raw bytes and the texts that must never come back. */
interface RestrictedVector {
  readonly name: string;
  readonly raw: string;
  readonly forbidden: readonly string[];
}

function quoteAttr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/'/g, '&apos;').replace(/</g, '&lt;');
}

/**
 * The vectors, each a disco#info IQ from `from` to the gateway. `canary` is text the gateway
 * must never send; `marker` tells the stanzas apart.
 */
function restrictedVectors(
  from: string,
  gateway: string,
  canary: string,
  marker: string,
  canaryListener: CanaryListener,
): RestrictedVector[] {
  const head = (id: string): string =>
    `<iq type='get' from='${quoteAttr(from)}' to='${quoteAttr(gateway)}' id='${id}'>`;
  const query = `<query xmlns='${DISCO_INFO}'/>`;
  // 4 × 4 × 4 copies: enough to see an expansion, too few to hurt anybody.
  const laughs =
    `<!DOCTYPE iq [<!ENTITY l0 "${canary}"><!ENTITY l1 "&l0;&l0;&l0;&l0;">` +
    `<!ENTITY l2 "&l1;&l1;&l1;&l1;"><!ENTITY l3 "&l2;&l2;&l2;&l2;">]>`;
  const external = `<!DOCTYPE iq [<!ENTITY ext SYSTEM "${canaryListener.url('http', `xxe-${marker}`)}">]>`;
  return [
    {
      name: 'dtd-internal-entities',
      raw: `${laughs}${head(`raw-${marker}-&l3;`)}${query}</iq>`,
      forbidden: [canary],
    },
    {
      name: 'dtd-external-entity',
      raw: `${external}${head(`raw-${marker}-&ext;`)}<query xmlns='${DISCO_INFO}' node='&ext;'/></iq>`,
      forbidden: [canary, `xxe-${marker}`],
    },
    {
      name: 'undeclared-entity',
      raw: `${head(`raw-${marker}-u`)}<query xmlns='${DISCO_INFO}' node='&${canary};'/></iq>`,
      forbidden: [canary],
    },
    {
      name: 'comment-in-stanza',
      raw: `${head(`raw-${marker}-c`)}<!-- ${canary} -->${query}</iq>`,
      forbidden: [canary],
    },
    {
      name: 'processing-instruction',
      raw: `${head(`raw-${marker}-p`)}<?${canary} ${canary}?>${query}</iq>`,
      forbidden: [canary],
    },
  ];
}

type Effect = 'answered the next stanza' | 'closed its stream' | 'neither';

/**
 * Injects `raw` followed by a plain ping from `from` (the next stanza, which a gateway that
 * ignored the restricted feature answers) and waits — for the ping's answer, for the component
 * connection to end, or for the reply timeout — then until the gateway answers again.
 */
async function injectAndObserve(
  context: CaseContext,
  control: ComponentLinkControl,
  caller: Caller,
  raw: string,
  pingId: string,
  sent: Element[],
): Promise<{ effect: Effect; reconnected: boolean }> {
  const connectionsBefore = control.connections;
  const ping = `<iq type='get' from='${quoteAttr(caller.jid)}' to='${quoteAttr(context.sut.gatewayJid)}' id='${pingId}'><ping xmlns='${NS.ping}'/></iq>`;
  let settle: (effect: Effect) => void = () => undefined;
  const effect = new Promise<Effect>((resolve) => {
    settle = resolve;
  });
  const stopWatching = control.onSent((stanza) => {
    sent.push(stanza);
    if (stanza.name === 'iq' && stanza.attrs['id'] === pingId) settle('answered the next stanza');
    if (stanza.name === 'error' || stanza.name === 'stream:error') settle('closed its stream');
  });
  const closed = control.closed().then(() => {
    settle('closed its stream');
  });
  closed.catch(() => undefined);
  const timer = setTimeout(() => {
    settle('neither');
  }, context.sut.replyTimeoutMs);
  let observed: Effect;
  try {
    await control.inject(raw + ping);
    observed = await effect;
  } finally {
    clearTimeout(timer);
  }
  try {
    await control.answering();
  } catch (error) {
    throw new RequirementViolation(
      'security.authorize-and-validate',
      'the gateway answers again after refusing input no server would deliver (a stream error and a reconnection at most)',
      `it did not: ${error instanceof Error ? error.message.slice(0, 600) : String(error)}`,
    );
  } finally {
    stopWatching();
  }
  return { effect: observed, reconnected: control.connections > connectionsBefore };
}

async function restrictedXml(context: CaseContext): Promise<void> {
  const control = link(context);
  const caller = await context.callers.local();
  const canary = `canary${context.random.string(LOWER, 12)}`;
  await withCanaryListener(async (canaryListener) => {
    const vectors = restrictedVectors(
      caller.jid,
      context.sut.gatewayJid,
      canary,
      context.random.string(LOWER, 6),
      canaryListener,
    );
    // The default budget draws one vector among the entity ones (the dangerous family); --deep
    // sends each vector, twice, in a seeded order.
    const chosen = context.budget.deep
      ? context.random.shuffle([...vectors, ...vectors])
      : [context.random.pick(vectors.slice(0, 3))];
    context.budget.iterations(1, chosen.length);
    const counts = new Map<string, number>();
    for (const [index, vector] of chosen.entries()) {
      const sent: Element[] = [];
      const { effect, reconnected } = await injectAndObserve(
        context,
        control,
        caller,
        vector.raw,
        `raw-ping-${String(index)}-${context.random.string(LOWER, 6)}`,
        sent,
      );
      // Which stream error, if any: RFC 6120 §11.1 allows <restricted-xml/> or <bad-format/>.
      const streamError = sent.find((stanza) => stanza.name === 'stream:error' || stanza.name === 'error');
      const condition = streamError?.children.find((child) => typeof child !== 'string')?.name;
      const outcome = `${effect}${condition === undefined ? '' : ` (<${condition}/>)`}${reconnected ? ', reconnected' : ''}`;
      caller.transcript.note(`raw ${vector.name}: the gateway ${outcome}`);
      counts.set(`${vector.name}: ${outcome}`, (counts.get(`${vector.name}: ${outcome}`) ?? 0) + 1);
      expectThat(
        `connections to the canary listener: ${canaryListener.contacts.map((contact) => `${contact.from} sent ${contact.firstBytes}`).join('; ') || 'none'}`,
        'security.no-xxe',
        `no fetch of the external entity declared in the injected DTD (${vector.name})`,
        canaryListener.contacts.length === 0,
      );
      for (const stanza of sent) {
        const text = stanza.toString();
        for (const forbidden of vector.forbidden) {
          expectThat(
            text,
            'security.no-xxe',
            `nothing the gateway sends carries "${forbidden}" from the injected ${vector.name}: no entity expanded, nothing reflected`,
            !text.includes(forbidden),
          );
        }
      }
      expectThat(
        `after the injected ${vector.name} the gateway neither answered the ping that followed nor closed its stream within ${String(context.sut.replyTimeoutMs)} ms`,
        'security.authorize-and-validate',
        'a stream error or a close (RFC 6120 §11.1), or the restricted feature ignored and the next stanza answered',
        effect !== 'neither',
      );
      if (effect === 'answered the next stanza') {
        // Allowed (nothing unsafe happened, which is what the ProtoXEP's requirements ask), but
        // RFC 6120 §11.1 replaced RFC 3920's "ignore" with closing the stream.
        context.warn(
          'security.authorize-and-validate',
          `the injected ${vector.name} was ignored and the next stanza answered: RFC 6120 §11.1 has the stream closed with a stream error (<restricted-xml/>, or <bad-format/>), RFC 3920 let it be ignored`,
        );
      }
    }
    caller.transcript.note(
      `raw restricted XML, ${String(chosen.length)} injections: ${[...counts].map(([what, count]) => `${what} ×${String(count)}`).join('; ')}`,
    );
  });
}

const NO_XXE: RequirementId = 'security.no-xxe';

export const rawComponentInputCases: readonly CaseDeclaration<'security'>[] = [
  {
    id: 'security.restricted-xml-on-component-link',
    requirements: [NO_XXE, 'security.authorize-and-validate'],
    // The component link is the only place XML reaches any gateway unfiltered by a server (a
    // C2S registration request cannot carry a DTD), so it decides #security for every profile
    // whose surface is an XML one: the directory and both registration profiles.
    profiles: ['core-directory', 'self-registration', 'admin-provisioning'],
    level: 'MUST',
    scenario: 'bad-input',
    timeoutMs: 180_000,
    statement:
      'Restricted XML no server would forward (RFC 6120 §11.1) is written raw to the gateway on its component link — a DTD with nested internal entities, a DTD with an external entity on a canary listener, an undeclared entity, a comment or a processing instruction inside a disco#info IQ — followed by a ping: the gateway closes the stream with a stream error (or plainly) or ignores the feature and answers the ping, never fetches the external entity, never sends an entity expansion or the injected text back, and answers again afterwards (reconnecting if it closed).',
    run: restrictedXml,
  },
];
