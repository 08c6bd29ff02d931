/**
 * #json-encoding, judged on the caller: JSON it cannot accept in an IQ result fails its own
 * operation and gets no IQ response; a lifecycle message it refuses for a limit is handled like
 * any invalid lifecycle message (ignored: the task's valid completion still answers the call).
 * A caller's limits are its own: one that accepts what we send is not judged on refusing it.
 */
import { xml } from '@xmpp/xml';

import { StanzaWaitTimeout } from '../../../harness/fake-target/index.ts';
import { NS, NS_AGENT_API } from '../../../protocol/namespaces.ts';
import { CannotTell, NotApplicable, RequirementViolation } from '../../framework/verdicts.ts';
import { defineCallerSuite } from '../framework/caller-case.ts';
import { oneToolWorld } from '../framework/caller-steps.ts';
import { completedWith, marker, startCalledTask } from '../framework/task-steps.ts';

/** Nesting far past any limit a caller documents for events (the reference bridge's is 32). */
const DEEP_NESTING = 100;

function nested(depth: number, leaf: string): string {
  return `${'{"a":'.repeat(depth)}"${leaf}"${'}'.repeat(depth)}`;
}

export const jsonEncodingCallerSuite = defineCallerSuite('json-encoding', 'JSON encoding (caller side)', [
  {
    id: 'json-encoding.caller-ignores-over-limit-event',
    requirements: ['json-encoding.caller-limit-handling'],
    assessments: ['caller-side'],
    level: 'MUST',
    interpretations: ['interp-45'],
    statement:
      'A completion nested past the caller’s limits, if the caller refuses it, is ignored like any invalid lifecycle message: the task’s valid completion still answers the call.',
    async run(context) {
      const called = await startCalledTask(context, 'limits');
      const { target } = called.session;
      const poison = marker(context, 'deep');
      const deep = `{"result":{"content":[{"type":"text","text":"${poison}"}],"structuredContent":${nested(DEEP_NESTING, poison)}}}`;
      context.note(`a completion ${DEEP_NESTING} levels deep carrying ${poison}, then the valid completion`);
      await target.sendEvent(called.task, { type: 'completed', json: deep, uncommitted: true });
      const valid = marker(context, 'valid');
      await target.sendEvent(called.task, { type: 'completed', payload: completedWith(valid) });
      let answer: string;
      try {
        answer = JSON.stringify(await called.call.done);
      } catch (error) {
        throw new RequirementViolation(
          'json-encoding.caller-limit-handling',
          `the over-limit message ignored and the call answered with the valid completion ${valid}`,
          error instanceof Error ? error.message : String(error),
          'json-encoding.caller-limit-handling: the caller failed the call instead of ignoring an over-limit lifecycle message',
        );
      }
      if (answer.includes(poison)) {
        throw new NotApplicable(
          `the caller accepted a payload ${String(DEEP_NESTING)} levels deep: it refused nothing for a limit, so its handling of a refusal is not exercised`,
        );
      }
      if (!answer.includes(valid))
        throw new CannotTell(`the call's answer shows neither completion: ${answer}`);
      context.held(
        'json-encoding.caller-limit-handling',
        'the over-limit completion was ignored; the valid one answered',
      );
    },
  },
  {
    id: 'json-encoding.caller-sends-no-reply-to-bad-result',
    requirements: ['json-encoding.unacceptable-iq-result'],
    assessments: ['caller-side'],
    level: 'MUST',
    interpretations: ['interp-45'],
    statement:
      'A manifest result whose JSON the caller cannot accept (not JSON at all) fails the caller’s own operation and gets no IQ response from it.',
    async run(context) {
      const { world, jid } = oneToolWorld(context, 'badjson', 'task.run');
      const session = await context.startSession(world);
      const record = session.target.world.endpoints.get(jid)?.active;
      if (record === undefined) throw new Error('the world has no active version');
      const broken = xml(
        'manifest',
        { xmlns: NS_AGENT_API, 'media-type': 'application/json', version: record.version },
        xml('hash', { xmlns: NS.hashes, algo: record.document.hash.algo }, record.document.hash.value),
        xml('json', {}, `{"agent": ${marker(context, 'unterminated')}`),
      );
      const rule = session.target.on({ kind: 'manifest' }, { answer: 'result', payload: broken });
      const responses = session.target.stream({ kind: 'iq-response' });
      context.note('every manifest request of the caller is answered with JSON that does not parse');
      await session.caller.driver.listTools().catch((error: unknown) => {
        context.note(`tools/list failed: ${String(error)}`);
      });
      if (rule.used === 0) {
        throw new NotApplicable(
          'the caller retrieved no manifest, so it met no IQ result it could not accept',
        );
      }
      try {
        const response = await responses.next(context.timeouts.replySeconds * 1000);
        throw new RequirementViolation(
          'json-encoding.unacceptable-iq-result',
          'no IQ response to an IQ result the caller could not accept',
          response.xml,
          'json-encoding.unacceptable-iq-result: the caller answered an IQ result',
        );
      } catch (error) {
        if (!(error instanceof StanzaWaitTimeout)) throw error;
      }
      context.held(
        'json-encoding.unacceptable-iq-result',
        `${String(rule.used)} unparseable manifest result(s) got no IQ response`,
      );
    },
  },
]);
