/**
 * #manifest-retrieval, judged on the caller: the version and hash it pinned when it retrieved
 * the manifest stay its pins for later calls, even once the endpoint activates another version.
 */
import { simpleManifest, StanzaWaitTimeout } from '../../../harness/fake-target/index.ts';
import { CannotTell, RequirementViolation } from '../../framework/verdicts.ts';
import { defineCallerSuite } from '../framework/caller-case.ts';
import { EVERY_INTERFACE } from '../framework/caller-under-test.ts';
import type { CallerCaseContext, CallerScene } from '../framework/caller-context.ts';
import { callerWaitMs, listedTool } from '../framework/caller-steps.ts';
import type { CallerCall } from '../framework/caller-under-test.ts';
import { invokeOf } from '../framework/invoke-stanzas.ts';
import { completedWith, marker } from '../framework/task-steps.ts';

interface PinnedCall {
  readonly call: CallerCall;
  /** The version the caller obtained before the switch ('1.0.0' when the case can judge). */
  readonly listedVersion: string | undefined;
}

/** MCP: the bridge lists the tool (pinning 1.0.0), then another version is activated, then the call. */
async function listThenCall(
  context: CallerCaseContext,
  session: CallerScene,
  jid: string,
  tool: string,
  activateNext: () => void,
): Promise<PinnedCall> {
  const mcp = session.mcp;
  if (mcp === undefined) throw new Error('not an MCP caller');
  const listed = await listedTool(mcp, jid, tool);
  activateNext();
  context.note(`the caller listed ${jid} at 1.0.0; version 2.0.0 is active from now on`);
  const call = await session.caller.call({ jid, tool, arguments: { input: marker(context, 'input') } });
  const version = listed.target?.version;
  return {
    call,
    listedVersion:
      version === '1.0.0' ? version : `listed the tool at version ${version ?? '(none)'}, not 1.0.0`,
  };
}

/**
 * A gateway's call-out tool, asked to call unpinned, must fetch the active manifest: its answer
 * (1.0.0) is held, another version is activated, then the answer is released; every later query
 * meets 2.0.0 active, and the invoke must still carry what the fetch returned.
 */
async function callAcrossActivation(
  context: CallerCaseContext,
  session: CallerScene,
  jid: string,
  tool: string,
  activateNext: () => void,
): Promise<PinnedCall> {
  const manifests = session.target.stream({ kind: 'manifest', to: jid });
  const gate = session.target.hold({ kind: 'manifest', to: jid });
  const call = await session.caller.call({ jid, tool, arguments: { input: marker(context, 'input') } });
  try {
    await manifests.next(callerWaitMs(context));
  } catch (error) {
    if (!(error instanceof StanzaWaitTimeout)) throw error;
    return { call, listedVersion: undefined };
  }
  activateNext();
  gate.release();
  context.note(`the caller's manifest request is answered with 1.0.0 after version 2.0.0 became active`);
  return { call, listedVersion: '1.0.0' };
}

export const manifestRetrievalCallerSuite = defineCallerSuite(
  'manifest-retrieval',
  'Manifest retrieval (caller side)',
  [
    {
      id: 'manifest-retrieval.caller-keeps-pinned-version',
      requirements: ['manifest-retrieval.client-pins-version'],
      assessments: ['caller-side'],
      interfaces: EVERY_INTERFACE,
      level: 'MUST',
      statement:
        'After the endpoint activates a new version mid-session, the caller still invokes with the version and manifest hash it pinned.',
      async run(context) {
        const jid = `pinned@${context.targetDomain}`;
        const tool = 'task.run';
        const endpoint = (active: string) => ({
          jid,
          manifests: [
            simpleManifest(jid, '1.0.0', [{ name: tool }]),
            simpleManifest(jid, '2.0.0', [{ name: tool }]),
          ],
          active,
        });
        const session = await context.startCaller({ endpoints: [endpoint('1.0.0')] });
        const pinned = session.target.world.endpoints.get(jid)?.versions.get('1.0.0')?.document.hash;
        if (pinned === undefined) throw new Error('the world has no version 1.0.0');
        const invokes = session.target.stream({ kind: 'invoke' });
        const { call, listedVersion } =
          session.mcp === undefined
            ? await callAcrossActivation(context, session, jid, tool, () => {
                session.target.setWorld({ endpoints: [endpoint('2.0.0')] });
              })
            : await listThenCall(context, session, jid, tool, () => {
                session.target.setWorld({ endpoints: [endpoint('2.0.0')] });
              });
        const invoke = await invokes.next(callerWaitMs(context));
        const sent = invokeOf(invoke);
        const task = session.target.taskOf(invoke);
        await session.target.sendEvent(task, {
          type: 'completed',
          payload: completedWith(marker(context, 'done')),
        });
        await call.done.catch(() => undefined);
        if (listedVersion === undefined) {
          throw new CannotTell(
            'the caller fetched no manifest of the endpoint, so it pinned no version the case could move',
          );
        }
        if (sent.apiVersion !== '1.0.0' || sent.manifestHash.value !== pinned.value) {
          throw new RequirementViolation(
            'manifest-retrieval.client-pins-version',
            `api-version 1.0.0 and manifest hash ${pinned.value} (what the caller pinned)`,
            invoke.xml,
            `manifest-retrieval.client-pins-version: the caller invoked version ${sent.apiVersion} after another version became active`,
          );
        }
        if (listedVersion !== '1.0.0') {
          throw new CannotTell(`the caller ${listedVersion}`);
        }
        context.held(
          'manifest-retrieval.client-pins-version',
          'the invoke carried the pinned 1.0.0 and its hash',
        );
      },
    },
  ],
);
