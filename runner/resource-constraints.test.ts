// A failure caused by the gateway's resource-constraint (a rate limit) is undecided, not failed;
// not so for other failures, for answers from elsewhere, or for the rate-limit cases themselves.
import { describe, expect, it } from 'vitest';

import { Transcript } from '../harness/driver/index.ts';
import type { ConformanceCase } from '../suites/framework/case.ts';
import type { CaseResult } from '../suites/framework/run-case.ts';
import type { RequirementId } from '../suites/registry/requirement-ids.ts';
import {
  recognisePreflightConstraints,
  recogniseResourceConstraints,
  resourceConstraintReason,
} from './resource-constraints.ts';

const CONSTRAINED =
  "<iq type='error' from='agents.example' id='a'><error type='wait'><resource-constraint xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>";

function failed(
  id: string,
  options: { reply?: string; received?: string; requirements?: RequirementId[] } = {},
): CaseResult {
  const transcript = new Transcript(id);
  transcript.record({
    kind: 'stanza',
    direction: 'received',
    jid: 'bob@server.example/x',
    xml: options.reply ?? CONSTRAINED,
  });
  const testCase: ConformanceCase = {
    id,
    section: id.slice(0, id.indexOf('.')),
    requirements: (options.requirements ?? ['list-agents.disco-items']) as [
      RequirementId,
      ...RequirementId[],
    ],
    profiles: ['core-directory'],
    level: 'MUST',
    statement: 'synthetic',
    run: () => Promise.resolve(),
  };
  const received = options.received ?? 'error wait/resource-constraint';
  return {
    case: testCase,
    outcome: 'failed',
    seed: 1,
    flaky: false,
    reason: `expected a result, received ${received}`,
    attempts: [
      {
        attempt: 1,
        seed: 1,
        outcome: 'failed',
        durationMs: 1,
        violation: { requirement: testCase.requirements[0], expected: 'a result', received, message: 'm' },
        reason: `expected a result, received ${received}`,
        warnings: [],
        checks: 0,
        decided: [],
        transcript: transcript.toJSON(),
        transcriptText: transcript.toText(),
      },
    ],
  };
}

describe('resource-constraint answers', () => {
  it('leave a failure caused by them undecided, with how to pace the run', () => {
    const { results, recognised } = recogniseResourceConstraints(
      [failed('list-agents.a')],
      'agents.example',
      undefined,
    );
    expect(recognised.map((result) => result.case.id)).toEqual(['list-agents.a']);
    expect(results[0]).toMatchObject({
      outcome: 'cantTell',
      reason:
        'the gateway answered resource-constraint (a rate limit, #security): not judged; document the rate in the SUT file (limits.requestsPerSecond) or pace the run with --rate N',
    });
    // The attempt keeps what happened.
    expect(results[0]?.attempts[0]?.outcome).toBe('failed');
    expect(resourceConstraintReason({ perSecond: 5, burst: 5, source: '--rate' })).toMatch(
      /the run was paced at 5\/s \(--rate\): lower it with --rate N$/,
    );
  });

  it('keep other failures, answers from elsewhere and the rate-limit cases failed', () => {
    const cases = [
      failed('list-agents.other', { received: 'error cancel/item-not-found' }),
      failed('list-agents.elsewhere', {
        reply: CONSTRAINED.replace("from='agents.example'", "from='server.example'"),
      }),
      failed('security.rate', { requirements: ['security.rate-limits'] }),
      // A limit rejection that reflects the rejected JSON: the resource-constraint is the subject.
      failed('json-encoding.reflects', { requirements: ['json-encoding.no-reflection'] }),
      // A document at a documented bound refused while the one below it was taken.
      failed('json-encoding.at-bound', { requirements: ['json-encoding.documented-limits'] }),
      // An over-limit request from a stranger answered by the limit, not the authorization.
      failed('json-encoding.first', { requirements: ['json-encoding.authorize-before-limits'] }),
    ];
    const { results, recognised } = recogniseResourceConstraints(cases, 'agents.example', undefined);
    expect(recognised).toEqual([]);
    expect(results.map((result) => result.outcome)).toEqual(cases.map(() => 'failed'));
  });

  it('recognise an endpoint of the gateway as the gateway', () => {
    const endpoint = failed('list-agents.endpoint', {
      reply: CONSTRAINED.replace("from='agents.example'", "from='weather@agents.example/x'"),
    });
    expect(recogniseResourceConstraints([endpoint], 'agents.example', undefined).recognised).toHaveLength(1);
  });

  it('turn a preflight finding caused by them from missing (the profile fails) into untestable', () => {
    const refused = {
      profile: 'core-directory' as const,
      kind: 'missing' as const,
      message: 'endpoint weather@agents.example: disco#info failed (… failed: wait/resource-constraint)',
    };
    const absent = { profile: 'tool-discovery' as const, kind: 'missing' as const, message: 'no #manifest' };
    expect(recognisePreflightConstraints([refused, absent], undefined)).toEqual([
      {
        ...refused,
        kind: 'untestable',
        message: `${refused.message}; ${resourceConstraintReason(undefined)}`,
      },
      absent,
    ]);
  });
});
