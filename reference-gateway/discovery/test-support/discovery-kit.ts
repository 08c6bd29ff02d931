/**
 * Shared material for the discovery tests: default settings, a way to send an XML payload
 * through the dispatcher as a given requester, and accessors that fail loudly when the outcome
 * is not the kind the test expects. Faults are compared as the serialized <error/> bytes the
 * wiring would send (interp-19).
 */
import type { Element } from '@xmpp/xml';
import { expect } from 'vitest';
import { parseXml, serialize } from '../../../protocol/stanza/index.ts';
import type { Catalog } from '../../catalog/catalog.ts';
import { respondToDiscovery } from '../dispatcher.ts';
import { faultElement, type StanzaFault } from '../../iq/faults.ts';
import type { Outcome } from '../../iq/outcome.ts';
import { checkDiscoverySettings } from '../settings.ts';
import type { DiscoverySettings } from '../settings.ts';
import { requester } from './memory-catalog.ts';

export const GATEWAY = 'agents.example';
export const JULIET = 'juliet@example.net/phone';

export const SETTINGS: DiscoverySettings = checkDiscoverySettings({
  gatewayJid: GATEWAY,
  gatewayName: 'Example Agent Gateway',
  pageMaximum: 50,
  searchEnabled: true,
  gatewayFeatures: { admin: true, selfRegister: false, ping: true },
  taskFeatures: { core: true, progress: true, cancel: true, input: false },
  coldStartSupported: true,
  requestReplaySeconds: 86400,
});

export function withSettings(overrides: Partial<DiscoverySettings>): DiscoverySettings {
  return checkDiscoverySettings({ ...SETTINGS, ...overrides });
}

export interface Ask {
  readonly to: string;
  readonly xml: string;
  readonly from?: string;
  readonly iqType?: 'get' | 'set';
  readonly settings?: DiscoverySettings;
}

export function ask(catalog: Catalog, request: Ask): Outcome {
  const outcome = respondToDiscovery(
    {
      iqType: request.iqType ?? 'get',
      to: request.to,
      requester: requester(request.from ?? JULIET),
      payload: parseXml(request.xml),
    },
    catalog,
    request.settings ?? SETTINGS,
  );
  if (outcome === undefined) throw new Error('the dispatcher did not take the payload');
  return outcome;
}

export function resultOf(outcome: Outcome): Element {
  if (!outcome.ok) throw new Error(`expected a result, got <${outcome.fault.condition}/>`);
  return outcome.payload;
}

/** The result as XML text, so it also passes the serializer's checks. */
export function resultText(outcome: Outcome): string {
  return serialize(resultOf(outcome));
}

export function faultOf(outcome: Outcome): StanzaFault {
  if (outcome.ok) throw new Error(`expected a fault, got ${serialize(outcome.payload)}`);
  return outcome.fault;
}

/** The <error/> bytes the wiring sends for this outcome. */
export function faultBytes(outcome: Outcome): string {
  return serialize(faultElement(faultOf(outcome)));
}

export function expectFault(outcome: Outcome, condition: StanzaFault['condition']): void {
  expect(faultOf(outcome).condition).toBe(condition);
}

/** Every outcome is the same fault, byte for byte. */
export function expectIdenticalFaults(
  outcomes: readonly Outcome[],
  condition: StanzaFault['condition'],
): void {
  const [first, ...rest] = outcomes.map(faultBytes);
  expect(first).toContain(`<${condition} `);
  for (const other of rest) expect(other).toBe(first);
}

export const discoInfo = (node?: string): string =>
  `<query xmlns='http://jabber.org/protocol/disco#info'${node === undefined ? '' : ` node='${node}'`}/>`;

export const discoItems = (node?: string, rsm = ''): string =>
  `<query xmlns='http://jabber.org/protocol/disco#items'${node === undefined ? '' : ` node='${node}'`}>${rsm}</query>`;

/** An RSM request <set/> from its children's XML. */
export const rsmSet = (children: string): string =>
  `<set xmlns='http://jabber.org/protocol/rsm'>${children}</set>`;
