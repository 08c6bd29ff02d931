/**
 * An invocation whose <arguments/> reach the gateway split into CDATA
 * sections, character references and escaped text. CDATA is legal XML (RFC 6120 restricts no
 * CDATA), and #json-encoding reads JSON "after normal XML entity decoding and concatenation of
 * adjacent character-data nodes": the gateway must admit it exactly like the unsplit request,
 * which the caller then sends normally and must get the same task for (the tool ran once, and
 * its result carries the string that was split).
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import type { JsonValue } from '../../../protocol/json/json-value.ts';
import { buildInvoke, type Invoke } from '../../../protocol/stanza/index.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectThat } from '../../framework/expect.ts';
import { freshLedgerKey, readLedger } from '../support/ledger.ts';
import { expectAccepted, expectTaskResult } from '../support/task-replies.ts';
import { freshRequestId, TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { acceptedOnWire } from '../support/wire-stanzas.ts';
import { answerOnTheLink, LOWER, link } from '../support/raw-component-input.ts';

/** `text` as XML character content in random pieces: CDATA sections, character references, escaped text. */
function splitCharacterData(context: CaseContext, text: string): string {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > 0) {
    const size = Math.min(rest.length, context.random.int(1, 12));
    const piece = rest.slice(0, size);
    rest = rest.slice(size);
    const form = context.random.int(0, 2);
    if (form === 0 && !piece.includes(']]>') && !piece.endsWith(']') && !piece.endsWith(']]')) {
      pieces.push(`<![CDATA[${piece}]]>`);
    } else if (form === 1) {
      pieces.push(
        Array.from(piece, (character) => `&#x${(character.codePointAt(0) ?? 0).toString(16)};`).join(''),
      );
    } else {
      pieces.push(piece.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
    }
  }
  // At least one CDATA boundary, whatever the draw.
  return `<![CDATA[]]>${pieces.join('<![CDATA[]]>')}`;
}

async function cdataSplitArguments(context: CaseContext): Promise<void> {
  link(context);
  const target = conformanceTarget(context);
  const caller = await context.callers.local();
  const tasks = new TaskSession(context, caller, target);
  const count = context.budget.iterations(1, 10);
  for (let index = 0; index < count; index += 1) {
    const ledgerKey = freshLedgerKey(context, 'cdata-split');
    // Markup characters and a CDATA terminator inside the JSON string: what splitting must keep.
    const value = `split <${context.random.string(LOWER, 6)}> & ]]> "é" ${context.random.string(LOWER, 6)}`;
    const args: JsonValue = { ledgerKey, steps: [{ complete: { structuredContent: { value } } }] };
    const argumentsJson = JSON.stringify(args);
    const invoke: Invoke = {
      requestId: freshRequestId(context),
      tool: 'script',
      apiVersion: target.version,
      manifestHash: target.hash,
      argumentsJson,
    };
    const placeholder = `@@${context.random.string(LOWER, 16)}@@`;
    const reply = await answerOnTheLink(context, caller, {
      to: target.jid,
      type: 'set',
      payload: buildInvoke({ ...invoke, argumentsJson: placeholder }),
      raw: { [placeholder]: splitCharacterData(context, argumentsJson) },
    });
    const accepted = reply === undefined ? undefined : acceptedOnWire(reply, invoke.requestId);
    expectThat(
      reply?.toString() ?? `no answer within ${String(context.sut.replyTimeoutMs)} ms`,
      'json-encoding.cdata-independent',
      `<accepted/> for request ${invoke.requestId}: its arguments, split into CDATA sections and character references, are the same JSON as unsplit`,
      accepted !== undefined,
    );
    const retry = expectAccepted(
      await caller.exchangeIq(target.jid, 'set', buildInvoke(invoke)),
      'json-encoding.cdata-independent',
      invoke,
    );
    expectThat(
      `the unsplit request got task ${retry.taskId}`,
      'json-encoding.cdata-independent',
      `the task the split request was admitted as (${accepted?.taskId ?? '?'}): the same request, read the same way`,
      retry.taskId === accepted?.taskId,
    );
    await tasks.awaitSettled(retry.taskId).catch(() => undefined);
    const result = expectTaskResult(await tasks.result(retry.taskId), 'json-encoding.cdata-independent');
    expectThat(
      result.json,
      'json-encoding.cdata-independent',
      `the tool's result carries the split string intact: ${JSON.stringify(value)}`,
      result.json.includes(JSON.stringify(value).slice(1, -1)) || resultValue(result.json) === value,
    );
    const ran = await readLedger(tasks, ledgerKey, 'json-encoding.cdata-independent');
    expectThat(`count ${String(ran)}`, 'json-encoding.cdata-independent', 'the tool ran once', ran === 1);
  }
}

function resultValue(json: string): unknown {
  try {
    const parsed = JSON.parse(json) as { structuredContent?: { value?: unknown } };
    return parsed.structuredContent?.value;
  } catch {
    return undefined;
  }
}

export const rawComponentInputCases: readonly CaseDeclaration<'json-encoding'>[] = [
  {
    id: 'json-encoding.cdata-split-arguments',
    requirements: ['json-encoding.cdata-independent'],
    profiles: ['task-execution'],
    level: 'MUST',
    scenario: 'bad-input',
    timeoutMs: 120_000,
    statement:
      'An invocation whose <arguments/> reach the gateway (raw, on its component link) split into CDATA sections, character references and escaped text — around markup characters and a "]]>" inside a JSON string — is admitted like the same request unsplit: the caller then sends it unsplit and gets the same task, the tool ran once and its result holds the split string intact.',
    run: cdataSplitArguments,
  },
];
