/**
 * An expected-failures file for one SUT: the cases it is known to fail, each with a reason.
 * It lets a gateway with known gaps gate its CI on "no new failures"; a listed case that passes
 * makes the run fail as stale, so the file only ever shrinks.
 *
 *   { "expectedFailures": [ { "case": "list-agents.octet-order", "reason": "issue #12" } ] }
 */
import { JsonRejection } from '../protocol/json/json-rejection.ts';
import { isJsonObject } from '../protocol/json/json-value.ts';
import { parseStrictJson } from '../protocol/json/strict-json.ts';
import type { Baseline } from './profile-verdicts.ts';

export class BaselineError extends Error {
  override readonly name = 'BaselineError';
}

export function loadBaseline(bytes: Uint8Array, source: string): Baseline {
  let value;
  try {
    value = parseStrictJson(bytes);
  } catch (error) {
    if (error instanceof JsonRejection) throw new BaselineError(`${source}: ${error.message}`);
    throw error;
  }
  const entries = isJsonObject(value) ? value['expectedFailures'] : undefined;
  if (
    !isJsonObject(value) ||
    !Array.isArray(entries) ||
    Object.keys(value).some((key) => key !== 'expectedFailures')
  ) {
    throw new BaselineError(
      `${source}: a baseline is an object with one member, "expectedFailures" (an array)`,
    );
  }
  const expectedFailures = new Map<string, string>();
  entries.forEach((entry, index) => {
    const where = `${source}: /expectedFailures/${String(index)}`;
    if (!isJsonObject(entry) || typeof entry['case'] !== 'string' || typeof entry['reason'] !== 'string') {
      throw new BaselineError(`${where}: each entry is { "case": ID, "reason": TEXT }`);
    }
    if (entry['reason'].trim() === '') throw new BaselineError(`${where}: give a reason`);
    if (expectedFailures.has(entry['case']))
      throw new BaselineError(`${where}: ${entry['case']} is listed twice`);
    expectedFailures.set(entry['case'], entry['reason']);
  });
  return { expectedFailures };
}
