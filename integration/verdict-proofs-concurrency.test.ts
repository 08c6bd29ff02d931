// Issue 25, item 1: `agentconf run --jobs N` must change no case's outcome. On the reference
// gateway, each seed is judged sequentially (--jobs 1) and with two jobs (the default), each run on
// a federation and gateway of its own (a second whole run on one session meets the first one's
// crashes and restarts), and every case's outcome must be the sequential run's: whole runs for
// four seeds. Read-only cases run beside task cases, so nearly every section (259 of 284 cases)
// is one where concurrency changes something: whole runs cost what section runs did. CI's budget
// holds four pairs; the twenty seeds the issue asks for were compared once (docs/suites.md). The
// concurrent runs' transcripts must stay each case's own: a resource of a case's own is held by
// one case at a time.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nativeProvider } from '../harness/federation/native-provider.ts';
import { REPO_ROOT } from '../harness/repo-root.ts';
import { parseSutConfig } from '../harness/sut/sut-config.ts';
import { inlineWorldFile } from '../protocol/fixture-world-file.ts';
import { runConformance } from '../runner/run-conformance.ts';
import type { RunResult } from '../runner/run-result.ts';
import { startSession, type RunSession } from '../runner/run-session.ts';
import { silentProgress } from '../runner/terminal-report.ts';
import { ALL_SUITES } from '../suites/index.ts';

const SUT_FILE = join(REPO_ROOT, 'fixtures', 'sut', 'reference-gateway.json');
const WORLD_FILE = join(REPO_ROOT, 'fixtures', 'worlds', 'reference.json');
const JOBS = 2;
/** Whole runs for these seeds (the issue asks twenty; docs/suites.md has that comparison). */
const FULL_SEEDS = [1, 2, 3, 4];

const config = parseSutConfig(readFileSync(SUT_FILE, 'utf8'), SUT_FILE);

/** One run on a session of its own. */
async function judged(seed: number, jobs: number, grep: readonly string[]): Promise<RunResult> {
  const session = await startSession({
    provider: nativeProvider,
    config,
    world: inlineWorldFile(WORLD_FILE),
    log: () => undefined,
    cases: ALL_SUITES.flatMap((suite) => suite.cases),
  });
  try {
    return await judgedOn(session, seed, jobs, grep);
  } finally {
    await session.stop();
  }
}

function judgedOn(
  session: RunSession,
  seed: number,
  jobs: number,
  grep: readonly string[],
): Promise<RunResult> {
  return runConformance({
    runId: `concurrency-${String(seed)}-${String(jobs)}`,
    session,
    config,
    suites: ALL_SUITES,
    selection: { grep },
    seed,
    strict: false,
    suiteVersion: 'test',
    specRevision: 'test',
    progress: silentProgress,
    jobs,
  });
}

function outcomes(result: RunResult): Record<string, string> {
  return Object.fromEntries(result.cases.map((entry) => [entry.case.id, entry.outcome]));
}

/**
 * Resources of cases' own (`/case-N`) that two cases used at once: each case's span is its first
 * to its last stanza sent from the resource, on the wall clock; a resource goes from case to
 * case, never to two at a time.
 */
function sharedResources(result: RunResult): string[] {
  const spansOf = new Map<string, { caseId: string; from: number; to: number }[]>();
  for (const entry of result.cases) {
    for (const attempt of entry.attempts) {
      const began = Date.parse(attempt.transcript.startedAt);
      const sent = new Map<string, number[]>();
      for (const recorded of attempt.transcript.entries) {
        if (recorded.direction !== 'sent' || !/\/case-\d+$/.test(recorded.jid ?? '')) continue;
        const at = sent.get(recorded.jid ?? '') ?? [];
        at.push(began + recorded.atMs);
        sent.set(recorded.jid ?? '', at);
      }
      for (const [jid, at] of sent) {
        const spans = spansOf.get(jid) ?? [];
        spans.push({ caseId: entry.case.id, from: Math.min(...at), to: Math.max(...at) });
        spansOf.set(jid, spans);
      }
    }
  }
  // startedAt has millisecond resolution: spans closer than that are not told apart.
  return [...spansOf].flatMap(([jid, spans]) =>
    spans.flatMap((one, index) =>
      spans
        .slice(index + 1)
        .filter((other) => other.caseId !== one.caseId && one.from < other.to - 1 && other.from < one.to - 1)
        .map((other) => `${jid}: ${one.caseId} and ${other.caseId} at once`),
    ),
  );
}

interface Pair {
  readonly seed: number;
  readonly sequential: RunResult;
  readonly concurrent: RunResult;
}

describe(`--jobs ${String(JOBS)} against --jobs 1 on the reference gateway`, () => {
  const full: Pair[] = [];

  beforeAll(async () => {
    for (const seed of FULL_SEEDS) {
      const sequential = await judged(seed, 1, []);
      const concurrent = await judged(seed, JOBS, []);
      full.push({ seed, sequential, concurrent });
    }
    const seconds = (pairs: readonly Pair[], which: 'sequential' | 'concurrent'): string =>
      pairs.map((pair) => (pair[which].durationMs / 1000).toFixed(1)).join(' ');
    console.log(
      `whole runs, sequential: ${seconds(full, 'sequential')} s; --jobs ${String(JOBS)}: ${seconds(full, 'concurrent')} s`,
    );
  }, 1_800_000);

  it('gives every case of four whole runs the sequential run’s outcome', () => {
    expect(full.map((pair) => pair.seed)).toEqual(FULL_SEEDS);
    for (const { seed, sequential, concurrent } of full) {
      expect(sequential.cases.length, `seed ${String(seed)}`).toBeGreaterThan(250);
      expect(outcomes(concurrent), `seed ${String(seed)}`).toEqual(outcomes(sequential));
    }
  });

  it('hands each resource of a concurrent case’s own to one case at a time', () => {
    for (const { concurrent } of full) expect(sharedResources(concurrent)).toEqual([]);
    // The check sees the cases' own resources at all: they ran alongside others.
    const owned = (full[0]?.concurrent.cases ?? []).flatMap((entry) =>
      entry.attempts.flatMap((attempt) =>
        attempt.transcript.entries.filter((recorded) => /\/case-\d+$/.test(recorded.jid ?? '')),
      ),
    );
    expect(owned.length).toBeGreaterThan(0);
  });
});
