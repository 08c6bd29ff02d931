// Issue 22, item 6: the cases that act on a gateway's process or surroundings decide for a gateway
// the harness does not start, through the operator's commands (external.storageFault, external.kill)
// and the harness's fault proxy the gateway connects through, and they still fail what they
// must. Each broken variant of the reference gateway (integration/variants/gateway-variants.ts)
// runs as examples/external-gateway/run.sh runs it, from the variant's own copy of the tree, on a
// --grep subset (a subset can prove a failure, never a pass; the permitted side is the example
// itself passing every profile, integration/external-gateway-example.test.ts).
//
// accepted-before-commit: with every WAL write failing (external.storageFault.write through
// libfiu), its <accepted/> is on the component link before the COMMIT fails. Deterministic, as
// for the launched gateway (verdict-proofs-crash.test.ts). Under a kill at a held stanza
// (external.kill) the variant commits in the next event-loop turn, well before an operator's
// command lands, so crash-on-the-wire may pass it, but may never fail it for anything else.
//
// resent-event-new-id: the cut of the component link in front of the external gateway makes it
// re-send the events committed while it was offline, under a fresh event ID.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../runner/run-result.ts';

type CaseResult = RunResult['cases'][number];
import {
  ACCEPTED_BEFORE_COMMIT,
  buildGatewayVariant,
  RESENT_EVENT_NEW_ID,
  type GatewayVariant,
} from './variants/gateway-variants.ts';
import { runScript } from './test-support/script-run.ts';

interface ExampleRun {
  readonly code: number | null;
  readonly output: string;
  readonly result: RunResult;
}

/** Generous: setup with admin-iq provisioning takes about 10 s alone, longer under load. */
const RUN_TIMEOUT_MS = 300_000;

async function runExample(root: string, out: string, grep: readonly string[]): Promise<ExampleRun> {
  const args = ['--seed', '7', ...grep.flatMap((pattern) => ['--grep', pattern])];
  const { code, output } = await runScript(join(root, 'examples/external-gateway/run.sh'), [out, ...args], {
    cwd: root,
  });
  const file = join(out, 'result.json');
  if (!existsSync(file)) throw new Error(`run.sh wrote no result.json (exit ${String(code)}):\n${output}`);
  return { code, output, result: JSON.parse(readFileSync(file, 'utf8')) as RunResult };
}

/** The example run against `variant` on the `grep` subset, in beforeAll; the copy removed after. */
function useExampleRun(variant: GatewayVariant, grep: readonly string[]): () => ExampleRun {
  const dir = mkdtempSync(join(tmpdir(), `agentconf-external-proof-${variant.name}-`));
  let built: ReturnType<typeof buildGatewayVariant> | undefined;
  let run: ExampleRun | undefined;
  beforeAll(async () => {
    built = buildGatewayVariant(variant);
    run = await runExample(built.root, join(dir, 'reports'), grep);
    console.info(
      `[verdict proof] ${variant.name} as an external gateway (${grep.map((pattern) => `--grep ${pattern}`).join(' ')}): exit ${String(run.code)}`,
    );
  }, RUN_TIMEOUT_MS);
  afterAll(() => {
    built?.remove();
    rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (run === undefined) throw new Error(`the run of ${variant.name} did not happen`);
    return run;
  };
}

function caseOf(run: ExampleRun, id: string): CaseResult {
  const found = run.result.cases.find((result) => result.case.id === id);
  if (found === undefined) throw new Error(`case ${id} did not run:\n${run.output}`);
  return found;
}

function violated(run: ExampleRun, id: string): (string | undefined)[] {
  return caseOf(run, id).attempts.map((attempt) => attempt.violation?.requirement);
}

function taskExecution(run: ExampleRun): string | undefined {
  return run.result.profiles.find((entry) => entry.profile === 'task-execution')?.verdict;
}

describe('an external gateway writing <accepted/> before the admission commits', () => {
  const storageRun = useExampleRun(ACCEPTED_BEFORE_COMMIT, ['invocation.storage-fault-no-accepted']);
  const wireRun = useExampleRun(ACCEPTED_BEFORE_COMMIT, ['invocation.crash-on-the-wire']);

  it('FAILS invocation.storage-fault-no-accepted on invocation.durable-before-accepted, through external.storageFault', () => {
    const run = storageRun();
    const result = caseOf(run, 'invocation.storage-fault-no-accepted');
    expect(result.outcome, run.output).toBe('failed');
    expect(violated(run, result.case.id), run.output).toContain('invocation.durable-before-accepted');
    expect(taskExecution(run)).toBe('failed');
    expect(run.code).toBe(1);
  });

  it('invocation.crash-on-the-wire, killed through external.kill, passes it or fails it on invocation.durable-before-accepted, nothing else', () => {
    const run = wireRun();
    const result = caseOf(run, 'invocation.crash-on-the-wire');
    expect(['passed', 'failed'], run.output).toContain(result.outcome);
    if (result.outcome === 'failed') {
      expect(violated(run, result.case.id), run.output).toContain('invocation.durable-before-accepted');
    }
  });
});

describe('an external gateway re-sending events under a fresh event ID', () => {
  const run = useExampleRun(RESENT_EVENT_NEW_ID, ['events.component-link-cut']);

  it("FAILS events.component-link-cut on events.replay-identical, through the harness's proxy in front of it", () => {
    const result = caseOf(run(), 'events.component-link-cut');
    expect(result.outcome, run().output).toBe('failed');
    expect(violated(run(), result.case.id), run().output).toContain('events.replay-identical');
    expect(taskExecution(run())).toBe('failed');
  });
});
