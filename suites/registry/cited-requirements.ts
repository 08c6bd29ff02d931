/**
 * The requirements a case cites, as its failure shows them: each ID with the registry's summary
 * and the spec sentence it comes from (section anchor and sentence fingerprint, the locator
 * `npm run registry:check -- --spec PATH --list` resolves to a spec line), so a failure reads
 * next to the spec without opening the registry.
 */
import { committedRegistry, type Registry } from './registry.ts';

/** Lines describing each cited requirement; an ID the registry does not hold is named as such. */
export function citedRequirementLines(
  ids: readonly string[],
  registry: Registry = committedRegistry(),
): string[] {
  const known = new Map(registry.requirements.map((entry) => [entry.id, entry]));
  return ids.flatMap((id) => {
    const entry = known.get(id);
    if (entry === undefined) return [`${id}: not in the requirement registry`];
    const sources = entry.sources.map(
      (source) => `  spec ${registry.specVersion} #${source.anchor}, sentence ${source.sentence}`,
    );
    return [`${id} (${entry.level}): ${entry.summary}`, ...sources];
  });
}
