/**
 * The script language of the conformance tools (docs/conformance-tools.md): the arguments of
 * every `script*` tool are a ledger key and a list of steps, parsed here into typed steps. The
 * parser accepts exactly what the tools' inputSchema (fixtures/manifests/conformance.json)
 * accepts; script.test.ts holds the two together.
 *
 * Payload members that the lifecycle schema constrains (percent range, message lengths,
 * failure-code syntax) are deliberately not constrained here: a suite scripts an out-of-range
 * value to check that the gateway refuses to emit it (#event-json-schemas, #errors).
 */
import { parseDateTime, type XmppDateTime } from '../datetime.ts';
import type { ProgressPayload, TaskFailure } from '../events/payload-types.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../json/json-value.ts';
import { ArgumentProblem, ObjectReader } from './argument-reader.ts';
import { DEFAULT_EXPIRY_FAILURE } from './failures.ts';

/**
 * What an accepted cancellation (#cancellation: advisory, state cancelling) does to a waiting
 * step: settle the task cancelled, go on as if nothing happened, or stop waiting and run the
 * next step (which then decides: complete anyway, fail, confirm with a reason, ...).
 */
export type CancelPolicy = 'confirm' | 'ignore' | 'proceed';
const CANCEL_POLICIES: readonly CancelPolicy[] = ['confirm', 'ignore', 'proceed'];

/** How long a wait step lasts when nothing interrupts it. */
export type WaitSpan =
  | { readonly kind: 'for'; readonly ms: number }
  | { readonly kind: 'until'; readonly instant: XmppDateTime }
  /** Only cancellation (unless ignored) or settlement ends it. */
  | { readonly kind: 'unbounded' };

export interface ProgressStep {
  readonly kind: 'progress';
  readonly update: ProgressPayload;
}

export interface WaitStep {
  readonly kind: 'wait';
  readonly span: WaitSpan;
  readonly onCancel: CancelPolicy;
}

export interface InputStep {
  readonly kind: 'input';
  readonly question: string;
  readonly inputSchema: JsonObject;
  /** Each request expires this long after it is made; absent: the request never expires. */
  readonly expiresInMs?: number;
  /** How many new requests follow an expiry before the step gives up. */
  readonly reissue: number;
  /** The failure committed when the last request expires unanswered. */
  readonly expiryFailure: TaskFailure;
  readonly onCancel: CancelPolicy;
}

export interface IncrementStep {
  readonly kind: 'increment';
  readonly key: string;
}

export interface CompleteStep {
  readonly kind: 'complete';
  readonly content: readonly JsonObject[];
  /** Present (null included) when the script gives one; never together with echoInputs. */
  readonly structuredContent?: JsonValue;
  /** structuredContent becomes {"inputs": [every answered input, in order]}. */
  readonly echoInputs: boolean;
  readonly isError?: boolean;
  readonly meta?: JsonObject;
  readonly summary?: string;
}

export interface FailStep {
  readonly kind: 'fail';
  readonly failure: TaskFailure;
}

export interface CancelStep {
  readonly kind: 'cancel';
  readonly reason?: string;
}

export type Step = ProgressStep | WaitStep | InputStep | IncrementStep | CompleteStep | FailStep | CancelStep;
export type StepKind = Step['kind'];

/**
 * complete, fail and cancel settle the task: a script ends at the first of them, except that
 * the steps after a `cancel` are then attempted as late output, which the gateway must discard
 * (#cancellation; interpreter.ts).
 */
export const TERMINAL_STEP_KINDS: readonly StepKind[] = ['complete', 'fail', 'cancel'];

export interface Script {
  /** Incremented once when execution starts, before the first step. */
  readonly ledgerKey?: string;
  readonly steps: readonly Step[];
}

/** Bounds shared with the inputSchema. */
export const SCRIPT_LIMITS = {
  maxSteps: 256,
  maxMs: 3_600_000,
  maxReissue: 16,
} as const;

export type ParseOutcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: ArgumentProblem };

export function parseScript(args: JsonValue): ParseOutcome<Script> {
  try {
    const root = ObjectReader.of(args, '', ['ledgerKey', 'steps']);
    const ledgerKey = root.ledgerKey('ledgerKey');
    const list = root.array('steps');
    if (list === undefined) throw new ArgumentProblem(root.at('steps'), 'required but absent');
    if (list.length > SCRIPT_LIMITS.maxSteps) {
      throw new ArgumentProblem(root.at('steps'), `more than ${SCRIPT_LIMITS.maxSteps} steps`);
    }
    const steps = list.map((step, index) => parseStep(step, `/steps/${index}`));
    return { ok: true, value: { ...(ledgerKey === undefined ? {} : { ledgerKey }), steps } };
  } catch (error) {
    if (error instanceof ArgumentProblem) return { ok: false, problem: error };
    throw error;
  }
}

const STEP_PARSERS: Readonly<Record<StepKind, (body: JsonValue | undefined, pointer: string) => Step>> = {
  progress: parseProgress,
  wait: parseWait,
  input: parseInput,
  increment: parseIncrement,
  complete: parseComplete,
  fail: (body, pointer) => ({ kind: 'fail', failure: parseFailure(body, pointer) }),
  cancel: parseCancel,
};

function isStepKind(name: string): name is StepKind {
  return Object.hasOwn(STEP_PARSERS, name);
}

