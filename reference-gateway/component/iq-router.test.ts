// The router and its table (#errors: errors.unhandled-iq-error): one lookup by IQ type, payload
// namespace and element; whatever has no row, or whose handler declines it, is answered
// service-unavailable in one place; results, errors and unstamped stanzas are never answered.
import { xml } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import { NS, NS_AGENT_API, NS_AGENT_TASK } from '../../protocol/namespaces.ts';
import { parseXml, serialize } from '../../protocol/stanza/index.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { RateLimitedOperation } from '../config/limits.ts';
import type { DiscoverySettings } from '../discovery/index.ts';
import { FAULT } from '../iq/faults.ts';
import { IqTable, UNHANDLED, type IqCall } from '../iq/iq-table.ts';
import type { RateLimiter } from '../policy/rate-limiter.ts';
import type { Provisioning } from '../registration/provisioning.ts';
import { iqRouterOf } from './gateway-routes.ts';
import { routeIq, type IqRouter } from './iq-router.ts';
import type { TaskRouting } from './task-routing.ts';

const GATEWAY = 'agents.example';
const ECHO = 'urn:example:echo';

/** A table of two rows: an echo that answers, and one that always declines. */
function router(calls: IqCall[] = []): IqRouter {
  const table = new IqTable([
    {
      type: 'get',
      ns: ECHO,
      element: 'echo',
      handle: (call) => {
        calls.push(call);
        return { ok: true, payload: xml('echoed', { xmlns: ECHO }) };
      },
    },
    { type: 'set', ns: ECHO, element: 'echo', handle: () => UNHANDLED },
  ]);
  return { gatewayJid: GATEWAY, table };
}

async function reply(text: string, target: IqRouter = router()): Promise<string | undefined> {
  const answer = await routeIq(parseXml(text), target);
  return answer === undefined ? undefined : serialize(answer);
}

const UNAVAILABLE = `<error type='cancel'><service-unavailable xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error>`;

describe('routeIq', () => {
  it('hands a registered payload to its handler with the addressee classified', async () => {
    const calls: IqCall[] = [];
    const answer = await reply(
      `<iq type='get' id='1' from='bob@server.example/desk' to='weather@agents.example'><echo xmlns='${ECHO}'/></iq>`,
      router(calls),
    );
    expect(answer).toBe(
      `<iq id='1' type='result' from='weather@agents.example' to='bob@server.example/desk'><echoed xmlns='${ECHO}'/></iq>`,
    );
    expect(calls.map((call) => [call.type, call.to, call.addressee, call.requester.bareJid])).toEqual([
      [
        'get',
        'weather@agents.example',
        { kind: 'endpoint', jid: 'weather@agents.example' },
        'bob@server.example',
      ],
    ]);
  });

  it('addresses an IQ without a to to the gateway', async () => {
    const calls: IqCall[] = [];
    await reply(
      `<iq type='get' id='1' from='bob@server.example/desk'><echo xmlns='${ECHO}'/></iq>`,
      router(calls),
    );
    expect(calls.map((call) => [call.to, call.addressee.kind])).toEqual([[GATEWAY, 'gateway']]);
  });

  it('answers an unregistered payload, type or namespace, and a declined one, with service-unavailable', async () => {
    const unregistered = [
      `<iq type='get' id='1' from='bob@server.example/desk' to='${GATEWAY}'><vCard xmlns='vcard-temp'/></iq>`,
      `<iq type='get' id='1' from='bob@server.example/desk' to='${GATEWAY}'><other xmlns='${ECHO}'/></iq>`,
      `<iq type='get' id='1' from='bob@server.example/desk' to='${GATEWAY}'><echo xmlns='urn:example:else'/></iq>`,
      `<iq type='set' id='1' from='bob@server.example/desk' to='${GATEWAY}'><echo xmlns='${ECHO}'/></iq>`,
    ];
    for (const text of unregistered) {
      expect(await reply(text)).toBe(
        `<iq id='1' type='error' from='${GATEWAY}' to='bob@server.example/desk'>${UNAVAILABLE}</iq>`,
      );
    }
  });

  it('answers results, errors and IQs without a usable sender with nothing, and a broken IQ with bad-request', async () => {
    const silent = [
      `<iq type='result' id='1' from='bob@server.example/desk'/>`,
      `<iq type='error' id='1' from='bob@server.example/desk'><error type='cancel'><item-not-found xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>`,
      `<iq type='get' id='1'><echo xmlns='${ECHO}'/></iq>`,
      `<iq type='get' id='1' from='@@'><echo xmlns='${ECHO}'/></iq>`,
      `<iq type='get' from='bob@server.example/desk'><echo xmlns='${ECHO}'/></iq>`,
    ];
    for (const text of silent) expect(await reply(text)).toBeUndefined();
    expect(await reply(`<iq type='get' id='2' from='bob@server.example/desk'/>`)).toBe(
      `<iq id='2' type='error' to='bob@server.example/desk'><error type='modify'><bad-request xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>`,
    );
  });
  it('answers a request whose handler throws with internal-server-error, and reports only the error class', async () => {
    const failures: string[] = [];
    const table = new IqTable([
      {
        type: 'get',
        ns: ECHO,
        element: 'echo',
        handle: () => {
          throw new RangeError('a payload the log must not see');
        },
      },
    ]);
    const answer = await reply(
      `<iq type='get' id='7' from='bob@server.example/desk' to='${GATEWAY}'><echo xmlns='${ECHO}'/></iq>`,
      { gatewayJid: GATEWAY, table, onHandlerError: (name) => failures.push(name) },
    );
    expect(answer).toBe(
      `<iq id='7' type='error' from='${GATEWAY}' to='bob@server.example/desk'><error type='wait'><internal-server-error xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>`,
    );
    expect(failures).toEqual(['RangeError']);
  });
});

