/**
 * Raw bytes on the component link (issue 14, item 5; scenario `bad-input`): input an XMPP server
 * would never forward to a component, written to the gateway by the harness's fault proxy as
 * though its server had sent it (SutControl.link.inject), so only for a gateway the harness
 * launches behind its own proxy.
 *
 * - #security: restricted XML (RFC 6120 §11.1): a DTD whose internal subset declares nested
 *   entities (billion laughs, kept to 64 copies), a DTD declaring an external entity on the
 *   canary listener, an undeclared entity reference, a comment and a processing instruction
 *   inside a stanza, each inside a disco#info IQ from the local caller whose `id` or content
 *   carries the entity or the canary text. RFC 6120 §11.1 has the receiver close the stream with
 *   a stream error (<restricted-xml/>, §4.9.3.18; <bad-format/> is allowed instead, §4.9.3.1);
 *   RFC 3920 let it ignore the feature. Either passes: a stream error, a plain close, or an
 *   answer that ignored the comment or instruction (warned: RFC 6120 no longer allows it). What fails: the external entity fetched
 *   (`security.no-xxe`: XML parsers must not resolve external entities), an entity's
 *   replacement text or the canary in anything the gateway sends (an entity was expanded, or the
 *   restricted input reflected), and a gateway that neither answers the stanza following the
 *   injection nor closes its stream in the reply timeout, or does not answer again at all
 *   (crash or stall: `security.authorize-and-validate`, refuse when in doubt).
 * - #json-encoding: an invocation whose <arguments/> reach the gateway split into CDATA
 *   sections, character references and escaped text. CDATA is legal XML (RFC 6120 restricts no
 *   CDATA), and #json-encoding reads JSON "after normal XML entity decoding and concatenation of
 *   adjacent character-data nodes": the gateway must admit it exactly like the unsplit request,
 *   which the caller then sends normally and must get the same task for (the tool ran once, and
 *   its result carries the string that was split).
 */
import { xml, type Element } from '@xmpp/xml';
import type { Caller } from '../../harness/driver/index.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { NS } from '../../protocol/namespaces.ts';
import { buildInvoke, serialize, type Invoke } from '../../protocol/stanza/index.ts';
import { defineSuite, type Suite } from '../framework/case.ts';
import type { CaseContext, ComponentLinkControl } from '../framework/context.ts';
import { expectThat } from '../framework/expect.ts';
import { NotApplicable, RequirementViolation } from '../framework/verdicts.ts';
import type { RequirementId } from '../registry/requirement-ids.ts';
import { withCanaryListener, type CanaryListener } from './support/canary-listener.ts';
import {
  conformanceTarget,
  expectAccepted,
  expectTaskResult,
  freshLedgerKey,
  freshRequestId,
  readLedger,
  taskResultRequest,
  awaitSettled,
} from './support/tasks.ts';
import { acceptedOnWire } from './support/wire-stanzas.ts';
import { launchedOnly } from './support/launched-only.ts';

const LAUNCHED_ONLY = launchedOnly("the harness's own fault proxies");

const DISCO_INFO = 'http://jabber.org/protocol/disco#info';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';

function link(context: CaseContext): ComponentLinkControl {
  const control = context.sutControl?.link;
  if (control === undefined) throw new NotApplicable(LAUNCHED_ONLY);
  return control;
}

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

/** `text` as XML character content in random pieces: CDATA sections, character references, escaped text. */
function splitCharacterData(context: CaseContext, text: string): string {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > 0) {
    const size = Math.min(rest.length, context.random.int(1, 12));
    const piece = rest.slice(0, size);
    rest = rest.slice(size);
    const form = context.random.int(0, 2);
    if (form === 0 && !piece.includes(']]>') && !piece.endsWith(']') && !piece.endsWith(']]')) {
      pieces.push(`<![CDATA[${piece}]]>`);
    } else if (form === 1) {
      pieces.push(
        Array.from(piece, (character) => `&#x${(character.codePointAt(0) ?? 0).toString(16)};`).join(''),
      );
    } else {
      pieces.push(piece.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
    }
  }
  // At least one CDATA boundary, whatever the draw.
  return `<![CDATA[]]>${pieces.join('<![CDATA[]]>')}`;
}

