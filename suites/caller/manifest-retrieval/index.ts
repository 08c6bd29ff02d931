/**
 * #manifest-retrieval, judged on the caller: the version and hash it pinned when it retrieved
 * the manifest stay its pins for later calls, even once the endpoint activates another version.
 */
import { simpleManifest } from '../../../harness/fake-target/index.ts';
import { CannotTell, RequirementViolation } from '../../framework/verdicts.ts';
import { defineCallerSuite } from '../framework/caller-case.ts';
import { callerWaitMs, listedTool } from '../framework/caller-steps.ts';
import { invokeOf } from '../framework/invoke-stanzas.ts';
import { completedWith, marker } from '../framework/task-steps.ts';

export const manifestRetrievalCallerSuite = defineCallerSuite(
  'manifest-retrieval',
  'Manifest retrieval (caller side)',
  [
    {
      id: 'manifest-retrieval.caller-keeps-pinned-version',
      requirements: ['manifest-retrieval.client-pins-version'],
      assessments: ['caller-side'],
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
        const session = await context.startSession({ endpoints: [endpoint('1.0.0')] });
        const listed = await listedTool(session, jid, tool);
        const pinned = session.target.world.endpoints.get(jid)?.versions.get('1.0.0')?.document.hash;
        if (pinned === undefined) throw new Error('the world has no version 1.0.0');
        session.target.setWorld({ endpoints: [endpoint('2.0.0')] });
        context.note(`the caller listed ${jid} at 1.0.0; version 2.0.0 is active from now on`);
        const invokes = session.target.stream({ kind: 'invoke' });
        const call = session.caller.driver.call(listed.name, { input: marker(context, 'input') });
        const invoke = await invokes.next(callerWaitMs(context));
        const sent = invokeOf(invoke);
        const task = session.target.taskOf(invoke);
        await session.target.sendEvent(task, {
          type: 'completed',
          payload: completedWith(marker(context, 'done')),
        });
        await call.done.catch(() => undefined);
        if (sent.apiVersion !== '1.0.0' || sent.manifestHash.value !== pinned.value) {
          throw new RequirementViolation(
            'manifest-retrieval.client-pins-version',
            `api-version 1.0.0 and manifest hash ${pinned.value} (what the caller pinned)`,
            invoke.xml,
            `manifest-retrieval.client-pins-version: the caller invoked version ${sent.apiVersion} after another version became active`,
          );
        }
        if (listed.target?.version !== '1.0.0') {
          throw new CannotTell(
            `the caller listed the tool at version ${listed.target?.version ?? '(none)'}, not 1.0.0`,
          );
        }
        context.held(
          'manifest-retrieval.client-pins-version',
          'the invoke carried the pinned 1.0.0 and its hash',
        );
      },
    },
  ],
);
