/**
 * cancellation.exact-instant-comparison for input expiry: an input request's expiresAt is an
 * instant with its fractional digits, so an answer 100 ms before it is accepted and one 100 ms
 * after it is refused, each placed on the gateway's own clock (a task of the conformance tools
 * waits until then). A gateway comparing whole seconds gets one of the two wrong whenever the
 * instant's fraction puts them in the same second.
 */
import { dateTimeFromMillis, parseDateTime, toEpochMillis } from '../../../protocol/datetime.ts';
import { isJsonObject } from '../../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import type { CaseDeclaration } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectStanzaError, expectThat } from '../../framework/expect.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import { type GatewayClock, measureGatewayClock, passOnGatewayClock } from '../support/gateway-clock.ts';
import { inputRequestId } from '../support/task-events.ts';
import { expectInputAccepted } from '../support/task-replies.ts';
import { TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { requireToolFeatures } from '../support/tool-features.ts';

const EXPIRES_IN_MS = 300;
const MARGIN_MS = 100;

/** Starts a task asking for input, answers it `offsetMs` from its expiresAt on the gateway's clock. */
async function answerAt(context: CaseContext, clock: GatewayClock, offsetMs: number): Promise<void> {
  const tasks = new TaskSession(context, await context.callers.local(), conformanceTarget(context));
  const { accepted } = await tasks.start('script', {
    steps: [
      { input: { question: 'In time?', inputSchema: { type: 'object' }, expiresInMs: EXPIRES_IN_MS } },
      { complete: { echoInputs: true } },
    ],
  });
  const asked = await tasks.awaitEvent(accepted.taskId, 'input_required');
  const payload = parseStrictJson(asked.event.json);
  const text = isJsonObject(payload) ? payload['expiresAt'] : undefined;
  expectThat(
    asked.stanza.xml,
    'interactive-input.expiry-enforced',
    'an input_required event with the expiresAt the tool asked for',
    typeof text === 'string',
  );
  if (typeof text !== 'string') return;
  const expiresAt = parseDateTime(text);
  await passOnGatewayClock(tasks, dateTimeFromMillis(toEpochMillis(expiresAt) + offsetMs));
  const sentAt = Date.now();
  const answer = await tasks.provideInput(accepted.taskId, inputRequestId(asked), asked.event.revision, {});
  tasks.caller.transcript.note(
    `answer sent ${String(clock.notBefore(expiresAt) - sentAt)} ms, answered ${String(clock.notBefore(expiresAt) - Date.now())} ms before the gateway's clock can have reached ${text} (offset ${String(clock.offsetLowMs)}..${String(clock.offsetHighMs)} ms)`,
  );
  if (offsetMs > 0) {
    expectStanzaError(answer, 'cancellation.exact-instant-comparison', 'conflict', context);
    await tasks.awaitSettled(accepted.taskId);
    return;
  }
  // Answered too late to tell, on a slow machine: the gateway's clock may have reached expiresAt.
  if (answer.parsed.type === 'error' && Date.now() >= clock.notBefore(expiresAt)) {
    await tasks.awaitSettled(accepted.taskId);
    throw new CannotTell(
      `the answer meant for ${String(-offsetMs)} ms before ${text} may have arrived after it`,
    );
  }
  expectInputAccepted(answer, 'cancellation.exact-instant-comparison');
  await tasks.awaitSettled(accepted.taskId);
}

export const expiryInstantCases: readonly CaseDeclaration<'interactive-input'>[] = [
  {
    id: 'interactive-input.expiry-compared-as-instant',
    // Its answers land 100 ms either side of an expiry: other cases' traffic beside it would
    // make the arrival uncertain (a cannot-tell), so it runs on a quiet gateway.
    alongside: false,
    requirements: ['cancellation.exact-instant-comparison', 'interactive-input.expiry-enforced'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    interpretations: ['interp-31', 'interp-35'],
    statement: `Two input requests expiring ${String(EXPIRES_IN_MS)} ms after they are issued: the one answered ${String(MARGIN_MS)} ms before its expiresAt on the gateway's clock is accepted, the one answered ${String(MARGIN_MS)} ms after it gets conflict (expiresAt compared as the instant it names, fractional seconds included).`,
    run: async (context) => {
      const tasks = new TaskSession(context, await context.callers.local(), conformanceTarget(context));
      await requireToolFeatures(tasks, 'script', ['input']);
      const clock = await measureGatewayClock(tasks);
      // Independent tasks: both run at once.
      await Promise.all([answerAt(context, clock, -MARGIN_MS), answerAt(context, clock, MARGIN_MS)]);
    },
  },
];
