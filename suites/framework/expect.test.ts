// The discovery expectations: comparable XML, stanza errors with interp-42 types, replies that must
// not tell targets apart, disco#info/items results, identities, features and extension forms.
import { describe, expect, it } from 'vitest';
import type { IqExchange } from '../../harness/driver/index.ts';
import { parseXml } from '../../protocol/stanza/index.ts';
import {
  comparableXml,
  expectAnyStanzaError,
  expectDiscoInfo,
  expectDiscoItems,
  expectExtensionForm,
  expectFeatures,
  expectFormField,
  expectIdentity,
  expectIndistinguishable,
  expectNotReflected,
  expectSameErrorPayload,
  expectStanzaError,
  formBoolean,
  formText,
  requirePositiveControl,
  TRANSIENT_OUTAGE,
} from './expect.ts';
import { CannotTell, RequirementViolation } from './verdicts.ts';
import { exchangeOf } from './test-support/iq-exchange.ts';

const exchange = exchangeOf;

function recorder(): { warnings: string[]; warn: (requirement: string, message: string) => void } {
  const warnings: string[] = [];
  return { warnings, warn: (requirement, message) => warnings.push(`${requirement}: ${message}`) };
}

const STANZAS = 'urn:ietf:params:xml:ns:xmpp-stanzas';
const errorReply = (from: string, condition: string, type: string, id = 'a'): string =>
  `<iq xmlns='jabber:client' type='error' id='${id}' from='${from}' to='bob@server.example/r'><error type='${type}'><${condition} xmlns='${STANZAS}'/></error></iq>`;

const INFO = `<iq xmlns='jabber:client' type='result' id='i' from='weather@agents.example'><query xmlns='http://jabber.org/protocol/disco#info'><identity category='automation' type='agent-endpoint' name='Weather'/><feature var='http://jabber.org/protocol/disco#info'/><feature var='http://jabber.org/protocol/disco#items'/><x xmlns='jabber:x:data' type='result'><field var='FORM_TYPE' type='hidden'><value>urn:xmpp:agent-endpoint-info:0</value></field><field var='version'><value>1.4.0</value></field><field var='description' type='text-multi'><value>line one</value><value>line two\r\nand three</value></field></x></query></iq>`;

describe('comparableXml', () => {
  it('orders attributes and leaves out the named ones of the outer element', () => {
    const a = parseXml("<iq id='1' type='result' from='x'><item node='n' jid='j'/></iq>");
    const b = parseXml("<iq from='y' type='result' id='2'><item jid='j' node='n'/></iq>");
    expect(comparableXml(a, ['id', 'from'])).toBe(comparableXml(b, ['id', 'from']));
    expect(comparableXml(a)).not.toBe(comparableXml(b));
  });

  it('lets expectSameErrorPayload ignore attribute order inside <error/>', () => {
    const first = exchange(
      `<iq type='error' id='a'><error type='cancel' by='x'><item-not-found xmlns='${STANZAS}'/></error></iq>`,
    );
    const second = exchange(
      `<iq type='error' id='b'><error by='x' type='cancel'><item-not-found xmlns='${STANZAS}'/></error></iq>`,
    );
    expectSameErrorPayload([first, second], 'gateway-info.identity');
  });
});

describe('expectStanzaError', () => {
  it('passes an allowed condition with its RFC 6120 type without warnings', () => {
    const { warnings, warn } = recorder();
    const error = expectStanzaError(
      exchange(errorReply('a@x', 'item-not-found', 'cancel')),
      'gateway-info.identity',
      ['bad-request', 'item-not-found'],
      { warn },
    );
    expect(error.condition).toBe('item-not-found');
    expect(warnings).toEqual([]);
  });

  it('warns about another type (interp-42) and fails another condition', () => {
    const { warnings, warn } = recorder();
    expectStanzaError(
      exchange(errorReply('a@x', 'item-not-found', 'modify')),
      'gateway-info.identity',
      'item-not-found',
      { warn },
    );
    expect(warnings).toEqual([expect.stringContaining("type 'modify'")]);
    expect(() =>
      expectStanzaError(
        exchange(errorReply('a@x', 'forbidden', 'auth')),
        'gateway-info.identity',
        'item-not-found',
        { warn },
      ),
    ).toThrow(RequirementViolation);
  });
});

describe('service-unavailable types (interp-42)', () => {
  it('warns about wait unless the case declares a transient outage', () => {
    const { warnings, warn } = recorder();
    const waiting = exchange(errorReply('a@x', 'service-unavailable', 'wait'));
    expectStanzaError(waiting, 'gateway-info.identity', 'service-unavailable', { warn }, TRANSIENT_OUTAGE);
    expect(warnings).toEqual([]);
    expectStanzaError(waiting, 'gateway-info.identity', 'service-unavailable', { warn });
    expect(warnings).toEqual([expect.stringContaining('wait only for a transient outage')]);
    expectStanzaError(
      exchange(errorReply('a@x', 'service-unavailable', 'cancel')),
      'gateway-info.identity',
      'service-unavailable',
      { warn },
      TRANSIENT_OUTAGE,
    );
    expect(warnings).toHaveLength(1);
  });
});

