// Verdict proofs for the MCP bridge (issue 23): every broken variant of the reference bridge
// (integration/variants/bridge-variants.ts) fails the case that must catch it, citing the
// requirement it breaks, while that case passes the unchanged reference bridge; every permitted
// variant passes a full caller run (`agentconf run`, every caller case, both assessments).
// A broken variant is judged by its one case (a subset proves a failure); a permitted one never is.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { nativeProvider } from '../harness/federation/native-provider.ts';
import type { Federation } from '../harness/federation/server-provider.ts';
import { REPO_ROOT } from '../harness/repo-root.ts';
import { parseSutFile } from '../harness/sut/sut-config.ts';
import type { CallerCase } from '../suites/caller/framework/caller-case.ts';
import { runCallerCase, type CallerCaseResult } from '../suites/caller/framework/run-caller-case.ts';
import { ALL_CALLER_SUITES } from '../suites/caller/index.ts';
import {
  BRIDGE_ACCEPTS_CONFLICTING_REVISION,
  BRIDGE_AUTHENTICATES_CLIENTS,
  BRIDGE_CANCEL_ACCEPTED_AS_CANCELLED,
  BRIDGE_CANCELS_ON_LOCAL_TIMEOUT,
  BRIDGE_CHAT_FALLBACK,
  BRIDGE_CLAIMS_MCP_TASKS,
  BRIDGE_COMMANDS_TO_FULL_JID,
  BRIDGE_DROPS_IS_ERROR,
  BRIDGE_FAILURE_AS_NONEXISTENCE,
  BRIDGE_IGNORES_VERSION_PIN,
  BRIDGE_FORWARDS_CLIENT_TOKEN,
  BRIDGE_INVENTS_ANNOTATION,
  BRIDGE_JSON_RPC_ID_AS_REQUEST_ID,
  BRIDGE_LISTS_UNVERIFIED_GATEWAY,
  BRIDGE_LISTS_XMPP_TOOL_NAMES,
  BRIDGE_RETRIES_NEW_ID,
  BRIDGE_RSM_ITEM_CURSOR,
  PERMITTED_BRIDGE_VARIANTS,
  buildBridgeVariant,
  type BridgeVariant,
} from './variants/bridge-variants.ts';
import { runAgentconf, type AgentconfRun } from './variants/run-agentconf.ts';

const RUN_SEED = 23;
const REFERENCE_SUT = join(REPO_ROOT, 'fixtures', 'sut', 'reference-mcp-bridge.json');

/** Which case must fail which broken variant. */
const BROKEN: readonly { readonly variant: BridgeVariant; readonly caseId: string }[] = [
  { variant: BRIDGE_RETRIES_NEW_ID, caseId: 'invocation.caller-retry-identical-after-lost-accepted' },
  { variant: BRIDGE_ACCEPTS_CONFLICTING_REVISION, caseId: 'events.caller-ignores-conflicting-revision' },
  {
    variant: BRIDGE_CANCEL_ACCEPTED_AS_CANCELLED,
    caseId: 'mcp-mapping.bridge-cancel-accepted-is-not-cancelled',
  },
  { variant: BRIDGE_CHAT_FALLBACK, caseId: 'events.caller-shows-no-rejected-message-as-chat' },
  { variant: BRIDGE_DROPS_IS_ERROR, caseId: 'mcp-mapping.bridge-returns-call-result-exactly' },
  { variant: BRIDGE_INVENTS_ANNOTATION, caseId: 'mcp-mapping.bridge-lists-tool-members-exactly' },
  { variant: BRIDGE_CLAIMS_MCP_TASKS, caseId: 'mcp-mapping.bridge-claims-no-mcp-tasks-with-loss' },
  // A SHOULD: its failure is a finding that fails the assessment under --strict only.
  { variant: BRIDGE_LISTS_XMPP_TOOL_NAMES, caseId: 'mcp-mapping.bridge-lists-normal-mcp-tools' },
];

