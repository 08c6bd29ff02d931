// Issue 22, item 7: where the spec allows a path a case cannot see through, the case decides by
// another route or passes it as the permitted alternative; never INCOMPLETE for it. Each
// permitted variant passes every claimed profile on a full run, and each route it takes has a
// broken counterpart that still fails. Reasons with anchors: integration/variants/README.md.
import { describe, expect, it } from 'vitest';
import {
  EMPTY_SEARCH_LISTS_NOTHING,
  SERVES_PAST_RETAIN_UNTIL,
  variantPatches,
  type GatewayVariant,
} from './variants/gateway-variants.ts';
import { itPassesEveryClaimedProfile } from './variants/permitted-proofs.ts';
import { caseOf, describeRun, verdictOf, type AgentconfRun } from './variants/run-agentconf.ts';
import { useVariantRun } from './variants/use-variant-run.ts';

function transcriptOf(run: AgentconfRun, id: string): string {
  return caseOf(run, id).attempts.at(-1)?.transcriptText ?? '';
}

describe('h. an empty search lists nothing (#search: MAY list all; interp-18)', () => {
  const run = useVariantRun(EMPTY_SEARCH_LISTS_NOTHING);
  itPassesEveryClaimedProfile(run);

  it('orders and pages a result set found by a name the provisioned endpoints share', () => {
    for (const id of ['search.octet-order', 'search.rsm-random-paths']) {
      expect(caseOf(run(), id).outcome, `${id}\n${describeRun(run())}`).toBe('passed');
    }
    expect(transcriptOf(run(), 'search.octet-order')).toMatch(/the result set is the nick agentconf-order-/);
    expect(transcriptOf(run(), 'search.rsm-random-paths')).toMatch(/the paths walk the nick agentconf-rsm-/);
  });
});

/** The same gateway, its search results ordered by UTF-16 code units instead of octets. */
const EMPTY_SEARCH_UTF16_ORDER: GatewayVariant = {
  name: 'empty-search-utf16-order',
  change: 'a search without criteria matches nothing, and results are sorted by UTF-16 code units',
  patches: [...variantPatches('empty-search-lists-nothing'), ...variantPatches('utf16-order')],
};

describe('h, broken: the same gateway with its results in UTF-16 order', () => {
  const run = useVariantRun(EMPTY_SEARCH_UTF16_ORDER, { grep: ['search.octet-order', 'search.rsm-random'] });

  it('FAILS both order cases on the shared-name result set', () => {
    for (const id of ['search.octet-order', 'search.rsm-random-paths']) {
      const result = caseOf(run(), id);
      expect(result.outcome, `${id}\n${describeRun(run())}`).toBe('failed');
      expect(result.attempts.at(-1)?.violation?.requirement, id).toBe('search.octet-order');
    }
    expect(verdictOf(run(), 'jabber-search').verdict).toBe('failed');
  });
});

describe('i. tasks served a minute past their retain-until (#events: retention is a minimum)', () => {
  const run = useVariantRun(SERVES_PAST_RETAIN_UNTIL);
  itPassesEveryClaimedProfile(run);

  it('passes task-recovery.expired-like-nonexistent as the permitted alternative, checked', () => {
    const id = 'task-recovery.expired-like-nonexistent';
    expect(caseOf(run(), id).outcome, describeRun(run())).toBe('passed');
    expect(transcriptOf(run(), id)).toMatch(/still answered 3 s past its retain-until .* as it settled/);
  });
});

/** The same gateway, answering for a kept task as if it had failed once its retain-until passed. */
const SERVES_PAST_RETAIN_UNTIL_CHANGED: GatewayVariant = {
  name: 'serves-past-retain-until-changed',
  change: 'terminal tasks kept past retain-until are reported failed from then on',
  patches: [...variantPatches('serves-past-retain-until'), ...variantPatches('kept-task-reported-failed')],
};

describe('i, broken: a task kept past retain-until that changes its state', () => {
  const run = useVariantRun(SERVES_PAST_RETAIN_UNTIL_CHANGED, { grep: ['task-recovery.expired'] });

  it('FAILS task-recovery.expired-like-nonexistent on events.queryable-until-retain-until', () => {
    const result = caseOf(run(), 'task-recovery.expired-like-nonexistent');
    expect(result.outcome, describeRun(run())).toBe('failed');
    expect(result.attempts.at(-1)?.violation?.requirement).toBe('events.queryable-until-retain-until');
  });
});
