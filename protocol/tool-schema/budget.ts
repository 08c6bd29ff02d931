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
 * the requests queued when the worker becomes free (and those made in the same event-loop turn)
 * go in one message and come back in one. Under load that is two thread hops per batch instead
 * of two per request: on a small machine each hop is a context switch that showed as about a
 * millisecond of CPU per admission (bench/admission). Only requests with the same budget share a
 * batch, and that is the batch's budget. When a batch runs out of it, the worker is stopped and each of its requests is
 * retried alone, under its own budget: a runaway request is still stopped after its own budget
 * (plus the one its batch spent), and delays the requests batched with it by one budget at most.
 * The budget covers a request's turn in the worker (cache miss included), not time spent queued;
 * the queue itself is bounded. A validation whose cost is bounded statically (a small schema
 * without regular expressions or references, a small instance: inline-bound.ts) skips the worker
 * and runs in the calling thread.
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
import { withinInlineBound } from './inline-bound.ts';
import type { WorkerMessage, WorkerPayload, WorkerReply, WorkerRequest } from './worker-protocol.ts';

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
  /**
   * Evaluate in the calling thread when the static bound allows (default true; inline-bound.ts):
   * false sends every validation to the worker.
   */
  readonly inline?: boolean;
}

const DEFAULT_MAX_PENDING = 64;
/** Requests per message to the worker. */
const MAX_BATCH = 32;
const DEFAULT_RESOURCE_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 256 };
const WORKER_ENTRY = new URL('./validation-worker-boot.js', import.meta.url);

interface Job {
  readonly key: string;
  readonly instance: string;
  readonly payload: () => WorkerPayload;
  readonly timeoutMs: number;
  readonly resolve: (outcome: BudgetOutcome) => void;
  /** Set once a batch holding this job ran out of budget: it is retried in a batch of its own. */
  readonly alone?: boolean;
}

/** The batch a worker is evaluating. */
interface Batch {
  readonly slot: Slot;
  readonly jobs: readonly Job[];
  readonly ids: readonly number[];
  /** Per job: whether its message carried the payload (the key is then known on a result). */
  readonly withPayload: readonly boolean[];
  readonly timer: ReturnType<typeof setTimeout>;
}

interface Slot {
  readonly worker: Worker;
  readonly ready: Promise<boolean>;
  /** Keys this worker has been sent a payload for; it may still have evicted them. */
  readonly known: Set<string>;
  onReplies: ((replies: readonly WorkerReply[]) => void) | undefined;
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
  /** Validations evaluated in the calling thread under the static bound (inline-bound.ts). */
  inlineValidations = 0;
  readonly #inline: boolean;
  /** Whether a worker keeps the process alive while it starts (warmUp's holdProcess). */
  #holdWhileStarting = true;

  constructor(options: BudgetedValidatorOptions = {}) {
    this.#maxPending = options.maxPending ?? DEFAULT_MAX_PENDING;
    this.#resourceLimits = options.resourceLimits ?? DEFAULT_RESOURCE_LIMITS;
    this.#useStandby = options.standby ?? true;
    this.#inline = options.inline ?? true;
  }

