/**
 * Steps most caller cases share: a world of one endpoint with one tool on the fake target, and
 * the MCP tool the caller under test lists for it (found by its `_meta` target, never by name).
 */
import type { CallerSession, ListedTool } from '../../../harness/caller-under-test/index.ts';
import {
  simpleManifest,
  type FakeEndpoint,
  type FakeTargetWorld,
} from '../../../harness/fake-target/index.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import type { CallerCaseContext, CallerScene } from './caller-context.ts';

export interface OneToolWorld {
  readonly world: FakeTargetWorld;
  readonly jid: string;
  readonly tool: string;
  readonly version: string;
}

/** One endpoint `<localpart>@<target domain>` serving `tool` at version 1.0.0 (or those given). */
export function oneToolWorld(
  context: CallerCaseContext,
  localpart: string,
  tool: string,
  endpoint: Partial<Omit<FakeEndpoint, 'jid'>> = {},
): OneToolWorld {
  const jid = `${localpart}@${context.targetDomain}`;
  const version = '1.0.0';
  return {
    jid,
    tool,
    version,
    world: { endpoints: [{ manifests: [simpleManifest(jid, version, [{ name: tool }])], ...endpoint, jid }] },
  };
}

/**
 * The listed MCP tool for the remote tool. A caller that does not list it cannot be judged on
 * calling it: the case cannot tell (the listing itself is the bridge assessment's business).
 */
export async function listedTool(session: CallerSession, jid: string, tool: string): Promise<ListedTool> {
  const listed = await session.caller.driver.remoteTool(jid, tool);
  if (listed === undefined) {
    throw new CannotTell(
      `the caller under test lists no MCP tool whose _meta target is ${jid} ${tool}, so it cannot be made to call it (docs/caller.md, "What the suite expects of the MCP side")`,
    );
  }
  return listed;
}

/** How the case prompted the caller to query metadata, in words (for cannot-tell messages). */
export function metadataPrompt(session: CallerScene): string {
  return session.mcp === undefined ? 'when asked to call its tool unpinned' : 'during a tools/list';
}

/** Milliseconds to wait for the caller's next stanza: twice the SUT file's reply timeout. */
export function callerWaitMs(context: CallerCaseContext): number {
  return 2 * context.timeouts.replySeconds * 1000;
}

/**
 * Gives the caller under test an occasion to query `jid`'s metadata, the way its interface
 * allows: an MCP bridge lists its tools (it retrieves what it lists); a gateway's call-out tool
 * is asked to call `tool` unpinned, so it must obtain the manifest first (docs/caller.md). The
 * call's report is awaited for at most the reply wait; whatever it is, it is returned as text
 * (undefined when the caller gave none).
 */
export async function promptMetadataQuery(
  context: CallerCaseContext,
  session: CallerScene,
  jid: string,
  tool: string,
): Promise<string | undefined> {
  if (session.mcp !== undefined) {
    await session.mcp.caller.driver.listTools().catch((error: unknown) => {
      context.note(`tools/list failed: ${String(error)}`);
    });
    return undefined;
  }
  const call = await session.caller.call({ jid, tool, arguments: {}, waitMs: callerWaitMs(context) });
  try {
    return JSON.stringify(await call.done);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    context.note(`the call's report: ${text}`);
    return text;
  }
}