/** A step is an object with exactly one member, named after the step's kind. */
function parseStep(value: JsonValue, pointer: string): Step {
  if (!isJsonObject(value)) throw new ArgumentProblem(pointer, 'not an object');
  const names = Object.keys(value);
  const [kind] = names;
  if (names.length !== 1 || kind === undefined || !isStepKind(kind)) {
    throw new ArgumentProblem(pointer, 'not exactly one step member');
  }
  return STEP_PARSERS[kind](value[kind], `${pointer}/${kind}`);
}

function parseProgress(body: JsonValue | undefined, pointer: string): ProgressStep {
  const reader = ObjectReader.of(body, pointer, ['percent', 'stage', 'message']);
  const percent = reader.number('percent');
  const stage = reader.string('stage');
  const message = reader.string('message');
  return {
    kind: 'progress',
    update: {
      ...(percent === undefined ? {} : { percent }),
      ...(stage === undefined ? {} : { stage }),
      ...(message === undefined ? {} : { message }),
    },
  };
}

/** Mirrors the inputSchema's pattern; parseDateTime then checks the field ranges. */
const UNTIL_PATTERN =
  /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$/;

function parseWait(body: JsonValue | undefined, pointer: string): WaitStep {
  const reader = ObjectReader.of(body, pointer, ['ms', 'until', 'onCancel']);
  const ms = reader.integer('ms', 0, SCRIPT_LIMITS.maxMs);
  const until = reader.string('until');
  if (ms !== undefined && until !== undefined) {
    throw new ArgumentProblem(pointer, 'both "ms" and "until"');
  }
  let span: WaitSpan = { kind: 'unbounded' };
  if (ms !== undefined) span = { kind: 'for', ms };
  if (until !== undefined) span = { kind: 'until', instant: instantAt(until, reader.at('until')) };
  return { kind: 'wait', span, onCancel: cancelPolicy(reader) };
}

function instantAt(text: string, pointer: string): XmppDateTime {
  if (!UNTIL_PATTERN.test(text)) throw new ArgumentProblem(pointer, 'not an XEP-0082 date-time');
  try {
    return parseDateTime(text);
  } catch {
    throw new ArgumentProblem(pointer, 'not an XEP-0082 date-time');
  }
}

function cancelPolicy(reader: ObjectReader): CancelPolicy {
  const value = reader.string('onCancel');
  if (value === undefined) return 'confirm';
  const policy = CANCEL_POLICIES.find((candidate) => candidate === value);
  if (policy === undefined) throw new ArgumentProblem(reader.at('onCancel'), 'not a cancellation policy');
  return policy;
}

function parseInput(body: JsonValue | undefined, pointer: string): InputStep {
  const reader = ObjectReader.of(body, pointer, [
    'question',
    'inputSchema',
    'expiresInMs',
    'reissue',
    'expiryFailure',
    'onCancel',
  ]);
  const question = reader.requiredString('question');
  const inputSchema = reader.requiredObject('inputSchema');
  const expiresInMs = reader.integer('expiresInMs', 0, SCRIPT_LIMITS.maxMs);
  const reissue = reader.integer('reissue', 0, SCRIPT_LIMITS.maxReissue) ?? 0;
  const expiryFailure = reader.has('expiryFailure')
    ? parseFailure(reader.any('expiryFailure'), reader.at('expiryFailure'))
    : DEFAULT_EXPIRY_FAILURE;
  return {
    kind: 'input',
    question,
    inputSchema,
    ...(expiresInMs === undefined ? {} : { expiresInMs }),
    reissue,
    expiryFailure,
    onCancel: cancelPolicy(reader),
  };
}

function parseIncrement(body: JsonValue | undefined, pointer: string): IncrementStep {
  const reader = ObjectReader.of(body, pointer, ['key']);
  const key = reader.ledgerKey('key');
  if (key === undefined) throw new ArgumentProblem(reader.at('key'), 'required but absent');
  return { kind: 'increment', key };
}

function parseComplete(body: JsonValue | undefined, pointer: string): CompleteStep {
  const reader = ObjectReader.of(body, pointer, [
    'content',
    'structuredContent',
    'echoInputs',
    'isError',
    '_meta',
    'summary',
  ]);
  const content = (reader.array('content') ?? []).map((item, index) => {
    if (!isJsonObject(item)) throw new ArgumentProblem(`${reader.at('content')}/${index}`, 'not an object');
    return item;
  });
  if (reader.has('structuredContent') && reader.has('echoInputs')) {
    throw new ArgumentProblem(pointer, 'both "structuredContent" and "echoInputs"');
  }
  const structuredContent = reader.any('structuredContent');
  const isError = reader.boolean('isError');
  const meta = reader.object('_meta');
  const summary = reader.string('summary');
  return {
    kind: 'complete',
    content,
    ...(structuredContent === undefined ? {} : { structuredContent }),
    echoInputs: reader.boolean('echoInputs') ?? false,
    ...(isError === undefined ? {} : { isError }),
    ...(meta === undefined ? {} : { meta }),
    ...(summary === undefined ? {} : { summary }),
  };
}

function parseFailure(body: JsonValue | undefined, pointer: string): TaskFailure {
  const reader = ObjectReader.of(body, pointer, ['code', 'message', 'retryable', 'details']);
  const details = reader.object('details');
  return {
    code: reader.requiredString('code'),
    message: reader.requiredString('message'),
    retryable: reader.requiredBoolean('retryable'),
    ...(details === undefined ? {} : { details }),
  };
}

function parseCancel(body: JsonValue | undefined, pointer: string): CancelStep {
  const reason = ObjectReader.of(body, pointer, ['reason']).string('reason');
  return { kind: 'cancel', ...(reason === undefined ? {} : { reason }) };
}
