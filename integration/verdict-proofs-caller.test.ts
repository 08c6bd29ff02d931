// Proof that the caller cases fail a caller broken in exactly the way their requirement forbids
// (and pass the unchanged reference bridge): source variants of the reference bridge, patched
// by suites/caller/test-support/broken-bridges/*.patch, each judged by the one case that must
// catch it. The bridge variants the MCP-bridge helper maintains (integration/variants/) prove
// the others; these cover the caller MUSTs no such variant breaks. A caller that never does what
// a case needs to see (looks for a gateway, refuses JSON for a limit) leaves its MUST undecided:
// cantTell naming what the caller did not do, never inapplicable and never a pass.
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
    variant: 'answers-bad-result',
    caseId: 'json-encoding.caller-sends-no-reply-to-bad-result',
    requirement: 'json-encoding.unacceptable-iq-result',
  },
  {
    variant: 'trusts-any-sender',
    caseId: 'events.caller-drops-invalid-lifecycle-messages',
    requirement: 'events.caller-drops-invalid-messages',
  },
];

interface UndecidedProof {
  readonly caseId: string;
  /** A broken-bridges patch, or the tiny stand-in bridge that speaks no XMPP at all. */
  readonly caller: { readonly variant: string } | 'tiny-bridge';
  /** What the cantTell reason must say the caller did not do. */
  readonly reason: RegExp;
}

const UNDECIDED: readonly UndecidedProof[] = [
  {
    caseId: 'find-gateway.caller-needs-directory-feature',
    caller: 'tiny-bridge',
    reason: /never queried \S+'s disco#info nor sent it any request/,
  },
  {
    caseId: 'json-encoding.caller-ignores-over-limit-event',
    caller: { variant: 'no-json-limits' },
    reason: /accepted every over-limit completion .*refused none for a limit/,
  },
  {
    caseId: 'json-encoding.caller-sends-no-reply-to-bad-result',
    caller: 'tiny-bridge',
    reason: /retrieved no manifest/,
  },
  {
    caseId: 'use-case-discovery.caller-infers-nothing-from-failure',
    caller: 'tiny-bridge',
    reason: /sent no metadata query about \S+ during a tools\/list/,
  },
];

/** The harness's stand-in bridge: lists one tool per endpoint and never speaks XMPP. */
function tinyBridge(): McpCallerDeclaration {
  const file = parseSutFile(
    JSON.stringify({
      name: 'tiny stand-in bridge',
      caller: {
        mcp: {
          command: [
            process.execPath,
            'bin/run-ts.js',
            'harness/caller-under-test/test-support/tiny-bridge-main.ts',
            '--config',
            '{config}',
          ],
        },
      },
    }),
    join(REPO_ROOT, 'tiny-bridge.json'),
  );
  if (file.kind !== 'mcp-caller') throw new Error('a bridge file');
  return file.config.caller;
}

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

  async function judgeWith(
    testCase: CallerCase,
    declaration: McpCallerDeclaration,
  ): Promise<CallerCaseResult> {
    const file = parseSutFile(readFileSync(join(REPO_ROOT, SUT_FILE)), join(REPO_ROOT, SUT_FILE));
    if (file.kind !== 'mcp-caller') throw new Error('a bridge file');
    return await runCallerCase(testCase, {
      environment: { federation, declaration, timeouts: file.config.timeouts },
      runSeed: RUN_SEED,
      defaultTimeoutMs: 90_000,
      rerunFailures: false,
    });
  }

  function judge(testCase: CallerCase, root: string): Promise<CallerCaseResult> {
    return judgeWith(testCase, declarationIn(root));
  }

  for (const proof of UNDECIDED) {
    it(`${proof.caseId} passes the reference bridge`, async () => {
      const result = await judge(callerCase(proof.caseId), REPO_ROOT);
      expect(result.outcome, result.attempts.at(-1)?.transcriptText).toBe('passed');
    }, 120_000);

    const who =
      proof.caller === 'tiny-bridge' ? 'a bridge that speaks no XMPP' : `the ${proof.caller.variant} bridge`;
    it(`${proof.caseId} cannot tell on ${who}, saying what it did not do`, async () => {
      const { caller } = proof;
      if (caller === 'tiny-bridge') {
        const result = await judgeWith(callerCase(proof.caseId), tinyBridge());
        expect(result.outcome, result.attempts.at(-1)?.transcriptText).toBe('cantTell');
        expect(result.reason).toMatch(proof.reason);
        return;
      }
      const variant = buildSourceVariant(REPO_ROOT, {
        name: caller.variant,
        patches: readPatchFile(join(PATCHES, `${caller.variant}.patch`)),
      });
      try {
        const result = await judge(callerCase(proof.caseId), variant.root);
        expect(result.outcome, result.attempts.at(-1)?.transcriptText).toBe('cantTell');
        expect(result.reason).toMatch(proof.reason);
      } finally {
        variant.remove();
      }
    }, 120_000);
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
