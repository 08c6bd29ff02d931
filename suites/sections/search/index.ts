/**
 * #search, the Jabber Search Compatibility profile: XEP-0055 at the gateway JID, advertised; the
 * legacy <nick/> field and the XEP-0004 form with its hidden FORM_TYPE; nick matching that
 * ignores case (beyond ASCII); results in octet order of the bare JIDs, which are the RSM IDs,
 * with the RSM set outside the form; and the directory's visibility applied unchanged — counts
 * of visible matches only, hidden endpoints never revealed, not even by an RSM UID.
 *
 * Which fields nick matches is the deployment's choice among localpart, name and title, and
 * whether it matches substrings too: a case expects an endpoint to be found only by a nick
 * equal to one of those fields, and tries them all. An empty query may list everything visible,
 * nothing, or be refused (interp-18). The gateway's own `tag` field is beyond the spec: it is
 * tested only when the form offers it, and then only for visibility.
 */
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import { compareUtf8, normalizeBareJid, parseBareJid } from '../../../protocol/jid/index.ts';
import { FEATURE, FORM_TYPE, NODE_DIRECTORY, NS, NS_AGENT_API } from '../../../protocol/namespaces.ts';
import { isJsonObject } from '../../../protocol/json/json-value.ts';
import type { DiscoItem, RsmRequest } from '../../../protocol/stanza/index.ts';
import { defineSuite } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  expectDiscoInfo,
  expectFeatures,
  expectIndistinguishable,
  expectStanzaError,
  expectThat,
  formField,
  requirePositiveControl,
  type ComparedReply,
} from '../../framework/expect.ts';
import { CannotTell, MissingFixture, NotApplicable, RequirementViolation } from '../../framework/verdicts.ts';
import {
  requireWorld,
  type CallerRole,
  type FixtureEndpoint,
  type ReferenceWorld,
} from '../../fixtures/reference-world.ts';
import {
  callerFor,
  discoInfo,
  listing,
  orderIsUnambiguous,
  positionOf,
  roleThatMaySee,
  traverse,
} from '../support/discovery.ts';
import { minimalManifest } from '../support/manifests.ts';
import { adminFor, freshToken, freshVersion, provisionActive, withRestore } from '../support/provisioning.ts';
import {
  formOffers,
  readFound,
  searchForm,
  searchLegacy,
  searchWithForm,
  traverseSearch,
  type Found,
} from '../support/search.ts';
import { judgeTiming, measureTiming, TIMING_CASE_TIMEOUT_MS } from '../support/timing.ts';
import { sharedNameResults } from './shared-name.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';
import { rsmPropertyCases } from './rsm-properties.ts';
import { modelCases } from './model-checks.ts';

const ROLES: readonly CallerRole[] = ['local', 'remote', 'remotePeer', 'denied'];

/** The fields nick may be matched against (#search): localpart, stable name, display title. */
function namesOf(endpoint: FixtureEndpoint): string[] {
  const manifest = endpoint.active ?? endpoint.versions[0];
  const localpart = parseBareJid(endpoint.jid).localpart ?? '';
  return [...new Set([localpart, manifest?.name ?? '', manifest?.title ?? ''])].filter((name) => name !== '');
}

/** What a directory item offers to search for: its JID's localpart and its name. */
function namesOfItem(item: DiscoItem): string[] {
  const localpart = parseBareJid(item.jid).localpart ?? '';
  return [...new Set([localpart, item.name ?? ''])].filter((name) => name !== '');
}

/**
 * A nick of `length` lower-case letters that no endpoint's localpart, name or title contains: the
 * nonexistent twin of a hidden endpoint's name, as long as it so that the two searches differ in
 * nothing but what they match.
 */
function nonexistentNickOfLength(context: CaseContext, world: ReferenceWorld, length: number): string {
  const names = world.endpoints.flatMap(namesOf).map((name) => name.toLocaleLowerCase('und'));
  for (;;) {
    const nick = context.random.string('abcdefghijklmnopqrstuvwxyz', length);
    if (!names.some((name) => name.includes(nick)) && !names.some((name) => nick.includes(name))) return nick;
  }
}

/** Default and --deep rounds of search.not-found-timing (docs/timing.md). */
const SEARCH_TIMING = { rounds: 120, deepRounds: 5000 } as const;

/** A nick no endpoint's localpart, name or title contains. */
function nonexistentNick(context: CaseContext): string {
  return `agentconfnone${freshToken(context)}`;
}

/**
 * A directory item the local caller sees whose localpart is plain lower-case ASCII, so case
 * variants of it are unambiguous; picked with the case's random source.
 */