describe('echoed requests in equivalence checks (#errors, interp-19)', () => {
  const NOT_FOUND = `<error type='cancel'><item-not-found xmlns='${STANZAS}'/></error>`;
  const request = (node: string): string =>
    `<iq type='get' id='q'><query xmlns='http://jabber.org/protocol/disco#info' node='${node}'/></iq>`;
  const echoing = (from: string, node: string): string =>
    `<iq type='error' id='r' from='${from}'><query xmlns='http://jabber.org/protocol/disco#info' node='${node}'/>${NOT_FOUND}</iq>`;
  const bare = (from: string): string => `<iq type='error' id='r' from='${from}'>${NOT_FOUND}</iq>`;
  const compared = (label: string, to: string, reply: string, sent: string) => ({
    label,
    to,
    exchange: exchange(reply, sent),
  });

  it('passes echoes of requests that differ, each echoing its own', () => {
    const { warn } = recorder();
    expectIndistinguishable(
      [
        compared('hidden', 'vault@agents.example', echoing('vault@agents.example', 'a'), request('a')),
        compared('missing', 'nobody@agents.example', echoing('nobody@agents.example', 'b'), request('b')),
      ],
      'gateway-info.identity',
      { warn },
    );
    expectSameErrorPayload(
      [exchange(echoing('x', 'a'), request('a')), exchange(echoing('x', 'b'), request('b'))],
      'gateway-info.identity',
    );
  });

  it('fails an echo in one reply only, and different echoes of the same request', () => {
    const { warn } = recorder();
    expect(() => {
      expectIndistinguishable(
        [
          compared('hidden', 'vault@agents.example', echoing('vault@agents.example', 'a'), request('a')),
          compared('missing', 'nobody@agents.example', bare('nobody@agents.example'), request('a')),
        ],
        'gateway-info.identity',
        { warn },
      );
    }).toThrow(/one echoes the request and the other does not/);
    expect(() => {
      expectSameErrorPayload(
        [exchange(echoing('x', 'a'), request('a')), exchange(echoing('x', 'b'), request('a'))],
        'gateway-info.identity',
      );
    }).toThrow(/echoed differently/);
  });
});

describe('requirePositiveControl', () => {
  it('returns the payload of a result and cannot tell after an error', () => {
    const result = exchange("<iq type='result' id='a'><query xmlns='urn:x'/></iq>");
    expect(requirePositiveControl(result, 'a valid request')?.name).toBe('query');
    expect(() =>
      requirePositiveControl(exchange(errorReply('a@x', 'service-unavailable', 'cancel')), 'a valid request'),
    ).toThrow(CannotTell);
  });
});

describe('expectIndistinguishable', () => {
  const hidden = (xml: string) => ({ label: 'hidden', exchange: exchange(xml), to: 'vault@agents.example' });
  const missing = (xml: string) => ({
    label: 'missing',
    exchange: exchange(xml),
    to: 'nobody@agents.example',
  });

  it('passes replies equal apart from id and a sender that is the address asked', () => {
    const { warnings, warn } = recorder();
    expectIndistinguishable(
      [
        hidden(errorReply('vault@agents.example', 'item-not-found', 'cancel', 'x')),
        missing(errorReply('nobody@agents.example', 'item-not-found', 'cancel', 'y')),
      ],
      'gateway-info.identity',
      { warn },
    );
    expect(warnings).toEqual([]);
  });

  it('fails replies that differ, naming both', () => {
    const { warn } = recorder();
    expect(() => {
      expectIndistinguishable(
        [
          hidden(errorReply('vault@agents.example', 'item-not-found', 'cancel')),
          missing(errorReply('nobody@agents.example', 'service-unavailable', 'cancel')),
        ],
        'gateway-info.identity',
        { warn },
      );
    }).toThrow(/hidden and missing differ \(the <error\/> elements differ\)/);
  });

  it('fails when only one reply comes from the address asked, warns when none does alike', () => {
    const { warnings, warn } = recorder();
    expect(() => {
      expectIndistinguishable(
        [
          hidden(errorReply('agents.example', 'item-not-found', 'cancel')),
          missing(errorReply('nobody@agents.example', 'item-not-found', 'cancel')),
        ],
        'gateway-info.identity',
        { warn },
      );
    }).toThrow(RequirementViolation);
    expectIndistinguishable(
      [
        hidden(errorReply('agents.example', 'item-not-found', 'cancel')),
        missing(errorReply('agents.example', 'item-not-found', 'cancel')),
      ],
      'gateway-info.identity',
      { warn },
    );
    expect(warnings).toEqual([expect.stringContaining('agents.example instead of the address asked')]);
  });
});

