/**
 * Time-bounded validation (#security: regular-expression and schema evaluation MUST be resource
 * bounded; #json-encoding: a validation-time limit is a <resource-constraint/>). No JavaScript
 * evaluator can interrupt its own regular expression, so evaluation runs in a worker thread that is
 * terminated when the budget runs out. The worker is kept warm between calls and caches evaluators
 * by key, so the common path is one message round trip. A second, warmed standby worker takes over
 * the moment one is terminated, so a request that runs out of budget does not stall the ones behind
 * it for a worker's cold start (about a second: the TypeScript loader, the evaluator, and compiling
 * the meta-schema).
 *
 * Requests run one at a time per BudgetedValidator, in arrival order, but they travel in batches:
 * every request queued when the worker becomes free goes in one message, and the worker answers
 * each as it finishes. A gateway under load then pays one thread hop per batch instead of one
 * per request, and the admissions a batch clears reach the same group commit (bench/admission).
 * The budget still covers each request's own turn in the worker (cache miss included), not time
 * spent queued: the clock for a request starts when the previous answer of its batch arrives, so
 * it can only err towards a little more time, never less. The queue itself is bounded.
 */
import { createHash } from 'node:crypto';
import type { ResourceLimits } from 'node:worker_threads';
import { Worker } from 'node:worker_threads';
import { canonicalJson } from '../json/canonical.ts';
import type { JsonValue } from '../json/json-value.ts';
import { CompiledToolSchema } from './compiled-tool-schema.ts';
import type { ToolSchemaDirection } from './policy.ts';
import type { ToolSchemaRule } from './rejection.ts';
import type { SchemaValidationResult } from './validation-result.ts';
import type { WorkerPayload, WorkerReply, WorkerRequest } from './worker-protocol.ts';

/** A schema not compiled in this thread: the worker compiles (and rejects) it within the budget. */
export interface ToolSchemaSource {
  readonly schema: JsonValue;
  readonly direction: ToolSchemaDirection;
}

export interface BudgetFailure {
  readonly rule: 'validation-timeout' | 'validation-overloaded' | 'validation-failed';
  readonly message: string;
}

/** A ToolSchemaSource the worker refused to compile, as a plain value. */
export interface SourceRejection {
  readonly rule: ToolSchemaRule;
  readonly path: string;
  readonly message: string;
}

export type BudgetOutcome = SchemaValidationResult | BudgetFailure | SourceRejection;

export interface BudgetOptions {
  /** Wall-clock limit for this request's evaluation in the worker. */
  readonly timeoutMs: number;
}

export interface BudgetedValidatorOptions {
  /** Requests waiting behind the running batch before new ones are refused (#security: pending work). */
  readonly maxPending?: number;
  /** Heap limits for the worker, so an evaluation cannot exhaust the gateway's memory either. */
  readonly resourceLimits?: ResourceLimits;
  /** Keep a warmed standby worker for instant replacement (default true; costs one idle thread). */
  readonly standby?: boolean;
}

const DEFAULT_MAX_PENDING = 64;
/** Requests per message to the worker; a runaway one sends the rest of its batch back to the queue. */
const MAX_BATCH = 32;
const DEFAULT_RESOURCE_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 256 };
const WORKER_ENTRY = new URL('./validation-worker-boot.js', import.meta.url);

interface Job {
  readonly key: string;
  readonly instance: string;
  readonly payload: () => WorkerPayload;
  readonly timeoutMs: number;
  readonly resolve: (outcome: BudgetOutcome) => void;
}

/** The batch a worker is evaluating: `jobs[0]` is the one its clock runs for. */
interface Batch {
  readonly slot: Slot;
  readonly jobs: Job[];
  readonly ids: number[];
  /** Per job: whether its message carried the payload (the key is then known on a result). */
  readonly withPayload: boolean[];
  /** Jobs the worker asked to resend with their payload (it had evicted the evaluator). */
  readonly resend: Job[];
  timer: ReturnType<typeof setTimeout> | undefined;
}

interface Slot {
  readonly worker: Worker;
  readonly ready: Promise<boolean>;
  /** Keys this worker has been sent a payload for; it may still have evicted them. */
  readonly known: Set<string>;
  onReply: ((reply: WorkerReply) => void) | undefined;
  onDeath: (() => void) | undefined;
}

const evaluatorKeys = new WeakMap<CompiledToolSchema, string>();

function keyOf(target: CompiledToolSchema | ToolSchemaSource): string {
  if (target instanceof CompiledToolSchema) {
    let key = evaluatorKeys.get(target);
    if (key === undefined) {
      key = `evaluator:${createHash('sha256').update(target.serializedEvaluator).digest('hex')}`;
      evaluatorKeys.set(target, key);
    }
    return key;
  }
  return `schema:${target.direction}:${createHash('sha256').update(canonicalJson(target.schema)).digest('hex')}`;
}

