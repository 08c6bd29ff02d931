/**
 * What a run against the chaos gateway must show (issue 22, item 7): the runner finished (exit 1,
 * never 3 or a crash), wrote every report, gave every selected case an outcome, and passed no
 * case on garbage. The cases below pass against it for a reason that has nothing to do with
 * garbage (each investigated); any other pass means a case decided nothing and is a finding.
 */
import { expect } from 'vitest';
import { OUTCOMES } from '../../suites/framework/outcome.ts';
import type { ChaosRun } from './chaos-run.ts';

export const PASSES_EXPLAINED: Readonly<Record<string, string>> = {
  'find-gateway.server-lists-gateway': "the server's own disco#items lists the component, not the gateway",
  'security.restricted-xml-on-component-link':
    'the chaos gateway speaks through ComponentLink, which closes the stream on restricted XML as required',
  'gateway-info.claimed-profiles-advertised': 'decided on disco#info, which advertise-all answers right',
  'gateway-info.domain-jid': 'decided on disco#info, which advertise-all answers right',
  'endpoint-info.jid-comparison': 'decided on disco#info, which advertise-all answers right',
  'endpoint-info.deactivated-no-version': 'decided on disco#info, which advertise-all answers right',
  'endpoint-info.nodeless-items': 'an echoed empty disco#items query is a correct empty result',
  'identity-presence.subscribe-visible-local': "a stray 'subscribed' is the right answer to a subscribe",
  'identity-presence.subscribe-visible-federated': "a stray 'subscribed' is the right answer to a subscribe",
  'events.unknown-namespace-event': 'silence is a permitted answer: the message was ignored',
  'identity-presence.probe-hidden-like-nonexistent':
    'each probe draws its own stray presence or none; when the visible one drew a presence and the hidden and nonexistent ones drew the same (mostly silence), they were in fact answered alike, which is all the case claims',
  'json-encoding.no-external-refs-registered':
    'when the positive control happens to get a result, refusing the external-$ref manifest is permitted, and the chaos gateway never connects to the canary listener',
};

/** The passes a run shows that PASSES_EXPLAINED does not explain. */
export function unexplainedPasses(run: ChaosRun): string[] {
  return (run.result?.cases ?? [])
    .filter((result) => result.outcome === 'passed' && !(result.case.id in PASSES_EXPLAINED))
    .map((result) => result.case.id);
}

export function expectSurvivedChaos(run: ChaosRun, seed: number): void {
  const context = `chaos seed ${String(seed)}\n${run.output.slice(-3000)}`;
  expect(run.code, context).toBe(1);
  expect(run.output, context).not.toMatch(/unexpected error|Unhandled|node:internal/);
  for (const [file, written] of Object.entries(run.reports))
    expect(written, `${file}: ${context}`).toBe(true);
  const cases = run.result?.cases ?? [];
  expect(cases.length, context).toBeGreaterThan(0);
  for (const result of cases) expect(OUTCOMES, result.case.id).toContain(result.outcome);
  expect(unexplainedPasses(run), context).toEqual([]);
}
