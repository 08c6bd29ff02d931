/**
 * An IqExchange built from a reply's XML, as a caller would have received it, and the request it
 * answered (an empty IQ unless given): for unit tests.
 */
import type { IqExchange } from '../../../harness/driver/index.ts';
import { parseIq, parseXml } from '../../../protocol/stanza/index.ts';

export function exchangeOf(replyXml: string, requestXml = '<iq/>'): IqExchange {
  const element = parseXml(replyXml);
  const attribute = (name: string): string | undefined => element.attrs[name];
  return {
    id: attribute('id') ?? '',
    requestXml,
    reply: {
      index: 0,
      name: 'iq',
      xml: replyXml,
      element,
      parseError: undefined,
      receivedAt: 0,
      id: attribute('id'),
      from: attribute('from'),
      to: attribute('to'),
      type: attribute('type'),
    },
    parsed: parseIq(element) as IqExchange['parsed'],
  };
}