/** The caller rules' broken variants, each judged by its one case like those above. */
const BROKEN_CALLER_RULES: readonly { readonly variant: BridgeVariant; readonly caseId: string }[] = [
  { variant: BRIDGE_COMMANDS_TO_FULL_JID, caseId: 'task-message-routing.caller-commands-to-bare-jid' },
  { variant: BRIDGE_IGNORES_VERSION_PIN, caseId: 'manifest-retrieval.caller-keeps-pinned-version' },
  { variant: BRIDGE_CANCELS_ON_LOCAL_TIMEOUT, caseId: 'cancellation.caller-local-timeout-stays-local' },
  {
    variant: BRIDGE_FAILURE_AS_NONEXISTENCE,
    caseId: 'use-case-discovery.caller-infers-nothing-from-failure',
  },
  { variant: BRIDGE_RSM_ITEM_CURSOR, caseId: 'mcp-mapping.bridge-pages-with-own-cursors' },
  { variant: BRIDGE_JSON_RPC_ID_AS_REQUEST_ID, caseId: 'mcp-mapping.bridge-request-id-not-json-rpc-id' },
  { variant: BRIDGE_LISTS_UNVERIFIED_GATEWAY, caseId: 'find-gateway.caller-needs-directory-feature' },
];

function callerCase(id: string): CallerCase {
  const found = ALL_CALLER_SUITES.flatMap((suite) => suite.cases).find((testCase) => testCase.id === id);
  if (found === undefined) throw new Error(`no caller case ${id}`);
  return found;
}

describe('broken bridges fail the case that must catch them; the reference bridge passes it', () => {
  let federation: Federation;

  beforeAll(async () => {
    federation = await nativeProvider.start();
  }, 300_000);

  afterAll(async () => {
    await federation.stop();
  });

  /** Runs one case against the bridge a SUT file declares (inside a variant's copy, or the tree). */
  async function judge(testCase: CallerCase, sutFile: string): Promise<CallerCaseResult> {
    const file = parseSutFile(readFileSync(sutFile), sutFile);
    if (file.kind !== 'mcp-caller') throw new Error(`${sutFile} declares no MCP caller`);
    return await runCallerCase(testCase, {
      environment: { federation, declaration: file.config.caller, timeouts: file.config.timeouts },
      runSeed: RUN_SEED,
      defaultTimeoutMs: 90_000,
      rerunFailures: false,
    });
  }

  for (const { variant, caseId } of [...BROKEN, ...BROKEN_CALLER_RULES]) {
    it(`${caseId} passes the reference bridge`, async () => {
      const result = await judge(callerCase(caseId), REFERENCE_SUT);
      expect(result.outcome, result.attempts.at(-1)?.transcriptText).toBe('passed');
    }, 120_000);

    it(`${variant.name} fails ${caseId}, citing ${variant.violates ?? '?'}`, async () => {
      const built = buildBridgeVariant(variant);
      try {
        const result = await judge(callerCase(caseId), built.sutFile);
        const attempt = result.attempts.at(-1);
        expect(result.outcome, attempt?.transcriptText).toBe('failed');
        expect(attempt?.violation?.requirement, attempt?.transcriptText).toBe(variant.violates);
        console.info(`[verdict proof] ${variant.name}: ${caseId} failed on ${String(variant.violates)}`);
      } finally {
        built.remove();
      }
    }, 120_000);
  }
});

/**
 * The permitted variants' full caller runs, all started together when the first of them is asked
 * for: a caller run is mostly its cases' observation windows (replySeconds of quiet after a lost
 * <accepted/>, a local timeout, a bad result), about a sixth of a core each, so three side by side
 * take the time of the longest instead of the sum. Each run has its own federation and bridge copy.
 */
let permittedRuns: Map<string, Promise<AgentconfRun>> | undefined;

function permittedRun(variant: BridgeVariant): Promise<AgentconfRun> {
  permittedRuns ??= new Map(
    PERMITTED_BRIDGE_VARIANTS.map((permitted) => {
      const started = fullCallerRun(permitted);
      // Awaited by its own describe block later, which reports the failure there.
      started.catch(() => undefined);
      return [permitted.name, started] as const;
    }),
  );
  const run = permittedRuns.get(variant.name);
  if (run === undefined) throw new Error(`${variant.name} is not a permitted bridge variant`);
  return run;
}

async function fullCallerRun(variant: BridgeVariant): Promise<AgentconfRun> {
  const built = buildBridgeVariant(variant);
  try {
    const run = await runAgentconf({ sut: built.sutFile, seed: RUN_SEED });
    const verdicts = (run.result.assessments ?? []).map((entry) => `${entry.assessment} ${entry.verdict}`);
    console.info(
      `[verdict proof] ${variant.name} [${variant.change}]: ${verdicts.join(', ')}; ${run.seconds.toFixed(1)} s`,
    );
    return run;
  } finally {
    built.remove();
  }
}

