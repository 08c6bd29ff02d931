/**
 * The registry check: every normative keyword sentence of the spec must be cited by at least
 * one registry entry (else a spec revision could add a requirement nobody tests), and every
 * citation must still name a normative sentence (else an entry describes wording the spec no
 * longer has). Sentences in sections the spec declares informative are counted, not required;
 * only an entry marked `informativeSource` may cite one (the MCP bridge rules of #mcp-mapping,
 * judged under the mcp-bridge assessment, never a profile).
 */
import type { Registry, Requirement, SentenceLocator } from './registry.ts';
import {
  keywordLevel,
  type RequirementLevel,
  type SpecSentence,
  type SpecSentences,
} from './spec-sentences.ts';

export interface StaleCitation {
  readonly requirement: string;
  readonly locator: SentenceLocator;
  /** Unregistered sentences under the same anchor: likely rewordings of the cited one. */
  readonly candidates: readonly SpecSentence[];
}

export interface RegistryCheckReport {
  readonly specVersion: string | null;
  readonly registryVersion: string;
  /** Normative keyword sentences no entry cites. */
  readonly unregistered: readonly SpecSentence[];
  readonly stale: readonly StaleCitation[];
  readonly normativeSentences: number;
  /** Keyword sentences in informative sections, by anchor. */
  readonly informative: ReadonlyMap<string, number>;
  /** How many of those an informativeSource entry cites (the #mcp-mapping bridge rules). */
  readonly informativeRegistered: number;
  readonly requirements: readonly Requirement[];
}

const locatorKey = (anchor: string, fingerprint: string): string => `${anchor}#${fingerprint}`;

export function checkRegistry(spec: SpecSentences, registry: Registry): RegistryCheckReport {
  const normative = spec.sentences.filter((sentence) => sentence.normative);
  const known = new Set(normative.map((sentence) => locatorKey(sentence.anchor, sentence.fingerprint)));
  // An informative-source entry may cite a normative sentence too (#use-case-mcp-bridge).
  const knownInformative = new Set(
    spec.sentences.map((sentence) => locatorKey(sentence.anchor, sentence.fingerprint)),
  );
  const cited = new Set<string>();
  const staleLocators: { requirement: string; locator: SentenceLocator }[] = [];
  for (const entry of registry.requirements) {
    const citable = entry.informativeSource ? knownInformative : known;
    for (const locator of entry.sources) {
      const key = locatorKey(locator.anchor, locator.sentence);
      cited.add(key);
      if (!citable.has(key)) staleLocators.push({ requirement: entry.id, locator });
    }
  }
  const unregistered = normative.filter(
    (sentence) => !cited.has(locatorKey(sentence.anchor, sentence.fingerprint)),
  );
  const informative = new Map<string, number>();
  for (const sentence of spec.sentences) {
    if (!sentence.normative) informative.set(sentence.anchor, (informative.get(sentence.anchor) ?? 0) + 1);
  }
  return {
    specVersion: spec.version,
    registryVersion: registry.specVersion,
    unregistered,
    stale: staleLocators.map((stale) => ({
      ...stale,
      candidates: unregistered.filter((sentence) => sentence.anchor === stale.locator.anchor),
    })),
    normativeSentences: normative.length,
    informative,
    informativeRegistered: spec.sentences.filter(
      (sentence) => !sentence.normative && cited.has(locatorKey(sentence.anchor, sentence.fingerprint)),
    ).length,
    requirements: registry.requirements,
  };
}

export function checkPassed(report: RegistryCheckReport): boolean {
  return report.unregistered.length === 0 && report.stale.length === 0;
}

function counts<K extends string>(keys: readonly K[], values: readonly K[]): string {
  return keys.map((key) => `${key} ${values.filter((value) => value === key).length}`).join(', ');
}

function levelsOf(sentence: SpecSentence): string {
  const levels = [...new Set(sentence.keywords.map(keywordLevel))];
  return levels.join('/');
}

/** The report as text: failures first (anchor, line, fingerprint, sentence), then one summary line. */
export function formatCheckReport(report: RegistryCheckReport): string {
  const lines: string[] = [];
  if (report.specVersion !== report.registryVersion) {
    lines.push(
      `note: the registry was written for spec v${report.registryVersion}; this spec is v${report.specVersion ?? '?'}`,
    );
  }
  for (const sentence of report.unregistered) {
    lines.push(
      `UNREGISTERED #${sentence.anchor} line ${sentence.line} [${levelsOf(sentence)}] ` +
        `{"anchor": "${sentence.anchor}", "sentence": "${sentence.fingerprint}"}`,
      `    ${sentence.text}`,
    );
  }
  for (const stale of report.stale) {
    lines.push(
      `STALE ${stale.requirement} cites #${stale.locator.anchor} ${stale.locator.sentence}, which matches no normative sentence`,
    );
    for (const candidate of stale.candidates) {
      lines.push(`    reworded? line ${candidate.line} ${candidate.fingerprint}: ${candidate.text}`);
    }
  }
  const levels: RequirementLevel[] = ['MUST', 'SHOULD', 'MAY'];
  const testability = ['black-box', 'needs-fixture', 'not-testable'] as const;
  const informative = [...report.informative.values()].reduce((sum, n) => sum + n, 0);
  const verdict = checkPassed(report)
    ? 'all registered'
    : `${report.unregistered.length} unregistered, ${report.stale.length} stale citation(s)`;
  lines.push(
    `registry:check spec v${report.specVersion ?? '?'}: ${report.normativeSentences} normative keyword sentences, ${verdict}; ` +
      `${informative} in informative sections not required, ${String(report.informativeRegistered)} of them registered for an assessment (${[...report.informative.keys()].map((anchor) => `#${anchor}`).join(' ')}); ` +
      `${report.requirements.length} requirements (${counts(
        levels,
        report.requirements.map((entry) => entry.level),
      )}; ${counts(
        testability,
        report.requirements.map((entry) => entry.testability.kind),
      )})`,
  );
  return `${lines.join('\n')}\n`;
}