describe('IqTable', () => {
  it('refuses two handlers for one key', () => {
    const handle = () => ({ ok: false, fault: FAULT.badRequest }) as const;
    expect(
      () =>
        new IqTable([
          { type: 'get', ns: ECHO, element: 'echo', handle },
          { type: 'get', ns: ECHO, element: 'echo', handle },
        ]),
    ).toThrow(`two IQ handlers for iq-get/{${ECHO}}echo`);
  });

  it("holds the gateway's rows: discovery under both types, ping get, admin by operation, tasks under both types", () => {
    // Building the table touches none of the dependencies; only the handlers would.
    const unused = {} as unknown;
    const { table } = iqRouterOf({
      gatewayJid: GATEWAY,
      catalog: unused as Catalog,
      settings: unused as DiscoverySettings,
      provisioning: unused as Provisioning,
      selfRegistration: true,
      rateLimiter: unused as RateLimiter<RateLimitedOperation>,
      tasks: unused as TaskRouting,
    });
    const both = (ns: string, element: string) => [`iq-get/{${ns}}${element}`, `iq-set/{${ns}}${element}`];
    expect(table.keys().sort()).toEqual(
      [
        ...both(NS.discoInfo, 'query'),
        ...both(NS.discoItems, 'query'),
        ...both(NS.search, 'query'),
        ...both(NS_AGENT_API, 'manifest-request'),
        ...both(NS_AGENT_API, 'schema-request'),
        `iq-get/{${NS.ping}}ping`,
        `iq-set/{${NS_AGENT_API}}register`,
        `iq-set/{${NS_AGENT_API}}activate`,
        `iq-set/{${NS_AGENT_API}}deactivate`,
        `iq-get/{${NS_AGENT_API}}registration-status`,
        `iq-set/{${NS_AGENT_API}}remove-version`,
        `iq-set/{${NS_AGENT_API}}remove-endpoint`,
        ...both(NS_AGENT_TASK, 'invoke'),
        ...both(NS_AGENT_TASK, 'cancel'),
        ...both(NS_AGENT_TASK, 'provide-input'),
        ...both(NS_AGENT_TASK, 'task-state-request'),
        ...both(NS_AGENT_TASK, 'task-result-request'),
      ].sort(),
    );
  });
});