function payloadOf(target: CompiledToolSchema | ToolSchemaSource): () => WorkerPayload {
  if (target instanceof CompiledToolSchema) {
    return () => ({
      kind: 'evaluator',
      serialized: target.serializedEvaluator,
      documentUri: target.documentUri,
    });
  }
  return () => ({ kind: 'schema', schema: canonicalJson(target.schema), direction: target.direction });
}

export class BudgetedValidator {
  readonly #maxPending: number;
  readonly #resourceLimits: ResourceLimits;
  readonly #useStandby: boolean;
  readonly #queue: Job[] = [];
  #slot: Slot | undefined;
  #standby: Slot | undefined;
  #running = false;
  #nextId = 1;
  #closed = false;
  /** Messages (batches) sent to workers so far, for tests and the bench. */
  batchesSent = 0;

  constructor(options: BudgetedValidatorOptions = {}) {
    this.#maxPending = options.maxPending ?? DEFAULT_MAX_PENDING;
    this.#resourceLimits = options.resourceLimits ?? DEFAULT_RESOURCE_LIMITS;
    this.#useStandby = options.standby ?? true;
  }

  validate(
    target: CompiledToolSchema | ToolSchemaSource,
    instance: JsonValue,
    options: BudgetOptions,
  ): Promise<BudgetOutcome> {
    if (this.#closed) return Promise.resolve(failure('validation-failed', 'the validator is closed'));
    if (this.#queue.length >= this.#maxPending) {
      return Promise.resolve(failure('validation-overloaded', 'too many validations are pending'));
    }
    let key: string;
    let text: string;
    try {
      key = keyOf(target);
      text = JSON.stringify(instance);
    } catch {
      // Only a value outside the strict JSON model (a lone surrogate in a schema source, say) gets here.
      return Promise.resolve(failure('validation-failed', 'the value has no JSON serialization'));
    }
    return new Promise((resolve) => {
      this.#queue.push({
        key,
        instance: text,
        payload: payloadOf(target),
        timeoutMs: options.timeoutMs,
        resolve,
      });
      this.#pump();
    });
  }

  /**
   * Starts the worker and its standby ahead of the first request (at gateway start-up, say) and
   * resolves once both are ready; false if one could not start.
   */
  async warmUp(): Promise<boolean> {
    const active = this.#ensureSlot();
    const standby = this.#ensureStandby();
    const ready = await Promise.all([active.ready, standby?.ready ?? true]);
    return ready.every(Boolean);
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0))
      job.resolve(failure('validation-failed', 'the validator is closed'));
    const workers = [this.#slot, this.#standby].flatMap((slot) => (slot === undefined ? [] : [slot.worker]));
    this.#slot = undefined;
    this.#standby = undefined;
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  #pump(): void {
    if (this.#running) return;
    if (this.#closed) {
      for (const job of this.#queue.splice(0))
        job.resolve(failure('validation-failed', 'the validator is closed'));
    }
    const leader = this.#queue.shift();
    if (leader === undefined) {
      this.#slot?.worker.unref();
      return;
    }
    this.#running = true;
    const slot = this.#ensureSlot();
    // A pending request must keep the process alive until it settles.
    slot.worker.ref();
    void slot.ready.then((ready) => {
      // Whatever queued up behind the leader meanwhile travels with it.
      const jobs = [leader, ...this.#queue.splice(0, MAX_BATCH - 1)];
      if (!ready) {
        for (const job of jobs)
          job.resolve(failure('validation-failed', 'the validation worker did not start'));
        this.#idle();
        return;
      }
      this.#send(slot, jobs);
    });
  }

  #send(slot: Slot, jobs: Job[]): void {
    // A key new to this worker carries its payload once per batch: the worker caches it in order.
    const sending = new Set<string>();
    const withPayload = jobs.map((job) => {
      if (slot.known.has(job.key) || sending.has(job.key)) return false;
      sending.add(job.key);
      return true;
    });
    const batch: Batch = { slot, jobs, ids: [], withPayload, resend: [], timer: undefined };
    const requests = jobs.map((job, index): WorkerRequest => {
      const id = this.#nextId++;
      batch.ids.push(id);
      return withPayload[index] === true
        ? { id, key: job.key, instance: job.instance, payload: job.payload() }
        : { id, key: job.key, instance: job.instance };
    });
    slot.onDeath = () => {
      this.#endBatch(batch, failure('validation-failed', 'the validation worker stopped'));
    };
    slot.onReply = (reply) => {
      if (reply.type !== 'ready') this.#answer(batch, reply);
    };
    this.#armClock(batch);
    this.batchesSent += 1;
    slot.worker.postMessage(requests);
  }

  /** Starts the budget of the batch's head job. */
  #armClock(batch: Batch): void {
    const head = batch.jobs[0];
    if (head === undefined) return;
    batch.timer = setTimeout(() => {
      this.#discard(batch.slot);
      this.#endBatch(batch, failure('validation-timeout', `evaluation exceeded ${head.timeoutMs} ms`));
    }, head.timeoutMs);
  }

  #answer(batch: Batch, reply: Exclude<WorkerReply, { type: 'ready' }>): void {
    // The worker answers in order; anything but the head's answer is stale.
    if (reply.id !== batch.ids[0]) return;
    clearTimeout(batch.timer);
    const job = batch.jobs.shift();
    batch.ids.shift();
    const carried = batch.withPayload.shift() === true;
    if (job !== undefined) {
      if (reply.type === 'need-payload') {
        // The worker evicted the evaluator: this job goes round again with its payload.
        batch.slot.known.delete(job.key);
        batch.resend.push(job);
      } else {
        if (carried) batch.slot.known.add(job.key);
        job.resolve(outcomeOf(reply));
      }
    }
    if (batch.jobs.length > 0) {
      this.#armClock(batch);
      return;
    }
    batch.slot.onReply = undefined;
    batch.slot.onDeath = undefined;
    this.#queue.unshift(...batch.resend);
    this.#idle();
  }

  /**
   * The worker stopped (or was stopped) during `batch`: its head job gets `outcome`, the jobs
   * behind it were not evaluated and go back to the front of the queue.
   */
  #endBatch(batch: Batch, outcome: BudgetOutcome): void {
    clearTimeout(batch.timer);
    batch.slot.onReply = undefined;
    batch.slot.onDeath = undefined;
    const [head, ...rest] = batch.jobs.splice(0);
    head?.resolve(outcome);
    this.#queue.unshift(...batch.resend, ...rest);
    this.#idle();
  }

  #idle(): void {
    this.#running = false;
    this.#pump();
  }

  #ensureSlot(): Slot {
    if (this.#slot === undefined) {
      const slot = this.#standby ?? this.#spawn();
      this.#standby = undefined;
      this.#slot = slot;
      // The standby starts once the active worker is ready, so the two never compete for the CPU
      // while a request is waiting.
      void slot.ready.then((ready) => {
        if (ready && this.#slot === slot) this.#ensureStandby();
      });
    }
    return this.#slot;
  }

  #ensureStandby(): Slot | undefined {
    if (!this.#useStandby || this.#closed) return undefined;
    this.#standby ??= this.#spawn();
    return this.#standby;
  }

  #spawn(): Slot {
    const worker = new Worker(WORKER_ENTRY, { resourceLimits: this.#resourceLimits });
    worker.unref();
    let markReady: (ready: boolean) => void = () => undefined;
    const ready = new Promise<boolean>((resolve) => {
      markReady = resolve;
    });
    const slot: Slot = { worker, ready, known: new Set(), onReply: undefined, onDeath: undefined };
    worker.on('message', (reply: WorkerReply) => {
      if (reply.type === 'ready') markReady(true);
      else slot.onReply?.(reply);
    });
    const died = (): void => {
      markReady(false);
      if (this.#slot === slot) this.#slot = undefined;
      if (this.#standby === slot) this.#standby = undefined;
      const onDeath = slot.onDeath;
      slot.onDeath = undefined;
      slot.onReply = undefined;
      onDeath?.();
    };
    worker.on('error', died);
    worker.on('exit', died);
    return slot;
  }

  /** Stops a worker whose request ran out of time; the standby (or a fresh worker) takes over. */
  #discard(slot: Slot): void {
    slot.onReply = undefined;
    slot.onDeath = undefined;
    if (this.#slot === slot) this.#slot = undefined;
    void slot.worker.terminate();
    if (!this.#closed) this.#ensureSlot();
  }
}

function failure(rule: BudgetFailure['rule'], message: string): BudgetFailure {
  return { rule, message };
}

function outcomeOf(reply: Exclude<WorkerReply, { type: 'ready' | 'need-payload' }>): BudgetOutcome {
  switch (reply.type) {
    case 'result':
      return reply.result;
    case 'rejected':
      return { rule: reply.rule, path: reply.path, message: reply.message };
    case 'failed':
      return failure('validation-failed', `evaluation failed (${reply.message.slice(0, 60)})`);
  }
}

let shared: BudgetedValidator | undefined;

/** The process-wide validator behind validateWithinBudget, created on first use. */
export function sharedBudgetedValidator(): BudgetedValidator {
  shared ??= new BudgetedValidator();
  return shared;
}

/**
 * Validates within a time budget on the process-wide warm worker. Resolves with the validation
 * result, a BudgetFailure ('validation-timeout' when the budget ran out), or — for a schema source —
 * the rule that refused the schema.
 */
export function validateWithinBudget(
  target: CompiledToolSchema | ToolSchemaSource,
  instance: JsonValue,
  options: BudgetOptions,
): Promise<BudgetOutcome> {
  return sharedBudgetedValidator().validate(target, instance, options);
}

/** Stops the process-wide worker (tests, orderly shutdown); the next call starts a new one. */
export async function closeSharedValidator(): Promise<void> {
  const current = shared;
  shared = undefined;
  await current?.close();
}
