/**
 * Raw bytes on the component link (issue 14, item 5; scenario `bad-input`): input an XMPP server
 * would never forward to a component, written to the gateway by the harness's fault proxy as
 * though its server had sent it (SutControl.link.inject), so only for a gateway the harness
 * launches behind its own proxy. Used by #security (restricted XML), #json-encoding
 * (CDATA-split arguments) and #cancellation (reasons whose line ends a server would rewrite).
 */
import type { Element } from '@xmpp/xml';
import type { Caller, IqExchange, ReceivedStanza } from '../../../harness/driver/index.ts';
import { buildIq, parseIq, serialize } from '../../../protocol/stanza/index.ts';
import type { CaseContext, ComponentLinkControl } from '../../framework/context.ts';
import { expectThat } from '../../framework/expect.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';
import { harnessFederationOnly } from './harness-federation-only.ts';

export const HARNESS_FEDERATION_ONLY = harnessFederationOnly("the fault proxies on the gateway's links");
export const LOWER = 'abcdefghijklmnopqrstuvwxyz';

export function link(context: CaseContext): ComponentLinkControl {
  const control = context.sutControl?.link;
  if (control === undefined) throw new CannotTell(HARNESS_FEDERATION_ONLY);
  return control;
}

/** An IQ request, with XML character content spliced in raw where its placeholders stand. */
export interface RawIqRequest {
  /** The sender the server would vouch for; the caller's full JID when absent. */
  readonly from?: string;
  readonly to: string;
  readonly type: 'get' | 'set';
  readonly payload: Element;
  /**
   * Placeholder text (each occurring once in the serialized payload) → what replaces it on the
   * wire, as written: CDATA sections, character references, literal CR.
   */
  readonly raw: Readonly<Record<string, string>>;
}

/** The request as written on the link, with a fresh seeded id. */
function rawIqText(context: CaseContext, caller: Caller, request: RawIqRequest): { id: string; raw: string } {
  const id = `raw-${context.random.string(LOWER, 12)}`;
  const from = request.from ?? caller.jid;
  let raw = serialize(buildIq({ id, type: request.type, from, to: request.to }, request.payload));
  for (const [placeholder, content] of Object.entries(request.raw)) {
    const pieces = raw.split(placeholder);
    if (pieces.length !== 2) {
      throw new Error(`placeholder ${placeholder} occurs ${String(pieces.length - 1)} times`);
    }
    raw = pieces.join(content);
  }
  caller.transcript.note(`written raw on the component link, as though from ${from}'s server: ${raw}`);
  return { id, raw };
}

/**
 * Writes the request on the component link as though the caller's server had routed it, and
 * returns the gateway's answer as the caller received it (the server routes it on), parsed like
 * any reply. No answer within the reply timeout violates `requirement` (every IQ request gets
 * exactly one reply, RFC 6120 §8.2.3).
 */
export async function exchangeRawIq(
  context: CaseContext,
  caller: Caller,
  request: RawIqRequest,
  requirement: RequirementId,
): Promise<IqExchange> {
  const control = link(context);
  const { id, raw } = rawIqText(context, caller, request);
  const isReply = (stanza: ReceivedStanza): boolean =>
    stanza.name === 'iq' && stanza.id === id && (stanza.type === 'result' || stanza.type === 'error');
  const replied = caller
    .waitForStanza(isReply, {
      since: caller.inbound.length,
      timeoutMs: context.sut.replyTimeoutMs,
      description: `the answer to iq ${id}`,
    })
    .catch(() => undefined);
  await control.inject(raw);
  const reply = await replied;
  expectThat(
    reply?.xml ?? `no answer within ${String(context.sut.replyTimeoutMs)} ms`,
    requirement,
    `an answer to iq ${id}`,
    reply !== undefined,
  );
  if (reply?.element === undefined) {
    throw new Error(`the answer to iq ${id} is not well-formed: ${reply?.xml ?? ''}`);
  }
  const parsed = parseIq(reply.element);
  if (parsed.type !== 'result' && parsed.type !== 'error') {
    throw new Error(`iq ${id} answered with type ${parsed.type}`);
  }
  return { id, requestXml: raw, reply, parsed };
}

/**
 * Writes the request on the component link and returns the gateway's answer as it leaves the
 * gateway, before its server routes it: for a sender no caller of the run connects as. Undefined
 * when none comes within the reply timeout. The answer goes into the transcript as a note.
 */
export async function answerOnTheLink(
  context: CaseContext,
  caller: Caller,
  request: RawIqRequest,
): Promise<Element | undefined> {
  const control = link(context);
  const { id, raw } = rawIqText(context, caller, request);
  let stop = (): void => undefined;
  let timer: NodeJS.Timeout | undefined;
  const answered = new Promise<Element | undefined>((resolve) => {
    stop = control.onSent((stanza) => {
      if (stanza.name === 'iq' && stanza.attrs['id'] === id) resolve(stanza);
    });
    timer = setTimeout(() => {
      resolve(undefined);
    }, context.sut.replyTimeoutMs);
  });
  try {
    await control.inject(raw);
    const reply = await answered;
    caller.transcript.note(
      `the gateway answered iq ${id} on the component link: ${reply?.toString() ?? `nothing within ${String(context.sut.replyTimeoutMs)} ms`}`,
    );
    return reply;
  } finally {
    stop();
    clearTimeout(timer);
  }
}
