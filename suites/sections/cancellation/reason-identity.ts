/**
 * #cancellation, the reason in replay identity: the tuple holds the reason's character data as XML
 * parsing leaves it and nothing more (interp-38). Parsing expands character references and
 * normalizes line ends (XML 1.0 §2.11: a literal CR or CRLF reads as LF, while a &#xD; reference
 * stays a CR); no Unicode normalization follows, so reasons that are canonically or compatibly
 * equivalent but differ in code points are different tuples.
 *
 * The expected answer comes from comparing parsed reasons, never from a label: the same string
 * after parsing is an identical replay (the original acceptance), another string a conflict.
 *
 * Line ends need raw component input: a C2S server parses the caller's &#xD; and may write the CR
 * on to the component literally, which the gateway then rightly reads as LF; only the harness in
 * the server's place decides what reaches the gateway. Code points cross servers unchanged, so
 * that case runs on every federation.
 */
import type { IqExchange } from '../../../harness/driver/index.ts';
import { buildCancel, type CancelAccepted } from '../../../protocol/stanza/index.ts';
import type { CaseDeclaration, ConformanceCase } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectStanzaError, expectThat } from '../../framework/expect.ts';
import { exchangeRawIq, LOWER, link } from '../support/raw-component-input.ts';
import { expectCancelAccepted } from '../support/task-replies.ts';
import { TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { requireToolFeatures } from '../support/tool-features.ts';

/** One way of writing a reason: what the case calls it, and the reason as the gateway must read it. */
interface ReasonForm {
  readonly label: string;
  /** The reason after XML parsing: what replay identity compares. */
  readonly parsed: string;
}

/** A reason written as XML character content, spliced raw into the cancel. */
interface WireReasonForm extends ReasonForm {
  readonly wire: string;
}

/**
 * The same two lines written every way XML 1.0 line-end handling tells apart: what reads as LF
 * (a literal LF, CRLF or CR, a &#xA; reference) and what keeps a CR (references).
 */
function lineEndForms(head: string, tail: string): readonly WireReasonForm[] {
  const form = (label: string, separator: string, parsedSeparator: string): WireReasonForm => ({
    label,
    wire: `${head}${separator}${tail}`,
    parsed: `${head}${parsedSeparator}${tail}`,
  });
  return [
    form('a &#xD; reference', '&#xD;', '\r'),
    form('a &#13; reference', '&#13;', '\r'),
    form('&#xD;&#xA; references', '&#xD;&#xA;', '\r\n'),
    form('a literal LF', '\n', '\n'),
    form('a &#xA; reference', '&#xA;', '\n'),
    form('a literal CRLF', '\r\n', '\n'),
    form('a literal CR', '\r', '\n'),
  ];
}

/**
 * One text in the code points it was written in and in its four Unicode normalization forms: a
 * precomposed letter, the OHM SIGN (which NFC replaces by OMEGA) and the fi ligature (which only
 * the compatibility forms split), so that each form differs from every other.
 */
function codePointForms(suffix: string): readonly ReasonForm[] {
  const written = `arr\u00eat \u2126 \ufb01n ${suffix}`;
  return [
    { label: 'as written', parsed: written },
    ...(['NFC', 'NFD', 'NFKC', 'NFKD'] as const).map((form) => ({
      label: form,
      parsed: written.normalize(form),
    })),
  ];
}

/** The answer replay identity demands for `probe` after `accepted` was accepted with its reason. */
function expectTupleAnswer(
  context: CaseContext,
  exchange: IqExchange,
  original: CancelAccepted,
  accepted: ReasonForm,
  probe: ReasonForm,
): void {
  if (probe.parsed !== accepted.parsed) {
    expectStanzaError(exchange, 'cancellation.different-tuple-conflict', 'conflict', context);
    return;
  }
  const again = expectCancelAccepted(exchange, 'cancellation.identical-replay');
  expectThat(
    exchange.reply.xml,
    'cancellation.identical-replay',
    `the original <cancel-accepted revision='${String(original.revision)}'/>: the reason written as ${probe.label} parses to the accepted one (written as ${accepted.label})`,
    again.taskId === original.taskId && again.revision === original.revision,
  );
}

/**
 * Starts a task that waits until cancelled, has it accept a cancellation whose reason is
 * `accepted`, then sends every probe at the same expected revision in a seeded order, each
 * answered as comparing parsed reasons demands. The task is cancelled whatever happens, so a
 * failure leaves nothing running.
 */
async function probeReasons<Form extends ReasonForm>(
  context: CaseContext,
  tasks: TaskSession,
  accepted: Form,
  probes: readonly Form[],
  send: (taskId: string, expectedRevision: number, form: Form) => Promise<IqExchange>,
): Promise<void> {
  const { accepted: task } = await tasks.start('script', { steps: [{ wait: {} }] });
  const running = await tasks.awaitEvent(task.taskId, 'status');
  let cancelling = false;
  try {
    const first = await send(task.taskId, running.event.revision, accepted);
    const original = expectCancelAccepted(first, 'cancellation.identical-replay');
    cancelling = true;
    for (const probe of context.random.shuffle(probes)) {
      tasks.caller.transcript.note(
        `reason written as ${probe.label} after one written as ${accepted.label}: ${probe.parsed === accepted.parsed ? 'the same' : 'another'} reason once parsed`,
      );
      const exchange = await send(task.taskId, running.event.revision, probe);
      expectTupleAnswer(context, exchange, original, accepted, probe);
    }
  } finally {
    // Not cancelling yet: the task would wait for ever, holding one of the caller's task slots.
    if (!cancelling) await cancelPlainly(tasks, task.taskId, running.event.revision);
  }
  await tasks.awaitSettled(task.taskId);
}

/** Cleanup after a failure: a reasonless cancel; its own failure is noted, never masks the verdict. */
async function cancelPlainly(tasks: TaskSession, taskId: string, revision: number): Promise<void> {
  try {
    const exchange = await tasks.cancel(taskId, revision);
    if (exchange.parsed.type === 'error') {
      tasks.caller.transcript.note(`cleanup: task ${taskId} could not be cancelled; it may still be running`);
    }
  } catch (error) {
    tasks.caller.transcript.note(
      `cleanup: cancelling task ${taskId} failed (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

async function lineEndsCase(context: CaseContext): Promise<void> {
  link(context);
  const target = conformanceTarget(context);
  const caller = await context.callers.local();
  const tasks = new TaskSession(context, caller, target);
  await requireToolFeatures(tasks, 'script', ['cancel']);
  const forms = lineEndForms(`stop ${context.random.string(LOWER, 6)}`, context.random.string(LOWER, 6));
  const placeholder = `@@${context.random.string(LOWER, 16)}@@`;
  const send = (taskId: string, expectedRevision: number, { wire }: WireReasonForm): Promise<IqExchange> =>
    exchangeRawIq(
      context,
      caller,
      {
        to: target.jid,
        type: 'set',
        payload: buildCancel({ taskId, expectedRevision, reason: placeholder }),
        raw: { [placeholder]: wire },
      },
      'cancellation.identical-replay',
    );
  // One task accepted with a CR the references keep, one with a line end that reads as LF.
  for (const accepted of [forms[0], forms[3]]) {
    if (accepted === undefined) throw new Error('unreachable: seven forms');
    await probeReasons(context, tasks, accepted, forms, send);
  }
}

async function codePointsCase(context: CaseContext): Promise<void> {
  const target = conformanceTarget(context);
  const caller = await context.callers.local();
  const tasks = new TaskSession(context, caller, target);
  await requireToolFeatures(tasks, 'script', ['cancel']);
  const forms = codePointForms(context.random.string(LOWER, 6));
  const send = (taskId: string, revision: number, form: ReasonForm): Promise<IqExchange> =>
    tasks.cancel(taskId, revision, form.parsed);
  // Both directions: accepted as written (precomposed), and accepted decomposed.
  for (const accepted of [forms[0], forms[2]]) {
    if (accepted === undefined) throw new Error('unreachable: five forms');
    await probeReasons(context, tasks, accepted, forms, send);
  }
}

/**
 * Both cases replay a cancellation whose reason is written another way than the accepted one's:
 * the same parsed string returns the original acceptance, another string gets conflict
 * (interp-38).
 */
const REASON_REPLAY_CASE = {
  requirements: ['cancellation.identical-replay', 'cancellation.different-tuple-conflict'],
  profiles: ['interactive-tasks'],
  level: 'MUST',
  scenario: 'replay',
  interpretations: ['interp-38'],
} as const satisfies Pick<
  ConformanceCase,
  'requirements' | 'profiles' | 'level' | 'scenario' | 'interpretations'
>;

export const reasonIdentityCases: readonly CaseDeclaration<'cancellation'>[] = [
  {
    id: 'cancellation.reason-line-ends',
    ...REASON_REPLAY_CASE,
    statement:
      'Cancellations whose reasons reach the gateway raw on its component link, the same two lines joined by a literal LF, CRLF or CR, an &#xA;, &#xD; or &#13; reference or &#xD;&#xA;: after one is accepted, each whose reason parses to the same string (a literal CRLF or CR reads as LF, XML 1.0 §2.11) returns the original acceptance, and each that keeps a CR where the other has none, or the reverse, gets conflict.',
    run: lineEndsCase,
  },
  {
    id: 'cancellation.reason-code-points',
    ...REASON_REPLAY_CASE,
    statement:
      'After a cancellation is accepted with a reason holding a precomposed letter, the OHM SIGN and the fi ligature (or with its NFD form), the same reason replayed returns the original acceptance, and the reason in each other Unicode normalization form (NFC, NFD, NFKC, NFKD or as first written), equivalent but other code points, gets conflict.',
    run: codePointsCase,
  },
];
