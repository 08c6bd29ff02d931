/**
 * #json-encoding, judged on the caller: JSON it cannot accept in an IQ result fails its own
 * operation and gets no IQ response; a lifecycle message it refuses for a limit is handled like
 * any invalid lifecycle message (ignored: the task's valid completion still answers the call).
 * A caller's limits are its own: the case tries over-limit classes until one is refused, and a
 * caller that refuses none leaves the MUST undecided (cantTell, never a pass nor inapplicable).
 */
import { xml } from '@xmpp/xml';

import { NS, NS_AGENT_API } from '../../../protocol/namespaces.ts';
import { CannotTell, RequirementViolation } from '../../framework/verdicts.ts';
import type { CallerCaseContext } from '../framework/caller-context.ts';
import { stanzaAfterReport } from '../framework/call-settled.ts';
import { defineCallerSuite } from '../framework/caller-case.ts';
import { EVERY_INTERFACE } from '../framework/caller-under-test.ts';
import { metadataPrompt, oneToolWorld, promptMetadataQuery } from '../framework/caller-steps.ts';
import {
  callTool,
  completedWith,
  marker,
  startCalledTask,
  type CalledTask,
} from '../framework/task-steps.ts';

/**
 * Over-limit completions, mildest first, each far past what callers usually document (the
 * reference bridge's limits: depth 32, 16,384 array elements) yet small enough in bytes for every
 * server on the way to route (a stanza dropped in transit would look like a refusal).
 */
const OVER_LIMIT_CLASSES: readonly {
  readonly what: string;
  readonly structured: (leaf: string) => string;
}[] = [
  { what: 'nested 100 levels deep', structured: (leaf) => nested(100, leaf) },
  { what: 'an array of 20,000 elements', structured: (leaf) => `["${leaf}"${',0'.repeat(19_999)}]` },
  { what: 'nested 1,000 levels deep', structured: (leaf) => nested(1000, leaf) },
];

function nested(depth: number, leaf: string): string {
  return `${'{"a":'.repeat(depth)}"${leaf}"${'}'.repeat(depth)}`;
}

type Handling = 'refused and ignored' | 'accepted';

/**
 * One task completed twice: first over a limit (`uncommitted`: the fake target's own record keeps
 * the valid completion), then validly. Whose marker the call's answer shows says which the caller
 * took; a failed call is a refusal handled unlike an invalid lifecycle message.
 */
async function completeOverLimit(
  context: CallerCaseContext,
  called: CalledTask,
  overLimit: (typeof OVER_LIMIT_CLASSES)[number],
): Promise<Handling> {
  const poison = marker(context, 'over');
  const json = `{"result":{"content":[{"type":"text","text":"${poison}"}],"structuredContent":{"over":${overLimit.structured(poison)}}}}`;
  context.note(`a completion ${overLimit.what} carrying ${poison}, then the valid completion`);
  await called.session.target.sendEvent(called.task, { type: 'completed', json, uncommitted: true });
  const valid = marker(context, 'valid');
  await called.session.target.sendEvent(called.task, { type: 'completed', payload: completedWith(valid) });
  let answer: string;
  try {
    answer = JSON.stringify(await called.call.done);
  } catch (error) {
    // The suite's own wait ended (a call-out task that never reported): nothing the caller said.
    if (error instanceof CannotTell) throw error;
    throw new RequirementViolation(
      'json-encoding.caller-limit-handling',
      `the completion ${overLimit.what} ignored and the call answered with the valid completion ${valid}`,
      error instanceof Error ? error.message : String(error),
      'json-encoding.caller-limit-handling: the caller failed the call instead of ignoring an over-limit lifecycle message',
    );
  }
  if (answer.includes(poison)) return 'accepted';
  if (!answer.includes(valid)) throw new CannotTell(`the call's answer shows neither completion: ${answer}`);
  return 'refused and ignored';
}

export const jsonEncodingCallerSuite = defineCallerSuite('json-encoding', 'JSON encoding (caller side)', [
  {
    id: 'json-encoding.caller-ignores-over-limit-event',
    requirements: ['json-encoding.caller-limit-handling'],
    assessments: ['caller-side'],
    interfaces: EVERY_INTERFACE,
    level: 'MUST',
    interpretations: ['interp-45'],
    statement:
      'A completion past the caller’s limits (deep nesting, a long array), if the caller refuses it, is ignored like any invalid lifecycle message: the task’s valid completion still answers the call.',
    async run(context) {
      let called = await startCalledTask(context, 'limits');
      const accepted: string[] = [];
      for (const [index, overLimit] of OVER_LIMIT_CLASSES.entries()) {
        if (index > 0) called = await callTool(context, called.session, called.jid, 'task.run');
        if ((await completeOverLimit(context, called, overLimit)) === 'accepted') {
          accepted.push(overLimit.what);
          continue;
        }
        context.held(
          'json-encoding.caller-limit-handling',
          `the completion ${overLimit.what} was ignored; the valid one answered`,
        );
        return;
      }
      // The MUST binds a caller that refuses; one with no limit these reach was not seen refusing.
      throw new CannotTell(
        `the caller accepted every over-limit completion (${accepted.join('; ')}): it refused none for a limit, so how it handles such a refusal was not seen`,
      );
    },
  },
  {
    id: 'json-encoding.caller-sends-no-reply-to-bad-result',
    requirements: ['json-encoding.unacceptable-iq-result'],
    assessments: ['caller-side'],
    interfaces: EVERY_INTERFACE,
    level: 'MUST',
    interpretations: ['interp-45'],
    statement:
      'A manifest result whose JSON the caller cannot accept (not JSON at all) fails the caller’s own operation and gets no IQ response from it.',
    async run(context) {
      const { world, jid, tool } = oneToolWorld(context, 'badjson', 'task.run');
      const session = await context.startCaller(world);
      const record = session.target.world.endpoints.get(jid)?.active;
      if (record === undefined) throw new Error('the world has no active version');
      const broken = xml(
        'manifest',
        { xmlns: NS_AGENT_API, 'media-type': 'application/json', version: record.version },
        xml('hash', { xmlns: NS.hashes, algo: record.document.hash.algo }, record.document.hash.value),
        xml('json', {}, `{"agent": ${marker(context, 'unterminated')}`),
      );
      const rule = session.target.on({ kind: 'manifest' }, { answer: 'result', payload: broken });
      const responses = session.target.stream({
        kind: 'iq-response',
        where: (stanza) => !session.target.isBarrierAnswer(stanza),
      });
      context.note('every manifest request of the caller is answered with JSON that does not parse');
      await promptMetadataQuery(context, session, jid, tool);
      if (rule.used === 0) {
        throw new CannotTell(
          `the caller retrieved no manifest ${metadataPrompt(session)}, so it met no IQ result it could not accept and its handling of one was not seen`,
        );
      }
      // The caller reported (or listed) already: flushed, its log is complete; else the old wait.
      const response = await stanzaAfterReport(
        context,
        session,
        responses,
        context.timeouts.replySeconds * 1000,
      );
      if (response !== undefined) {
        throw new RequirementViolation(
          'json-encoding.unacceptable-iq-result',
          'no IQ response to an IQ result the caller could not accept',
          response.xml,
          'json-encoding.unacceptable-iq-result: the caller answered an IQ result',
        );
      }
      context.held(
        'json-encoding.unacceptable-iq-result',
        `${String(rule.used)} unparseable manifest result(s) got no IQ response`,
      );
    },
  },
]);