describe.each(PERMITTED_BRIDGE_VARIANTS.map((variant) => [variant.name, variant] as const))(
  'permitted %s passes a full caller run',
  (_name, variant) => {
    let run: AgentconfRun | undefined;

    beforeAll(async () => {
      run = await permittedRun(variant);
    }, 600_000);

    it('passes both assessments, every caller case passed, exit 0', () => {
      if (run === undefined) throw new Error(`the run of ${variant.name} did not happen`);
      const unpassed = (run.result.callerCases ?? [])
        .filter((result) => result.outcome !== 'passed')
        // Declared on stdio, like the reference bridge: no client token exists to judge there.
        .filter((result) => !(result.case.id === TOKEN_CASE && result.outcome === 'inapplicable'))
        // A case only a gateway's call-out can show (it declares MCP inapplicable, with why).
        .filter((result) => !(result.case.interfaces.mcp !== true && result.outcome === 'inapplicable'))
        .map(
          (result) => `${result.case.id} ${result.outcome}: ${(result.reason ?? '').split('\n')[0] ?? ''}`,
        );
      expect(unpassed, run.stdout).toEqual([]);
      expect(
        (run.result.assessments ?? []).map((entry) => [entry.assessment, entry.verdict]),
        run.stdout,
      ).toEqual([
        ['caller-side', 'passed'],
        ['mcp-bridge', 'passed'],
      ]);
      expect(run.code, run.stdout).toBe(0);
    });
  },
);

// #security's token rule binds a bridge reached over HTTP: its proofs judge SUT files that serve
// the bridge over Streamable HTTP, and show the stdio declaration is not judged on it.
const REFERENCE_HTTP_SUT = join(REPO_ROOT, 'fixtures', 'sut', 'reference-mcp-bridge-http.json');
const TOKEN_CASE = 'security.bridge-keeps-client-credentials';

describe('security.no-token-passthrough: credentials the MCP client presents over HTTP', () => {
  let federation: Federation;

  beforeAll(async () => {
    federation = await nativeProvider.start();
  }, 300_000);

  afterAll(async () => {
    await federation.stop();
  });

  async function judgeToken(sutFile: string): Promise<CallerCaseResult> {
    const file = parseSutFile(readFileSync(sutFile), sutFile);
    if (file.kind !== 'mcp-caller') throw new Error(`${sutFile} declares no MCP caller`);
    return await runCallerCase(callerCase(TOKEN_CASE), {
      environment: { federation, declaration: file.config.caller, timeouts: file.config.timeouts },
      runSeed: RUN_SEED,
      defaultTimeoutMs: 90_000,
      rerunFailures: false,
    });
  }

  it('the reference bridge over Streamable HTTP keeps them and passes', async () => {
    const result = await judgeToken(REFERENCE_HTTP_SUT);
    expect(result.outcome, result.attempts.at(-1)?.transcriptText).toBe('passed');
  }, 120_000);

  it('the reference bridge declared on stdio is not judged on the rule', async () => {
    const result = await judgeToken(REFERENCE_SUT);
    expect(result.outcome).toBe('inapplicable');
    expect(result.reason).toMatch(/declares the bridge on stdio/);
  }, 120_000);

  it(`${BRIDGE_FORWARDS_CLIENT_TOKEN.name} fails ${TOKEN_CASE}, citing security.no-token-passthrough`, async () => {
    const built = buildBridgeVariant(BRIDGE_FORWARDS_CLIENT_TOKEN);
    try {
      const result = await judgeToken(built.sutFile);
      const attempt = result.attempts.at(-1);
      expect(result.outcome, attempt?.transcriptText).toBe('failed');
      expect(attempt?.violation?.requirement, attempt?.transcriptText).toBe('security.no-token-passthrough');
      expect(attempt?.violation?.received).toMatch(/Authorization bearer token in a invoke/);
      console.info(`[verdict proof] ${BRIDGE_FORWARDS_CLIENT_TOKEN.name}: ${TOKEN_CASE} failed`);
    } finally {
      built.remove();
    }
  }, 120_000);

  it(`permitted ${BRIDGE_AUTHENTICATES_CLIENTS.name} (uses the token, calls as itself) passes ${TOKEN_CASE}`, async () => {
    const built = buildBridgeVariant(BRIDGE_AUTHENTICATES_CLIENTS);
    try {
      const result = await judgeToken(built.sutFile);
      const attempt = result.attempts.at(-1);
      expect(result.outcome, attempt?.transcriptText).toBe('passed');
      // It really read the token: each call is logged by the client's digest.
      expect(attempt?.transcriptText).toMatch(/tools\/call by client [0-9a-f]{12}/);
    } finally {
      built.remove();
    }
  }, 120_000);
});