async function directoryTarget(
  context: CaseContext,
  caller: Caller,
  requirement: RequirementId,
): Promise<DiscoItem> {
  const { items } = await traverse(caller, context.sut.gatewayJid, NODE_DIRECTORY, 50, requirement);
  const plain = items.filter((item) => /^[a-z][a-z0-9]*$/.test(parseBareJid(item.jid).localpart ?? ''));
  if (plain.length === 0) {
    throw new MissingFixture(
      'the local directory lists no endpoint with a plain lower-case ASCII localpart: give the local caller one to search for',
    );
  }
  return context.random.pick(plain);
}

/** Searches each nick in turn; returns the first result that found `jid`, if any. */
async function findBy(
  nicks: readonly string[],
  search: (nick: string) => Promise<IqExchange>,
  jid: string,
  requirement: RequirementId,
  check: (found: Found) => void = () => undefined,
): Promise<{ readonly found?: Found; readonly tried: readonly Found[] }> {
  const tried: Found[] = [];
  for (const nick of nicks) {
    const found = readFound(await search(nick), requirement);
    check(found);
    tried.push(found);
    if (found.jids.some((item) => normalizeBareJid(item) === normalizeBareJid(jid))) return { found, tried };
  }
  return { tried };
}

function describeTried(nicks: readonly string[], tried: readonly Found[]): string {
  return tried
    .map((found, index) => `nick ${JSON.stringify(nicks[index])}:\n${found.exchange.reply.xml}`)
    .join('\n');
}

/**
 * The empty query, traversed `max` at a time, by legacy submission; undefined when the gateway
 * lists nothing for it or refuses it (interp-18).
 */
async function emptyQueryListing(
  context: CaseContext,
  caller: Caller,
  max: number,
  requirement: RequirementId,
): Promise<{ readonly pages: readonly Found[]; readonly jids: readonly string[] } | undefined> {
  const gateway = context.sut.gatewayJid;
  const probe = await searchLegacy(caller, gateway, {}, { max });
  if (probe.parsed.type === 'error') {
    expectStanzaError(probe, requirement, 'not-acceptable', context);
    return undefined;
  }
  // The probe is the first page: the traversal starts from it.
  let firstPage: IqExchange | undefined = probe;
  const submit = (rsm: RsmRequest): Promise<IqExchange> => {
    const page = firstPage;
    firstPage = undefined;
    return page === undefined ? searchLegacy(caller, gateway, {}, rsm) : Promise.resolve(page);
  };
  const traversal = await traverseSearch(submit, max, requirement);
  return traversal.jids.length === 0 ? undefined : traversal;
}

/**
 * Pages a result set forward and expects ascending octet order of the normalized bare JIDs
 * across it, and each page's <first/> and <last/> exactly its first and last item.
 */
async function expectOctetOrderedPages(
  context: CaseContext,
  submit: (rsm: RsmRequest) => Promise<IqExchange>,
  max: number,
): Promise<void> {
  const { pages, jids } = await traverseSearch(submit, max, 'search.octet-order');
  const normalized = jids.map((jid) => normalizeBareJid(jid));
  const ascending = normalized.every(
    (jid, index) => index === 0 || compareUtf8(normalized[index - 1] ?? '', jid) < 0,
  );
  if (!ascending) {
    if (!normalized.every(orderIsUnambiguous)) {
      context.warn(
        'search.octet-order',
        `non-ASCII JIDs out of octet order: ${normalized.join(', ')} (interp-15)`,
      );
    } else {
      throw new RequirementViolation(
        'search.octet-order',
        listing(normalized.toSorted(compareUtf8)),
        listing(jids),
      );
    }
  }
  for (const { results, jids: items, exchange } of pages) {
    if (items.length === 0) continue;
    expectThat(
      exchange.reply.xml,
      'search.octet-order',
      '<first/> and <last/> that are exactly the JIDs of the page’s first and last items',
      results.rsm?.first?.uid === items[0] && results.rsm?.last === items.at(-1),
    );
  }
}

/** The endpoints a role may see, with deactivated ones a listing may show with a warning (interp-23). */
function expectVisibleListing(
  jids: readonly string[],
  requirement: RequirementId,
  world: ReferenceWorld,
  role: CallerRole,
  exact: boolean,
  context: CaseContext,
): void {
  const listed = world.listedFor(role).map((endpoint) => endpoint.jid);
  const tolerated = world.toleratedFor(role).map((endpoint) => endpoint.jid);
  const received = jids.map((jid) => normalizeBareJid(jid));
  const unseen = received.filter((jid) => !listed.includes(jid) && !tolerated.includes(jid));
  const missing = exact ? listed.filter((jid) => !received.includes(jid)) : [];
  expectThat(
    listing(jids),
    requirement,
    `${exact ? 'exactly' : 'only'} what the ${role} caller (${world.jidOf(role)}) may see:\n${listing(listed)}`,
    unseen.length === 0 && missing.length === 0,
  );
  const inactive = received.filter((jid) => tolerated.includes(jid));
  if (inactive.length > 0) {
    context.warn(requirement, `search shows deactivated endpoints: ${inactive.join(', ')} (interp-23)`);
  }
}

