/**
 * A Querier for unit tests: each IQ the caller sends is recorded with its addressee and payload,
 * and answered by the test's function (a result payload, an error condition, or a lost answer).
 */
import type { Element } from '@xmpp/xml';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import type { DefinedCondition } from '../../protocol/stanza/index.ts';
import { IqLost, type IqAnswer, type Querier } from '../querier.ts';

export interface SentIq {
  readonly to: string;
  readonly type: 'get' | 'set';
  readonly payload: Element;
}

export type ScriptedAnswer =
  { readonly result: Element | undefined } | { readonly error: DefinedCondition } | 'lost';

export function scriptedQuerier(
  answer: (sent: SentIq, index: number) => ScriptedAnswer | Promise<ScriptedAnswer>,
): {
  readonly querier: Querier;
  readonly sent: SentIq[];
} {
  const sent: SentIq[] = [];
  const querier: Querier = async (to, type, payload) => {
    const iq: SentIq = { to, type, payload };
    sent.push(iq);
    const scripted = await answer(iq, sent.length - 1);
    const id = generateIdentifier('iq-');
    if (scripted === 'lost') throw new IqLost(to, id);
    if ('error' in scripted) {
      const reply: IqAnswer = {
        type: 'error',
        id,
        from: to,
        error: { type: 'cancel', condition: scripted.error },
      };
      return reply;
    }
    return scripted.result === undefined
      ? { type: 'result', id, from: to }
      : { type: 'result', id, from: to, payload: scripted.result };
  };
  return { querier, sent };
}
