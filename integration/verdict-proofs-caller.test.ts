// Proof that the caller cases fail a caller broken in exactly the way their requirement forbids
// (and pass the unchanged reference bridge): source variants of the reference bridge, patched
// by suites/caller/test-support/broken-bridges/*.patch, each judged by the one case that must
// catch it. The bridge variants the MCP-bridge helper maintains (integration/variants/) prove
// the others; these cover the caller MUSTs no such variant breaks.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { nativeProvider } from '../harness/federation/native-provider.ts';
import type { Federation } from '../harness/federation/server-provider.ts';
import { REPO_ROOT } from '../harness/repo-root.ts';
import { readPatchFile } from '../harness/sut/patch-file.ts';
import { buildSourceVariant } from '../harness/sut/source-variant.ts';
import { parseSutFile, type McpCallerDeclaration } from '../harness/sut/sut-config.ts';
import type { CallerCase } from '../suites/caller/framework/caller-case.ts';
import { runCallerCase, type CallerCaseResult } from '../suites/caller/framework/run-caller-case.ts';
import { ALL_CALLER_SUITES } from '../suites/caller/index.ts';

const SUT_FILE = join('fixtures', 'sut', 'reference-mcp-bridge.json');
const PATCHES = join('suites', 'caller', 'test-support', 'broken-bridges');
const RUN_SEED = 23;

interface Proof {
  readonly variant: string;
  readonly caseId: string;
  readonly requirement: string;
}

const PROOFS: readonly Proof[] = [
  {
    variant: 'retries-after-window',
    caseId: 'invocation.caller-no-retry-after-replay-window',
    requirement: 'invocation.caller-no-late-retry',
  },
  {
    variant: 'forwards-replayed-events',
    caseId: 'events.caller-ignores-identical-replay',
    requirement: 'events.caller-ignores-replay',
  },
  {
    variant: 'trusts-any-sender',
    caseId: 'events.caller-drops-invalid-lifecycle-messages',
    requirement: 'events.caller-drops-invalid-messages',
  },
];

function callerCase(id: string): CallerCase {
  const found = ALL_CALLER_SUITES.flatMap((suite) => suite.cases).find((testCase) => testCase.id === id);
  if (found === undefined) throw new Error(`no caller case ${id}`);
  return found;
}

/** The reference bridge's SUT declaration, its paths resolved inside `root`. */
function declarationIn(root: string): McpCallerDeclaration {
  const file = parseSutFile(readFileSync(join(REPO_ROOT, SUT_FILE)), join(root, SUT_FILE));
  if (file.kind !== 'mcp-caller') throw new Error(`${SUT_FILE} declares no MCP caller`);
  return file.config.caller;
}

describe('caller verdict proofs', () => {
  let federation: Federation;

  beforeAll(async () => {
    federation = await nativeProvider.start();
  }, 300_000);

  afterAll(async () => {
    await federation.stop();
  });

  async function judge(testCase: CallerCase, root: string): Promise<CallerCaseResult> {
    const file = parseSutFile(readFileSync(join(REPO_ROOT, SUT_FILE)), join(root, SUT_FILE));
    if (file.kind !== 'mcp-caller') throw new Error('a bridge file');
    return await runCallerCase(testCase, {
      environment: { federation, declaration: declarationIn(root), timeouts: file.config.timeouts },
      runSeed: RUN_SEED,
      defaultTimeoutMs: 90_000,
      rerunFailures: false,
    });
  }

  for (const proof of PROOFS) {
    it(`${proof.caseId} passes the reference bridge`, async () => {
      const result = await judge(callerCase(proof.caseId), REPO_ROOT);
      expect(result.outcome, result.attempts.at(-1)?.transcriptText).toBe('passed');
    }, 120_000);

    it(`${proof.caseId} fails the ${proof.variant} bridge, citing ${proof.requirement}`, async () => {
      const variant = buildSourceVariant(REPO_ROOT, {
        name: proof.variant,
        patches: readPatchFile(join(PATCHES, `${proof.variant}.patch`)),
      });
      try {
        const result = await judge(callerCase(proof.caseId), variant.root);
        const attempt = result.attempts.at(-1);
        expect(result.outcome, attempt?.transcriptText).toBe('failed');
        expect(attempt?.violation?.requirement).toBe(proof.requirement);
      } finally {
        variant.remove();
      }
    }, 120_000);
  }
});