/** The tags the fixture world's active manifests give their tools (the gateway's own `tag` field). */
function toolTags(endpoint: FixtureEndpoint): string[] {
  const tags = new Set<string>();
  const tools = endpoint.active?.value['tools'];
  for (const tool of Array.isArray(tools) ? tools : []) {
    if (!isJsonObject(tool)) continue;
    const extension = tool[NS_AGENT_API];
    const declared = isJsonObject(extension) ? extension['tags'] : undefined;
    if (Array.isArray(declared)) for (const tag of declared) if (typeof tag === 'string') tags.add(tag);
  }
  return [...tags];
}

/** The lower-case words of a name: what a word-matching search compares. */
function wordsOf(name: string): string[] {
  return name
    .toLocaleLowerCase('und')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
}

/**
 * Search terms that name an endpoint `role` may not see and could not find one it may see,
 * however the deployment matches (whole names, substrings or words): no visible name contains
 * the term, and the term shares no word with a visible name.
 */
function unseenTerms(world: ReferenceWorld, role: CallerRole, endpoint: FixtureEndpoint): string[] {
  const visibleNames = [...world.listedFor(role), ...world.toleratedFor(role)].flatMap(namesOf);
  const visibleWords = new Set(visibleNames.flatMap(wordsOf));
  return namesOf(endpoint).filter(
    (term) =>
      !visibleNames.some((name) => name.toLocaleLowerCase('und').includes(term.toLocaleLowerCase('und'))) &&
      !wordsOf(term).some((word) => visibleWords.has(word)),
  );
}

/** Pages after/before a UID outside the visible set must not tell a hidden JID from a missing one (interp-13). */
async function expectSameGapSearchPaging(
  context: CaseContext,
  caller: Caller,
  full: readonly string[],
  keys: readonly (readonly [label: string, jid: string])[],
): Promise<void> {
  for (const direction of ['after', 'before'] as const) {
    const replies: ComparedReply[] = [];
    for (const [label, key] of keys) {
      const rsm: RsmRequest = direction === 'after' ? { max: 2, after: key } : { max: 2, before: key };
      const exchange = await searchLegacy(caller, context.sut.gatewayJid, {}, rsm);
      replies.push({ label: `${direction} ${label}`, exchange, to: context.sut.gatewayJid });
      if (exchange.parsed.type === 'error') {
        expectStanzaError(exchange, 'search.hidden-not-revealed', 'item-not-found', context);
        context.warn(
          'search.hidden-not-revealed',
          `a UID outside the visible set (${direction} ${key}) gets item-not-found (interp-13)`,
        );
        continue;
      }
      const received = readFound(exchange, 'search.hidden-not-revealed').jids.map((jid) =>
        normalizeBareJid(jid),
      );
      const position = positionOf(full, key);
      const rest = direction === 'after' ? full.slice(position) : full.slice(0, position);
      const fits =
        direction === 'after'
          ? received.every((jid, index) => jid === rest[index])
          : received.every((jid, index) => jid === rest[rest.length - received.length + index]);
      expectThat(
        exchange.reply.xml,
        'search.hidden-not-revealed',
        `the visible matches ${direction} ${key} in octet order:\n${listing(rest)}`,
        fits && (rest.length === 0 || received.length > 0),
      );
    }
    const [first, second, ...others] = replies;
    if (first !== undefined && second !== undefined) {
      expectIndistinguishable([first, second, ...others], 'search.hidden-not-revealed', context);
    }
  }
}

