/**
 * #i18n: "Implementations MUST NOT use locale-dependent matching for authorization, JID
 * comparison, tool names, versions, hashes, request IDs, or task IDs." The trap is the Turkish
 * I: under tr_TR, locale-aware lower-casing turns "I" into dotless "ı" and a locale collation at
 * base strength pairs "I" with "ı" and "i" with "İ", so JID case mapping done that way misses
 * and a case-insensitive name or version comparison done that way confuses different names.
 *
 * The case sends its vectors whatever the locale; a failure is a failure anywhere. Passing only
 * means something when the gateway runs under a locale whose case rules differ from the root
 * locale's (Turkish, Azerbaijani): the harness starts it so when the SUT file's launch.env sets
 * LC_ALL (harness/sut/sut-locale.ts, where Node's behaviour under it is measured); otherwise the
 * case cannot tell. Search is not among the vectors: #i18n asks search matching for
 * locale-appropriate case handling.
 */
import { canonicalDocument } from '../../../protocol/json/canonical.ts';
import type { JsonObject } from '../../../protocol/json/json-value.ts';
import { parseBareJid } from '../../../protocol/jid/index.ts';
import { FORM_TYPE, NS_AGENT_API } from '../../../protocol/namespaces.ts';
import { parseRegistration } from '../../../protocol/stanza/index.ts';
import { decodeToolNode, encodeCollectionNode, encodeToolNode } from '../../../protocol/tool-node.ts';
import { defineSuite } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  expectDiscoInfo,
  expectExtensionForm,
  expectParsedResult,
  expectThat,
  formText,
  requirePositiveControl,
} from '../../framework/expect.ts';
import { discoverableRegistrant } from '../support/canary-listener.ts';
import { discoInfo, listing, traverse } from '../support/discovery.ts';
import { probeManifest } from '../support/manifests.ts';
import {
  expectRegistration,
  freshVersion,
  hasAdmin,
  withRestore,
  type Registrant,
} from '../support/provisioning.ts';
import { requireTurkishLocale } from './turkish-locale.ts';
import { identifierMatchingCases } from './identifier-matching.ts';
import { wireMatchingCases } from './wire-matching.ts';

/** Four distinct tool names that a Turkish locale folds together in pairs (I/ı and i/İ). */
const TURKISH_NAMES = ['i18n.I', 'i18n.i', 'i18n.\u0130', 'i18n.\u0131'] as const;

function manifestFor(jid: string, version: string, description: string): JsonObject {
  return {
    ...probeManifest(jid, version, { type: 'object' }),
    tools: TURKISH_NAMES.map((name) => ({ name, description, inputSchema: { type: 'object' } })),
  };
}

/** The JID with its ASCII letters upper-cased: the same endpoint after RFC 7622 case mapping. */
function shouted(jid: string): string {
  const { localpart, domainpart } = parseBareJid(jid);
  return `${(localpart ?? '').replace(/[a-z]/g, (letter) => letter.toUpperCase())}@${domainpart}`;
}

/**
 * With an administrator: registration-status and activate name the endpoint with "I" where it
 * has "i", and the activated version lists and answers its four tools, each by its exact name.
 */
async function expectJidsAndNamesMatched(
  context: CaseContext,
  registrant: Registrant,
  versions: readonly { readonly version: string; readonly manifest: JsonObject }[],
): Promise<void> {
  const upper = shouted(registrant.jid);
  const status = await registrant.provisioning.status(upper);
  const registration = expectParsedResult(
    status,
    'namespaces.jid-comparison',
    NS_AGENT_API,
    'registration',
    parseRegistration,
  );
  const listed = registration.versions.map((entry) => entry.id);
  expectThat(
    status.reply.xml,
    'i18n.locale-independent-matching',
    `registration-status for ${upper} — the same endpoint as ${registrant.jid} (RFC 7622 maps I to i whatever the locale) — listing ${versions.map(({ version }) => version).join(' and ')}`,
    versions.every(({ version }) => listed.includes(version)),
  );
  const [first] = versions;
  if (first === undefined) return;
  requirePositiveControl(
    await registrant.provisioning.activate(
      registrant.jid,
      first.version,
      canonicalDocument(first.manifest).hash,
    ),
    `activating ${registrant.jid} ${first.version}`,
  );
  const caller = await context.callers.local();
  const { items } = await traverse(
    caller,
    registrant.jid,
    encodeCollectionNode(first.version),
    10,
    'i18n.locale-independent-matching',
  );
  const names = items.map((item) => (item.node === undefined ? '' : decodeToolNode(item.node).toolName));
  expectThat(
    listing(names),
    'i18n.locale-independent-matching',
    `the four tools, each once: ${TURKISH_NAMES.join(', ')}`,
    names.length === TURKISH_NAMES.length && TURKISH_NAMES.every((name) => names.includes(name)),
  );
  for (const name of TURKISH_NAMES) {
    const exchange = await discoInfo(caller, registrant.jid, encodeToolNode(first.version, name));
    const form = expectExtensionForm(
      expectDiscoInfo(exchange, 'i18n.locale-independent-matching'),
      'i18n.locale-independent-matching',
      FORM_TYPE.toolInfo,
      exchange.reply.xml,
    );
    expectThat(
      exchange.reply.xml,
      'i18n.locale-independent-matching',
      `the tool ${JSON.stringify(name)} itself, not one its locale folds it with`,
      formText(form, 'name') === name,
    );
  }
}

export const i18nSuite = defineSuite('i18n', 'Internationalization Considerations', { alongside: true }, [
  {
    id: 'i18n.locale-independent-matching',
    requirements: ['i18n.locale-independent-matching', 'namespaces.jid-comparison'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-15', 'interp-25'],
    statement:
      'Under a Turkish locale the gateway still matches exactly: a manifest with the tools i18n.I, i18n.i, i18n.İ and i18n.ı registers (four names, no duplicate), versions ending -I and -i of one endpoint are two versions, and — with an administrator — registration-status and activate for the endpoint’s JID written with I find the one written with i, whose collection lists and answers the four tools by their exact names.',
    run: (context) =>
      withRestore(context, async (restorer) => {
        // An administrator's endpoint localpart carries an i (agentconf-i18n-…); a self-registrant's may not.
        const registrant = await discoverableRegistrant(context, 'i18n');
        const base = freshVersion(context);
        const versions = (['I', 'i'] as const).map((letter) => {
          const version = `${base}-${letter}`;
          return {
            version,
            manifest: manifestFor(registrant.jid, version, `The version ending in ${letter}.`),
          };
        });
        for (const { manifest } of versions) {
          // Four tool names, and a version, that differ from others only in I/i/İ/ı.
          await expectRegistration(restorer, registrant, manifest, 'i18n.locale-independent-matching');
        }
        if (registrant.kind === 'admin' && hasAdmin(context) && context.sut.profiles.has('tool-discovery')) {
          if (!(parseBareJid(registrant.jid).localpart ?? '').includes('i')) {
            throw new Error(`the fresh endpoint ${registrant.jid} needs an i in its localpart`);
          }
          await expectJidsAndNamesMatched(context, registrant, versions);
        }
        requireTurkishLocale(context);
      }),
  },
  ...wireMatchingCases,
  ...identifierMatchingCases,
]);