async function cdataSplitArguments(context: CaseContext): Promise<void> {
  const control = link(context);
  const target = conformanceTarget(context);
  const caller = await context.callers.local();
  const count = context.budget.iterations(1, 10);
  for (let index = 0; index < count; index += 1) {
    const ledgerKey = freshLedgerKey(context, 'cdata-split');
    // Markup characters and a CDATA terminator inside the JSON string: what splitting must keep.
    const value = `split <${context.random.string(LOWER, 6)}> & ]]> "é" ${context.random.string(LOWER, 6)}`;
    const args: JsonValue = { ledgerKey, steps: [{ complete: { structuredContent: { value } } }] };
    const argumentsJson = JSON.stringify(args);
    const invoke: Invoke = {
      requestId: freshRequestId(context),
      tool: 'script',
      apiVersion: target.version,
      manifestHash: target.hash,
      argumentsJson,
    };
    const placeholder = `@@${context.random.string(LOWER, 16)}@@`;
    const iqId = `raw-cdata-${context.random.string(LOWER, 10)}`;
    const template = serialize(
      xml(
        'iq',
        { type: 'set', from: caller.jid, to: target.jid, id: iqId },
        buildInvoke({ ...invoke, argumentsJson: placeholder }),
      ),
    );
    const raw = template.replace(placeholder, splitCharacterData(context, argumentsJson));
    let reply: Element | undefined;
    const answered = new Promise<void>((resolve) => {
      const stop = control.onSent((stanza) => {
        if (stanza.name !== 'iq' || stanza.attrs['id'] !== iqId) return;
        reply = stanza;
        stop();
        resolve();
      });
    });
    caller.transcript.note(`injected on the component link: ${raw}`);
    await control.inject(raw);
    const timedOut = await Promise.race([
      answered.then(() => false),
      new Promise<boolean>((resolve) => {
        setTimeout(() => {
          resolve(true);
        }, context.sut.replyTimeoutMs);
      }),
    ]);
    const replyXml = reply === undefined ? '(no answer on the component link)' : reply.toString();
    const accepted = reply === undefined ? undefined : acceptedOnWire(reply, invoke.requestId);
    expectThat(
      timedOut ? `no answer within ${String(context.sut.replyTimeoutMs)} ms` : replyXml,
      'json-encoding.cdata-independent',
      `<accepted/> for request ${invoke.requestId}: its arguments, split into CDATA sections and character references, are the same JSON as unsplit`,
      accepted !== undefined,
    );
    const retry = expectAccepted(
      await caller.exchangeIq(target.jid, 'set', buildInvoke(invoke)),
      'json-encoding.cdata-independent',
      invoke,
    );
    expectThat(
      `the unsplit request got task ${retry.taskId}`,
      'json-encoding.cdata-independent',
      `the task the split request was admitted as (${accepted?.taskId ?? '?'}): the same request, read the same way`,
      retry.taskId === accepted?.taskId,
    );
    await awaitSettled(context, caller, retry.taskId).catch(() => undefined);
    const result = expectTaskResult(
      await taskResultRequest(caller, target, retry.taskId),
      'json-encoding.cdata-independent',
    );
    expectThat(
      result.json,
      'json-encoding.cdata-independent',
      `the tool's result carries the split string intact: ${JSON.stringify(value)}`,
      result.json.includes(JSON.stringify(value).slice(1, -1)) || resultValue(result.json) === value,
    );
    const ran = await readLedger(context, caller, target, ledgerKey, 'json-encoding.cdata-independent');
    expectThat(`count ${String(ran)}`, 'json-encoding.cdata-independent', 'the tool ran once', ran === 1);
  }
}

function resultValue(json: string): unknown {
  try {
    const parsed = JSON.parse(json) as { structuredContent?: { value?: unknown } };
    return parsed.structuredContent?.value;
  } catch {
    return undefined;
  }
}

const NO_XXE: RequirementId = 'security.no-xxe';

export const securityRawInput: Suite = defineSuite('security', 'Security', [
  {
    id: 'security.restricted-xml-on-component-link',
    requirements: [NO_XXE, 'security.authorize-and-validate'],
    profiles: ['core-directory'],
    level: 'MUST',
    scenario: 'bad-input',
    timeoutMs: 180_000,
    statement:
      'Restricted XML no server would forward (RFC 6120 §11.1) is written raw to the gateway on its component link — a DTD with nested internal entities, a DTD with an external entity on a canary listener, an undeclared entity, a comment or a processing instruction inside a disco#info IQ — followed by a ping: the gateway closes the stream with a stream error (or plainly) or ignores the feature and answers the ping, never fetches the external entity, never sends an entity expansion or the injected text back, and answers again afterwards (reconnecting if it closed).',
    run: restrictedXml,
  },
]);

export const jsonEncodingRawInput: Suite = defineSuite('json-encoding', 'JSON Encoding', [
  {
    id: 'json-encoding.cdata-split-arguments',
    requirements: ['json-encoding.cdata-independent'],
    profiles: ['task-execution'],
    level: 'MUST',
    scenario: 'bad-input',
    timeoutMs: 120_000,
    statement:
      'An invocation whose <arguments/> reach the gateway (raw, on its component link) split into CDATA sections, character references and escaped text — around markup characters and a "]]>" inside a JSON string — is admitted like the same request unsplit: the caller then sends it unsplit and gets the same task, the tool ran once and its result holds the split string intact.',
    run: cdataSplitArguments,
  },
]);