export const searchSuite = defineSuite('search', 'Agent Directory Search', { alongside: true }, [
  {
    id: 'search.advertised-and-paged',
    requirements: ['search.advertised-and-implemented'],
    profiles: ['jabber-search'],
    level: 'MUST',
    interpretations: ['interp-14', 'interp-18'],
    statement:
      'The gateway advertises jabber:iq:search, answers a search form request at its own JID, and pages a submission with RSM: at most <max/> items and a <set/> whose <last/> is the last one.',
    run: async (context) => {
      const caller = await context.callers.local();
      const gateway = context.sut.gatewayJid;
      const infoExchange = await discoInfo(caller, gateway);
      expectFeatures(
        expectDiscoInfo(infoExchange, 'search.advertised-and-implemented'),
        'search.advertised-and-implemented',
        [NS.search],
        infoExchange.reply.xml,
      );
      await searchForm(caller, gateway, 'search.advertised-and-implemented');
      const empty = await searchLegacy(caller, gateway, {}, { max: 1 });
      let found =
        empty.parsed.type === 'result' ? readFound(empty, 'search.advertised-and-implemented') : undefined;
      if (found === undefined || found.jids.length === 0) {
        const target = await directoryTarget(context, caller, 'search.advertised-and-implemented');
        const nicks = namesOfItem(target);
        const result = await findBy(
          nicks,
          (nick) => searchLegacy(caller, gateway, { nick }, { max: 1 }),
          target.jid,
          'search.advertised-and-implemented',
        );
        found = result.found;
        if (found === undefined) {
          throw new CannotTell(
            `neither an empty search nor the names of ${target.jid} found anything to page (search.legacy-nick says why)`,
          );
        }
      }
      const { rsm } = found.results;
      expectThat(
        found.exchange.reply.xml,
        'search.advertised-and-implemented',
        'one item (max 1) and an RSM <set/> whose <last/> is its JID',
        found.jids.length === 1 && rsm?.last !== undefined && rsm.last === found.jids[0],
      );
    },
  },
  {
    id: 'search.form-type',
    requirements: ['search.form-type'],
    profiles: ['jabber-search'],
    level: 'MUST',
    features: [NS.search],
    interpretations: ['interp-18'],
    statement:
      'The search data form carries a hidden FORM_TYPE field with the value jabber:iq:search; a submission without it is either read as the search form (XEP-0004 lets a submission omit fields) or refused with bad-request or not-acceptable (interp-18).',
    run: async (context) => {
      const caller = await context.callers.local();
      const { exchange, offer } = await searchForm(caller, context.sut.gatewayJid, 'search.form-type');
      if (offer.form === undefined) {
        throw new NotApplicable(
          'the search form offers no data form, only legacy fields (search.data-forms warns)',
        );
      }
      const formType = formField(offer.form, 'FORM_TYPE');
      expectThat(
        exchange.reply.xml,
        'search.form-type',
        `<x type='form'> with <field var='FORM_TYPE' type='hidden'><value>${FORM_TYPE.search}</value></field>`,
        offer.form.type === 'form' &&
          formType?.type === 'hidden' &&
          formType.values.length === 1 &&
          formType.values[0] === FORM_TYPE.search,
      );
      const nick = formOffers(offer, 'nick') ? { nick: 'agentconf' } : {};
      const bare = await searchWithForm(caller, context.sut.gatewayJid, nick, undefined, { formType: false });
      // Either reading is allowed; a result must still be a search result (readFound checks it).
      if (bare.parsed.type === 'result') readFound(bare, 'search.form-type');
      else expectStanzaError(bare, 'search.form-type', ['bad-request', 'not-acceptable'], context);
    },
  },
  {
    id: 'search.legacy-nick',
    requirements: ['search.legacy-nick'],
    profiles: ['jabber-search'],
    level: 'MUST',
    features: [NS.search],
    interpretations: ['interp-18'],
    statement:
      'The search form offers the legacy <nick/>, and a legacy nick submission naming a listed endpoint (by its localpart or name) finds it, answered with legacy items, not a form.',
    run: async (context) => {
      const caller = await context.callers.local();
      const gateway = context.sut.gatewayJid;
      const { exchange, offer } = await searchForm(caller, gateway, 'search.legacy-nick');
      expectThat(
        exchange.reply.xml,
        'search.legacy-nick',
        'an empty <nick/> in the search form',
        offer.legacyFields.includes('nick'),
      );
      const target = await directoryTarget(context, caller, 'search.legacy-nick');
      const nicks = namesOfItem(target);
      const { found, tried } = await findBy(
        nicks,
        (nick) => searchLegacy(caller, gateway, { nick }),
        target.jid,
        'search.legacy-nick',
        (result) => {
          expectThat(
            result.exchange.reply.xml,
            'search.legacy-nick',
            'legacy <item/>s (or none) for a legacy submission',
            result.results.kind !== 'form',
          );
        },
      );
      expectThat(
        describeTried(nicks, tried),
        'search.legacy-nick',
        `${target.jid} among the items for a nick equal to its localpart or name (${nicks.join(', ')})`,
        found !== undefined,
      );
    },
  },
  {
    id: 'search.data-form-submission',
    requirements: ['search.data-forms'],
    profiles: ['jabber-search'],
    level: 'SHOULD',
    features: [NS.search],
    interpretations: ['interp-18'],
    statement:
      'Search also works through the XEP-0004 form: a nick submitted in the form finds a listed endpoint, answered with a result form of <reported/> and <item/>s.',
    run: async (context) => {
      const caller = await context.callers.local();
      const gateway = context.sut.gatewayJid;
      const { exchange, offer } = await searchForm(caller, gateway, 'search.data-forms');
      expectThat(
        exchange.reply.xml,
        'search.data-forms',
        'a data form with a nick field',
        offer.form !== undefined && formOffers(offer, 'nick'),
      );
      const target = await directoryTarget(context, caller, 'search.data-forms');
      const nicks = namesOfItem(target);
      const { found, tried } = await findBy(
        nicks,
        (nick) => searchWithForm(caller, gateway, { nick }),
        target.jid,
        'search.data-forms',
      );
      expectThat(
        describeTried(nicks, tried),
        'search.data-forms',
        `a result form listing ${target.jid} for a nick equal to its localpart or name (${nicks.join(', ')})`,
        found?.results.kind === 'form',
      );
      if (found?.results.kind === 'form') {
        const { form } = found.results;
        if (form.title !== undefined || form.instructions.length > 0) {
          context.warn('search.data-forms', 'the result form carries a title or instructions (interp-18)');
        }
      }
    },
  },
  {
    id: 'search.data-form-unknown-field-ignored',
    requirements: ['search.data-forms'],
    profiles: ['jabber-search'],
    level: 'SHOULD',
    features: [NS.search],
    interpretations: ['interp-18'],
    statement:
      'A form submission carrying a field the gateway does not understand is answered as if the field were absent (XEP-0004 §3.1: the form-processing entity MUST ignore such fields), as clients such as slixmpp send.',
    run: async (context) => {
      const caller = await context.callers.local();
      const gateway = context.sut.gatewayJid;
      const { offer } = await searchForm(caller, gateway, 'search.data-forms');
      if (offer.form === undefined) {
        throw new NotApplicable(
          'the search form offers no data form, only legacy fields (search.data-forms warns)',
        );
      }
      const target = await directoryTarget(context, caller, 'search.data-forms');
      const criteria = formOffers(offer, 'nick') ? { nick: namesOfItem(target)[0] ?? target.jid } : {};
      const control = await searchWithForm(caller, gateway, criteria);
      requirePositiveControl(control, 'the form submission without the extra field');
      const plain = readFound(control, 'search.data-forms');
      const unknownField = `x-agentconf-${freshToken(context)}`;
      const extended = await searchWithForm(caller, gateway, { ...criteria, [unknownField]: 'ignored' });
      expectThat(
        extended.reply.xml,
        'search.data-forms',
        `the same items as without the field ${unknownField} (${plain.jids.join(', ') || 'none'})`,
        extended.parsed.type === 'result' &&
          readFound(extended, 'search.data-forms').jids.join(' ') === plain.jids.join(' '),
      );
    },
  },
  {
    id: 'search.case-insensitive',
    requirements: ['search.case-insensitive'],
    profiles: ['jabber-search'],
    level: 'SHOULD',
    features: [NS.search],
    statement: 'A nick in other letter case than the endpoint’s localpart or name still finds it.',
    run: async (context) => {
      const caller = await context.callers.local();
      const gateway = context.sut.gatewayJid;
      const target = await directoryTarget(context, caller, 'search.case-insensitive');
      // Names here are ASCII (directoryTarget) or plain words: per-character case swapping is safe.
      const swap = (text: string): string =>
        text.replace(/\p{L}/gu, (c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()));
      const nicks = namesOfItem(target).map(swap);
      const { found, tried } = await findBy(
        nicks,
        (nick) => searchLegacy(caller, gateway, { nick }),
        target.jid,
        'search.case-insensitive',
      );
      expectThat(
        describeTried(nicks, tried),
        'search.case-insensitive',
        `${target.jid} found by a nick in swapped case (${nicks.join(', ')})`,
        found !== undefined,
      );
    },
  },
  {
    id: 'search.case-insensitive-unicode',
    requirements: ['search.case-insensitive'],
    profiles: ['jabber-search'],
    level: 'SHOULD',
    features: [NS.search, FEATURE.admin],
    statement:
      'Case is ignored beyond ASCII and whatever the process locale: an endpoint whose localpart, name and title spell “agentconf-été-iv-…” (the title as “AGENTCONF-ÉTÉ-iv-…”) is found by “Agentconf-Été-IV-…”: a Turkish-locale lowercase would make that I a dotless ı (the endpoint is provisioned for the case and removed after it).',
    run: async (context) =>
      withRestore(context, async (restorer) => {
        const admin = await adminFor(context);
        const token = freshToken(context);
        const base = `agentconf-été-iv-${token}`;
        const jid = `${base}@${context.sut.gatewayJid}`;
        const version = freshVersion(context);
        const manifest = {
          ...minimalManifest(jid, version, base),
          // Upper case but for the "iv", so that no text of the endpoint has a capital I: the
          // nick's "IV" then matches only where I folds to i, whatever the process locale.
          agent: { jid, name: base, title: `AGENTCONF-ÉTÉ-iv-${token}`, version },
        };
        await provisionActive(restorer, admin, jid, version, manifest);
        const caller = await context.callers.local();
        if ((await discoInfo(caller, jid)).parsed.type === 'error') {
          throw new MissingFixture(
            `the local caller may not see the provisioned ${jid}: the deployment must show endpoints the administrator provisions to local callers for this case to search`,
          );
        }
        const nick = `Agentconf-Été-IV-${token.charAt(0).toUpperCase()}${token.slice(1)}`;
        const found = readFound(
          await searchLegacy(caller, context.sut.gatewayJid, { nick }),
          'search.case-insensitive',
        );
        expectThat(
          found.exchange.reply.xml,
          'search.case-insensitive',
          `${jid} found by the nick ${JSON.stringify(nick)}`,
          found.jids.some((item) => normalizeBareJid(item) === normalizeBareJid(jid)),
        );
      }),
  },
  {
    id: 'search.octet-order',
    // Where an empty search lists nothing (#search allows it), it provisions endpoints that share
    // a name, as the administrator: never beside read-only cases.
    alongside: false,
    requirements: ['search.octet-order', 'namespaces.jid-comparison'],
    profiles: ['jabber-search'],
    level: 'MUST',
    features: [NS.search],
    interpretations: ['interp-15', 'interp-18'],
    statement:
      'Search results page in ascending octet order of the normalized bare JIDs across the whole result set; each page’s <first/> and <last/> are exactly its first and last item’s JID, in a <set/> outside the result form.',
    run: (context) =>
      withRestore(context, async (restorer) => {
        const caller = await context.callers.local();
        const gateway = context.sut.gatewayJid;
        const max = context.random.int(1, 3);
        const { offer } = await searchForm(caller, gateway, 'search.octet-order');
        const emptyQuery = (rsm: RsmRequest): Promise<IqExchange> =>
          offer.form === undefined
            ? searchLegacy(caller, gateway, {}, rsm)
            : searchWithForm(caller, gateway, {}, rsm);
        const submit =
          (await emptyQueryListing(context, caller, 50, 'search.octet-order')) === undefined
            ? (await sharedNameResults(context, restorer, caller, 'the order of a result set cannot be seen'))
                .fetch
            : emptyQuery;
        await expectOctetOrderedPages(context, submit, max);
      }),
  },
  {
    id: 'search.visibility-filter-listing',
    requirements: ['search.visibility-filter', 'rules.uniform-visibility'],
    profiles: ['jabber-search'],
    level: 'MUST',
    features: [NS.search],
    interpretations: ['interp-14', 'interp-18', 'interp-23'],
    statement:
      'An empty search lists exactly the endpoints the directory shows each caller (local, principal-granted, domain-granted, denied) — or nothing at all — and every page’s <count/> is the number of visible matches.',
    run: async (context) => {
      const world = requireWorld(context);
      let judged = 0;
      for (const role of ROLES) {
        const caller = await callerFor(context, role);
        const listed = await emptyQueryListing(context, caller, 2, 'search.visibility-filter');
        const pages = listed?.pages ?? [];
        const jids = listed?.jids ?? [];
        if (listed !== undefined) {
          expectVisibleListing(jids, 'search.visibility-filter', world, role, true, context);
          judged += 1;
        }
        const countOnly = await searchLegacy(caller, context.sut.gatewayJid, {}, { max: 0 });
        if (countOnly.parsed.type === 'error') continue;
        for (const { results, exchange } of [...pages, readFound(countOnly, 'search.visibility-filter')]) {
          const count = results.rsm?.count;
          if (count === undefined) continue;
          expectThat(
            exchange.reply.xml,
            'search.visibility-filter',
            `<count>${String(jids.length)}</count>: the matches the ${role} caller may see`,
            count === jids.length,
          );
        }
      }
      if (judged === 0 && world.listedFor('local').length > 0) {
        context.warn(
          'search.visibility-filter',
          'an empty search lists nothing for any caller (interp-18 allows it)',
        );
      }
    },
  },
  {
    id: 'search.visibility-filter-names',
    requirements: ['search.visibility-filter', 'search.hidden-not-revealed'],
    profiles: ['jabber-search'],
    level: 'MUST',
    features: [NS.search],
    interpretations: ['interp-18', 'interp-23'],
    statement:
      'A nick equal to the localpart, name or title of an endpoint a caller may not see never finds it, for local, principal-granted, domain-granted and denied callers; whatever a search finds is visible to the caller.',
    run: async (context) => {
      const world = requireWorld(context);
      // The positive control: the local caller finds an endpoint it sees by one of its names.
      const local = await context.callers.local();
      const target = await directoryTarget(context, local, 'search.visibility-filter');
      const control = await findBy(
        namesOfItem(target),
        (nick) => searchLegacy(local, context.sut.gatewayJid, { nick }),
        target.jid,
        'search.visibility-filter',
      );
      if (control.found === undefined) {
        throw new CannotTell(
          `the positive control failed: the local caller does not find ${target.jid} by its names (${namesOfItem(target).join(', ')}), so searches that find nothing show nothing (search.legacy-nick says why)`,
        );
      }
      for (const role of ROLES) {
        const caller = await callerFor(context, role);
        const unseen = world.endpoints.filter((endpoint) => !world.maySee(role, endpoint));
        const searches = unseen.flatMap((endpoint) =>
          unseenTerms(world, role, endpoint).map((nick) => ({ endpoint, nick })),
        );
        const replies = await Promise.all(
          searches.map(({ nick }) => searchLegacy(caller, context.sut.gatewayJid, { nick })),
        );
        replies.forEach((exchange, index) => {
          const search = searches[index];
          if (search === undefined) return;
          const found = readFound(exchange, 'search.visibility-filter');
          expectThat(
            exchange.reply.xml,
            'search.hidden-not-revealed',
            `no trace of ${search.endpoint.jid} for the ${role} caller searching ${JSON.stringify(search.nick)}`,
            !found.jids.some((jid) => normalizeBareJid(jid) === search.endpoint.jid),
          );
          expectVisibleListing(found.jids, 'search.visibility-filter', world, role, false, context);
        });
      }
    },
  },
  {
    id: 'search.hidden-like-nonexistent',
    scenario: 'equivalence',
    requirements: ['search.hidden-not-revealed', 'errors.not-found-equivalence'],
    profiles: ['jabber-search'],
    level: 'MUST',
    features: [NS.search],
    interpretations: ['interp-13', 'interp-19'],
    statement:
      'Searching the names of a hidden endpoint (local caller) or of one only others may see (domain-granted caller) answers exactly like searching a name nothing has; paging after or before its JID answers like paging from a JID that names nothing in the same place.',
    run: async (context) => {
      const world = requireWorld(context);
      const gateway = context.sut.gatewayJid;
      const none = nonexistentNick(context);
      const probes: [CallerRole, FixtureEndpoint][] = [['local', world.hiddenEndpoint]];
      const othersOnly = world.endpoints.find(
        (endpoint) =>
          endpoint.active !== undefined &&
          !world.maySee('remotePeer', endpoint) &&
          world.maySee('local', endpoint),
      );
      if (othersOnly !== undefined) probes.push(['remotePeer', othersOnly]);
      for (const [role, endpoint] of probes) {
        const caller = await callerFor(context, role);
        const terms = unseenTerms(world, role, endpoint);
        // The positive control: a role that may see the endpoint finds it by one of these terms.
        const seer = await callerFor(context, roleThatMaySee(world, endpoint));
        const control = await findBy(
          terms,
          (nick) => searchLegacy(seer, gateway, { nick }, { max: 5 }),
          endpoint.jid,
          'search.hidden-not-revealed',
        );
        if (terms.length > 0 && control.found === undefined) {
          throw new CannotTell(
            `the positive control failed: ${seer.bareJid}, who may see ${endpoint.jid}, does not find it by ${terms.map((term) => JSON.stringify(term)).join(', ')}, so an empty result for the ${role} caller shows nothing`,
          );
        }
        const replies: ComparedReply[] = [
          {
            label: `${role}: nick ${none}`,
            exchange: await searchLegacy(caller, gateway, { nick: none }, { max: 5 }),
            to: gateway,
          },
        ];
        for (const nick of terms) {
          const exchange = await searchLegacy(caller, gateway, { nick }, { max: 5 });
          replies.push({ label: `${role}: nick ${nick} (${endpoint.jid})`, exchange, to: gateway });
        }
        for (const { exchange } of replies) {
          expectThat(
            exchange.reply.xml,
            'search.hidden-not-revealed',
            'an empty result',
            readFound(exchange, 'search.hidden-not-revealed').jids.length === 0,
          );
        }
        const [first, second, ...others] = replies;
        if (first !== undefined && second !== undefined)
          expectIndistinguishable([first, second, ...others], 'search.hidden-not-revealed', context);
      }
      const local = await context.callers.local();
      const listed = await emptyQueryListing(context, local, 50, 'search.hidden-not-revealed');
      if (listed === undefined) return;
      const full = listed.jids.map((jid) => normalizeBareJid(jid));
      await expectSameGapSearchPaging(context, local, full, [
        [`hidden ${world.hiddenEndpoint.jid}`, world.hiddenEndpoint.jid],
        [`nonexistent ${world.nonexistentJid}`, world.nonexistentJid],
      ]);
    },
  },
  {
    id: 'search.tag-field-visibility',
    requirements: ['search.visibility-filter'],
    profiles: ['jabber-search'],
    level: 'MUST',
    features: [NS.search],
    statement:
      'When the search form offers the gateway’s own tag field (beyond the spec), searching by a tool tag of any endpoint finds only endpoints the caller may see, for every caller role.',
    run: async (context) => {
      const world = requireWorld(context);
      const gateway = context.sut.gatewayJid;
      const { offer } = await searchForm(await context.callers.local(), gateway, 'search.visibility-filter');
      if (!formOffers(offer, 'tag')) throw new NotApplicable('the search form offers no tag field');
      const tags = [...new Set(world.endpoints.flatMap(toolTags))];
      if (tags.length === 0) {
        throw new MissingFixture(
          'the search form offers a tag field, but no tool of the fixture world declares tags to search for',
        );
      }
      for (const role of ROLES) {
        const caller = await callerFor(context, role);
        const chosen = context.random.shuffle(tags).slice(0, 3);
        const replies = await Promise.all(chosen.map((tag) => searchWithForm(caller, gateway, { tag })));
        for (const exchange of replies) {
          expectVisibleListing(
            readFound(exchange, 'search.visibility-filter').jids,
            'search.visibility-filter',
            world,
            role,
            false,
            context,
          );
        }
      }
    },
  },
  {
    id: 'search.not-found-timing',
    requirements: ['privacy.enumeration-side-channels'],
    profiles: ['jabber-search'],
    level: 'SHOULD',
    features: [NS.search],
    scenario: 'timing',
    timeoutMs: TIMING_CASE_TIMEOUT_MS,
    interpretations: ['interp-46', 'interp-18'],
    statement:
      'Searching a name of the endpoint hidden from a local caller and a name of the same length that nothing has (both finding nothing) take the same time: interleaved in seeded random order after a warm-up, compared by Welch’s t on raw and percentile-cropped round-trip times (docs/timing.md); a leak is a warning, and no evidence passes as "no leak detectable above X µs at N".',
    run: async (context) => {
      const world = requireWorld(context);
      const hidden = world.hiddenEndpoint;
      const role = (['localPeer', 'local'] as const).find((candidate) => !world.maySee(candidate, hidden));
      if (role === undefined)
        throw new MissingFixture(`the fixture world hides ${hidden.jid} from no local account`);
      const term = unseenTerms(world, role, hidden)[0];
      if (term === undefined) {
        throw new MissingFixture(
          `every name of ${hidden.jid} is part of a name the ${role} caller may see, so no search matches it alone`,
        );
      }
      const none = nonexistentNickOfLength(context, world, term.length);
      const caller = await callerFor(context, role);
      const gateway = context.sut.gatewayJid;
      const findsNothing = (exchange: IqExchange): void => {
        const found = readFound(exchange, 'search.hidden-not-revealed');
        expectThat(
          exchange.reply.xml,
          'search.hidden-not-revealed',
          'an empty result',
          found.jids.length === 0,
        );
      };
      const rounds = context.budget.iterations(SEARCH_TIMING.rounds, SEARCH_TIMING.deepRounds);
      const outcome = await measureTiming(
        context,
        caller,
        [
          {
            label: `a search for ${JSON.stringify(term)} (hidden ${hidden.jid})`,
            send: () => searchLegacy(caller, gateway, { nick: term }),
            check: findsNothing,
          },
          {
            label: `a search for ${JSON.stringify(none)} (nothing)`,
            send: () => searchLegacy(caller, gateway, { nick: none }),
            check: findsNothing,
          },
        ],
        [[0, 1]],
        rounds,
      );
      context.budget.ran(outcome.rounds);
      judgeTiming(context, caller, 'privacy.enumeration-side-channels', 'SHOULD', outcome);
    },
  },
  ...rsmPropertyCases,
  ...modelCases,
]);
