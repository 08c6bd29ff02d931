/**
 * Which endpoints a search matches (#search). The criteria:
 * - nick: a substring of the endpoint's localpart, agent.name or agent.title (the
 *   "deployment-defined combination" #search leaves open), compared Unicode-aware and
 *   case-insensitively;
 * - tag (our XEP-0004 extension field): equal to a tag any tool of the active manifest declares
 *   in its urn:xmpp:agent-api:0 object, case-insensitively.
 * Empty criteria do not restrict; several criteria must all hold. Matching never depends on
 * the process locale (#i18n): toLowerCase() applies the locale-independent Unicode mappings,
 * whereas toLocaleLowerCase() would turn "I" into dotless "ı" under tr_TR.
 */
import { NS_AGENT_API } from '../../protocol/namespaces.ts';
import { parseBareJid } from '../../protocol/jid/index.ts';
import type { VisibleEndpoint } from '../catalog/catalog.ts';

export interface SearchCriteria {
  readonly nick?: string;
  readonly tag?: string;
}

/**
 * The comparison form: NFC, then lowercase, then NFC again because lowercasing can leave a
 * decomposed sequence (U+0130 "İ" lowercases to "i" + U+0307).
 *
 * i18n.locale-independent-matching
 */
export function foldForSearch(text: string): string {
  return text.normalize('NFC').toLowerCase().normalize('NFC');
}

/** The criterion as given, or undefined when it is absent or only white space. */
function activeCriterion(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : foldForSearch(trimmed);
}

function nickTexts(endpoint: VisibleEndpoint): string[] {
  const { agent } = endpoint.active.manifest;
  const { localpart } = parseBareJid(endpoint.jid);
  return [localpart, agent.name, agent.title].filter((text): text is string => text !== undefined);
}

function tagsOf(endpoint: VisibleEndpoint): string[] {
  return endpoint.active.manifest.tools.flatMap((tool) => tool[NS_AGENT_API]?.tags ?? []);
}

/** A predicate over endpoints for these criteria; folding of the criteria happens once. */
export function searchMatcher(criteria: SearchCriteria): (endpoint: VisibleEndpoint) => boolean {
  const nick = activeCriterion(criteria.nick);
  const tag = activeCriterion(criteria.tag);
  return (endpoint) =>
    (nick === undefined || nickTexts(endpoint).some((text) => foldForSearch(text).includes(nick))) &&
    (tag === undefined || tagsOf(endpoint).some((candidate) => foldForSearch(candidate) === tag));
}
