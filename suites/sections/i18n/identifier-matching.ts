/**
 * #i18n for the identifiers a gateway compares but never prepares: manifest hashes (base64),
 * request IDs and task IDs are matched exactly, so a spelling that differs from the real one
 * only in the case of I and i (or of any letter) names something else. Under a Turkish locale a
 * locale-aware comparison fails differently from the root locale's, and the case runs either way
 * (a failure is a failure anywhere); it passes only under such a locale (requireTurkishLocale).
 */
import type { IqExchange } from '../../../harness/driver/index.ts';
import type { CaseDeclaration } from '../../framework/case.ts';
import { expectStanzaError, expectThat } from '../../framework/expect.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import { expectAccepted } from '../support/task-replies.ts';
import { freshRequestId, TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { requireTurkishLocale } from './turkish-locale.ts';

const QUICK = { steps: [{ complete: {} }] };

/** I for i and i for I, nothing else: the pair the Turkish locale treats apart. */
function swapI(text: string): string {
  return text.replace(/[iI]/g, (letter) => (letter === 'i' ? 'I' : 'i'));
}

/** Every ASCII letter in the other case. */
function swapCase(text: string): string {
  return text.replace(/[A-Za-z]/g, (letter) =>
    letter === letter.toUpperCase() ? letter.toLowerCase() : letter.toUpperCase(),
  );
}

/** The distinct respellings of `text` that differ from it in letter case only. */
function respellings(text: string): string[] {
  return [...new Set([swapI(text), swapCase(text)])].filter((spelling) => spelling !== text);
}

/** How many fresh tasks may be started to find a task ID with an I or i in it (each ~1/2 likely). */
const TASK_ID_TRIES = 12;

export const identifierMatchingCases: readonly CaseDeclaration<'i18n'>[] = [
  {
    id: 'i18n.hash-pin-letter-case',
    requirements: ['i18n.locale-independent-matching', 'rules.version-pinning'],
    profiles: ['task-execution'],
    level: 'MUST',
    scenario: 'equivalence',
    statement:
      'Under a Turkish locale, an invocation pinning the active manifest hash is admitted, and the same invocation pinning the hash with I and i swapped, or with every letter in the other case (another base64 value), is never admitted (conflict: no such manifest).',
    run: async (context) => {
      const target = conformanceTarget(context);
      const tasks = new TaskSession(context, await context.callers.local(), target);
      const { accepted } = await tasks.start('script', QUICK);
      await tasks.awaitSettled(accepted.taskId);
      // The last character before the padding carries the zero padding bits: it keeps its case.
      const { value: hash } = target.hash;
      const tail = hash.length - hash.replace(/=+$/, '').length + 1;
      const spellings = respellings(hash.slice(0, -tail)).map((head) => head + hash.slice(-tail));
      for (const value of spellings) {
        const { exchange } = await tasks.invoke('script', QUICK, { hash: { ...target.hash, value } });
        expectThat(
          exchange.reply.xml,
          'i18n.locale-independent-matching',
          `no admission: ${value} is not the hash ${target.hash.value} (base64 compares exactly)`,
          exchange.parsed.type === 'error',
        );
        expectStanzaError(exchange, 'rules.version-pinning', 'conflict', context);
      }
      requireTurkishLocale(context);
    },
  },
  {
    id: 'i18n.request-and-task-id-letter-case',
    requirements: [
      'i18n.locale-independent-matching',
      'invocation.replay-same-task',
      'task-recovery.indistinguishable-not-found',
    ],
    profiles: ['task-execution'],
    level: 'MUST',
    scenario: 'equivalence',
    statement:
      'Under a Turkish locale, a request ID with i and I in it, repeated exactly, replays its task; the same invocation under the request ID with I and i swapped, or every letter in the other case, is a new task of its own; and a task ID respelled so (one with an I or i in it) names no task: task-state and task-result get item-not-found, as for an unknown ID.',
    run: async (context) => {
      const tasks = new TaskSession(context, await context.callers.local(), conformanceTarget(context));
      const requestId = `${freshRequestId(context)}-iIi`;
      const first = await tasks.start('script', QUICK, { requestId });
      await tasks.awaitSettled(first.accepted.taskId);
      const replay = expectAccepted(
        (await tasks.invoke('script', QUICK, { requestId })).exchange,
        'invocation.replay-same-task',
        first.invoke,
      );
      expectThat(
        `${replay.taskId} for the repeat`,
        'invocation.replay-same-task',
        `the exact request ID replays task ${first.accepted.taskId}`,
        replay.taskId === first.accepted.taskId,
      );
      const taskIds = [first.accepted.taskId];
      for (const other of respellings(requestId)) {
        // Refused (a conflict with the other request's record) or replayed, the IDs were matched loosely.
        const { accepted } = await tasks.start(
          'script',
          QUICK,
          { requestId: other },
          'i18n.locale-independent-matching',
        );
        await tasks.awaitSettled(accepted.taskId);
        expectThat(
          `${accepted.taskId} for ${other}`,
          'i18n.locale-independent-matching',
          `a new task for request ID ${other}: not ${requestId}, whose task is ${first.accepted.taskId}`,
          !taskIds.includes(accepted.taskId),
        );
        taskIds.push(accepted.taskId);
      }
      let withI = taskIds.find((taskId) => /[iI]/.test(taskId));
      for (let tries = 0; withI === undefined && tries < TASK_ID_TRIES; tries += 1) {
        const { accepted } = await tasks.start('script', QUICK);
        await tasks.awaitSettled(accepted.taskId);
        if (/[iI]/.test(accepted.taskId)) withI = accepted.taskId;
      }
      if (withI === undefined) {
        throw new CannotTell(`no task ID of ${String(TASK_ID_TRIES)} fresh tasks held an I or i to respell`);
      }
      const unknown: IqExchange = await tasks.state(`${freshRequestId(context)}-unknown`);
      expectStanzaError(unknown, 'task-recovery.indistinguishable-not-found', 'item-not-found', context);
      for (const other of respellings(withI)) {
        for (const exchange of [await tasks.state(other), await tasks.result(other)]) {
          expectThat(
            exchange.reply.xml,
            'i18n.locale-independent-matching',
            `item-not-found: ${other} is not task ${withI}`,
            exchange.parsed.type === 'error',
          );
          expectStanzaError(exchange, 'task-recovery.indistinguishable-not-found', 'item-not-found', context);
        }
      }
      requireTurkishLocale(context);
    },
  },
];