describe('disco expectations', () => {
  it('reads a disco#info result and checks identity, features and the extension form', () => {
    const reply = exchange(INFO);
    const info = expectDiscoInfo(reply, 'gateway-info.identity');
    expectIdentity(info, 'gateway-info.identity', 'automation', 'agent-endpoint', INFO);
    expect(() => {
      expectIdentity(info, 'gateway-info.identity', 'automation', 'agent-tool', INFO);
    }).toThrow(RequirementViolation);
    expectFeatures(info, 'gateway-info.identity', ['http://jabber.org/protocol/disco#items'], INFO);
    expect(() => {
      expectFeatures(info, 'gateway-info.identity', ['urn:xmpp:agent-endpoint:0'], INFO);
    }).toThrow(/urn:xmpp:agent-endpoint:0/);
    const form = expectExtensionForm(info, 'gateway-info.identity', 'urn:xmpp:agent-endpoint-info:0', INFO);
    expect(expectFormField(form, 'gateway-info.identity', 'version', INFO)).toBe('1.4.0');
    expect(() => expectFormField(form, 'gateway-info.identity', 'server_name', INFO)).toThrow(
      RequirementViolation,
    );
    expect(() => expectFormField(form, 'gateway-info.identity', 'description', INFO)).toThrow(
      RequirementViolation,
    );
    expect(formText(form, 'description')).toBe('line one\nline two\nand three');
    expect(formText(form, 'server_name')).toBeUndefined();
    expect(() =>
      expectExtensionForm(info, 'gateway-info.identity', 'urn:xmpp:agent-tool-info:0', INFO),
    ).toThrow(RequirementViolation);
  });

  it('turns an error or a malformed payload into a violation of the requirement', () => {
    expect(() =>
      expectDiscoInfo(exchange(errorReply('a@x', 'item-not-found', 'cancel')), 'gateway-info.identity'),
    ).toThrow(RequirementViolation);
    const noIdentity =
      "<iq type='result' id='i'><query xmlns='http://jabber.org/protocol/disco#info'><feature var='x'/></query></iq>";
    expect(() => expectDiscoInfo(exchange(noIdentity), 'gateway-info.identity')).toThrow(/malformed/);
    const items = expectDiscoItems(
      exchange(
        "<iq type='result' id='i'><query xmlns='http://jabber.org/protocol/disco#items'><item jid='a@b'/></query></iq>",
      ),
      'gateway-info.identity',
    );
    expect(items.items).toEqual([{ jid: 'a@b' }]);
  });

  it('reads XEP-0004 booleans the way interp-20 does', () => {
    expect(formBoolean('1')).toEqual({ value: true, canonical: true });
    expect(formBoolean('0')).toEqual({ value: false, canonical: true });
    expect(formBoolean('true')).toEqual({ value: true, canonical: false });
    expect(formBoolean('false')).toEqual({ value: false, canonical: false });
    expect(formBoolean('yes')).toBeUndefined();
  });
});

describe('expectAnyStanzaError', () => {
  it('passes any condition, warning only about a type interp-42 does not give it', () => {
    const { warnings, warn } = recorder();
    expect(
      expectAnyStanzaError(
        exchange(errorReply('a@x', 'service-unavailable', 'cancel')),
        'gateway-info.identity',
        { warn },
      ).condition,
    ).toBe('service-unavailable');
    expect(warnings).toEqual([]);
    expectAnyStanzaError(exchange(errorReply('a@x', 'bad-request', 'cancel')), 'gateway-info.identity', {
      warn,
    });
    expect(warnings).toEqual([expect.stringContaining("type 'cancel'")]);
  });

  it('fails a result', () => {
    const { warn } = recorder();
    const result = exchange("<iq xmlns='jabber:client' type='result' id='a' from='a@x'/>");
    expect(() => expectAnyStanzaError(result, 'gateway-info.identity', { warn })).toThrow(/any condition/);
  });
});

describe('expectNotReflected', () => {
  const CANARY = 'canary-7f3a';
  const withText = (text: string): IqExchange =>
    exchange(
      `<iq xmlns='jabber:client' type='error' id='a' from='agents.example'><error type='modify'><bad-request xmlns='${STANZAS}'/><text xmlns='${STANZAS}'>${text}</text></error></iq>`,
    );

  it('passes a reply without the planted markers and within the size bound', () => {
    expectNotReflected(withText('invalid manifest'), 'gateway-info.identity', [CANARY], 1000);
  });

  it('fails a reply that carries a marker, naming it', () => {
    expect(() => {
      expectNotReflected(withText(`bad value ${CANARY}`), 'gateway-info.identity', ['other', CANARY]);
    }).toThrow(/reflects canary-7f3a/);
  });

  it('fails a reply over the bound even without a marker', () => {
    expect(() => {
      expectNotReflected(withText('x'.repeat(500)), 'gateway-info.identity', [CANARY], 300);
    }).toThrow(/bytes long/);
  });
});