  validate(
    target: CompiledToolSchema | ToolSchemaSource,
    instance: JsonValue,
    options: BudgetOptions,
  ): Promise<BudgetOutcome> {
    if (this.#closed) return Promise.resolve(failure('validation-failed', 'the validator is closed'));
    let key: string;
    let text: string;
    try {
      key = keyOf(target);
      text = JSON.stringify(instance);
    } catch {
      // Only a value outside the strict JSON model (a lone surrogate in a schema source, say) gets here.
      return Promise.resolve(failure('validation-failed', 'the value has no JSON serialization'));
    }
    if (
      this.#inline &&
      target instanceof CompiledToolSchema &&
      withinInlineBound(target.inlineWeight, instance, text)
    ) {
      this.inlineValidations += 1;
      try {
        return Promise.resolve(target.validate(instance));
      } catch (error) {
        return Promise.resolve(
          failure(
            'validation-failed',
            `the evaluator failed: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
      }
    }
    // Only worker jobs queue: an inline validation never waits, so the pending bound is not its.
    if (this.#queue.length >= this.#maxPending) {
      return Promise.resolve(failure('validation-overloaded', 'too many validations are pending'));
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
   * Starts the worker and then its standby ahead of the first request (at gateway start-up, say)
   * and resolves once both are ready; false if one could not start. One after the other, as
   * #ensureSlot does: two starting together took two cores' worth of CPU from the process that
   * started them and from its peers. With `holdProcess: false` a starting worker does not keep
   * the process alive (a gateway stopped right after its start exits without waiting for them);
   * a pending request still does.
   */
  async warmUp(options: { readonly holdProcess?: boolean } = {}): Promise<boolean> {
    if (options.holdProcess === false) this.#holdWhileStarting = false;
    if (!(await this.#ensureSlot().ready)) return false;
    return (await this.#ensureStandby()?.ready) ?? true;
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
      // One event-loop turn later: the requests the rest of this turn makes (a burst of
      // invocations read from one socket chunk, say) travel with the leader.
      setImmediate(() => {
        const jobs = [leader, ...this.#takeBatchable(leader)];
        if (!ready) {
          for (const job of jobs)
            job.resolve(failure('validation-failed', 'the validation worker did not start'));
          this.#idle();
          return;
        }
        this.#send(slot, jobs);
      });
    });
  }

  /**
   * The queued jobs that may travel with `leader`: those right behind it with the same budget
   * (so a batch's budget is each of its jobs' own), none when it must go alone.
   */
  #takeBatchable(leader: Job): Job[] {
    if (leader.alone === true) return [];
    const fits = (job: Job | undefined): boolean =>
      job !== undefined && job.alone !== true && job.timeoutMs === leader.timeoutMs;
    let count = 0;
    while (count < MAX_BATCH - 1 && fits(this.#queue[count])) count += 1;
    return this.#queue.splice(0, count);
  }

  #send(slot: Slot, jobs: readonly Job[]): void {
    // A key new to this worker carries its payload once per batch: the worker caches it in order.
    const sending = new Set<string>();
    const withPayload = jobs.map((job) => {
      if (slot.known.has(job.key) || sending.has(job.key)) return false;
      sending.add(job.key);
      return true;
    });
    const ids: number[] = [];
    const requests = jobs.map((job, index): WorkerRequest => {
      const id = this.#nextId++;
      ids.push(id);
      return withPayload[index] === true
        ? { id, key: job.key, instance: job.instance, payload: job.payload() }
        : { id, key: job.key, instance: job.instance };
    });
    const budgetMs = jobs[0]?.timeoutMs ?? 0;
    const batch: Batch = {
      slot,
      jobs,
      ids,
      withPayload,
      timer: setTimeout(() => {
        this.#discard(slot);
        this.#endBatch(batch, failure('validation-timeout', `evaluation exceeded ${budgetMs} ms`));
      }, budgetMs),
    };
    slot.onDeath = () => {
      this.#endBatch(batch, failure('validation-failed', 'the validation worker stopped'));
    };
    slot.onReplies = (replies) => {
      this.#answer(batch, replies);
    };
    this.batchesSent += 1;
    slot.worker.postMessage(requests);
  }

  #answer(batch: Batch, replies: readonly WorkerReply[]): void {
    clearTimeout(batch.timer);
    batch.slot.onReplies = undefined;
    batch.slot.onDeath = undefined;
    const resend: Job[] = [];
    batch.jobs.forEach((job, index) => {
      const reply = replies[index];
      if (reply === undefined || reply.id !== batch.ids[index]) {
        // Not this batch's answer (cannot happen with an intact worker): ask again.
        resend.push(job);
      } else if (reply.type === 'need-payload') {
        // The worker evicted the evaluator: this job goes round again with its payload.
        batch.slot.known.delete(job.key);
        resend.push(job);
      } else {
        if (batch.withPayload[index] === true) batch.slot.known.add(job.key);
        job.resolve(outcomeOf(reply));
      }
    });
    this.#queue.unshift(...resend);
    this.#idle();
  }

  /**
   * The worker ran out of budget or stopped during `batch`. A job that was alone gets `outcome`;
   * the jobs of a larger batch go back to the front of the queue, each to be retried alone, so
   * that the budget and the outcome land on the request that caused them.
   */
  #endBatch(batch: Batch, outcome: BudgetOutcome): void {
    clearTimeout(batch.timer);
    batch.slot.onReplies = undefined;
    batch.slot.onDeath = undefined;
    const [only, ...others] = batch.jobs;
    if (only !== undefined && others.length === 0) only.resolve(outcome);
    else this.#queue.unshift(...batch.jobs.map((job): Job => ({ ...job, alone: true })));
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
    let markReady: (ready: boolean) => void = () => undefined;
    const ready = new Promise<boolean>((resolve) => {
      markReady = resolve;
    });
    const slot: Slot = { worker, ready, known: new Set(), onReplies: undefined, onDeath: undefined };
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'ready') {
        markReady(true);
        // Started (kept alive while it starts, so an awaited warm-up finishes); from now on only
        // pending work keeps it referenced (#pump).
        if (!(this.#running && this.#slot === slot)) worker.unref();
      } else slot.onReplies?.(message.replies);
    });
    const died = (): void => {
      markReady(false);
      if (this.#slot === slot) this.#slot = undefined;
      if (this.#standby === slot) this.#standby = undefined;
      const onDeath = slot.onDeath;
      slot.onDeath = undefined;
      slot.onReplies = undefined;
      onDeath?.();
    };
    worker.on('error', died);
    worker.on('exit', died);
    // After the listeners: adding a message listener refs the worker again.
    if (!this.#holdWhileStarting) worker.unref();
    return slot;
  }

  /** Stops a worker whose request ran out of time; the standby (or a fresh worker) takes over. */
  #discard(slot: Slot): void {
    slot.onReplies = undefined;
    slot.onDeath = undefined;
    if (this.#slot === slot) this.#slot = undefined;
    void slot.worker.terminate();
    if (!this.#closed) this.#ensureSlot();
  }
}

function failure(rule: BudgetFailure['rule'], message: string): BudgetFailure {
  return { rule, message };
}

function outcomeOf(reply: Exclude<WorkerReply, { type: 'need-payload' }>): BudgetOutcome {
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
