/**
 * Invocation and durable admission (#invocation, #errors, #idempotency; interp-26–interp-32).
 *
 * Check order — authorization before anything that reveals validity:
 *  1. target endpoint, exact version and exact tool exist AND the policy lets the caller invoke
 *     that tool there (canInvoke, independent of visibility) — evaluated together, answered
 *     with the one item-not-found for every failure;
 *  2. the invocation rate limit (a token is taken even for unauthorized callers, who still get
 *     item-not-found: policy/admission.ts) → resource-constraint;
 *  3. strict I-JSON parse of the arguments → not-acceptable / bad-request / resource-constraint;
 *  4. replay record for (caller, target, request ID), serialized per key: same fingerprint →
 *     the original <accepted/>, rebuilt from the record (same task-id, created, retain-until,
 *     revision 0) even after the deadline or a version change; different → conflict;
 *  5. pins: the version must be the active one and the manifest hash its hash → conflict;
 *  6. approvalRequired tools fail closed (#rules) → forbidden (existence is known to an
 *     authorized caller);
 *  7. a runtime for the endpoint (#errors: "the addressed … endpoint runtime … is
 *     unavailable") → service-unavailable. Checked after authorization and pins, so it reveals
 *     nothing to unauthorized callers and does not mask a stale pin;
 *  8. the requested deadline at or before now → not-acceptable (interp-30);
 *  9. capacity (all tasks, this caller's tasks) → resource-constraint;
 * 10. the arguments against the pinned inputSchema within the budget → not-acceptable, or
 *     resource-constraint when the budget runs out;
 * 11. group commit: replay, pins, deadline and capacity re-checked inside the transaction, then
 *     the task row, the replay record and the version reference written; <accepted/> only
 *     once that commit is on disk (group-commit.ts). Dispatch follows on a later turn.
 *
 * Effective deadline: the caller's, clamped to the tool's maximumTimeoutSeconds and the
 * gateway's maxTaskDurationSeconds; without one, the tool's defaultTimeoutSeconds (or the
 * gateway maximum). It is what task-state shows (interp-32). retain-until is the
 * effective deadline plus retentionSeconds, so every task settles (at the latest by its
 * deadline) before its promised retention ends. The replay record is kept until the later of
 * created + replay window and retain-until, and never while its task is non-terminal.
 */
import {
  compareInstants,
  dateTimeFromMillis,
  isAtOrAfter,
  parseDateTime,
  toEpochMillis,
  type XmppDateTime,
} from '../../protocol/datetime.ts';
import { canonicalJson } from '../../protocol/json/canonical.ts';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import type { AgentApiToolExtension } from '../../protocol/manifest/index.ts';
import { sameHash } from '../../protocol/stanza/hash.ts';
import { buildAccepted, type Invoke } from '../../protocol/stanza/task-invoke.ts';
import type { Requester } from '../catalog/catalog.ts';
import type { StoredReplay } from '../store/task-records.ts';
import { parseCallerJson } from './caller-json.ts';
import { nowDateTime } from './clock.ts';
import type { EngineContext } from './engine-context.ts';
import { invocationFingerprint } from './fingerprints.ts';
import type { GroupCommitter } from './group-commit.ts';
import type { PinnedTool } from './pinned-tools.ts';
import { versionHolder } from './retention.ts';
import { checkSchema } from './schema-check.ts';
import { normalizedTarget } from './task-access.ts';
import { FAULT } from '../iq/faults.ts';
import { type Outcome, answer, refuse } from '../iq/outcome.ts';

interface Candidate {
  readonly requester: Requester;
  readonly endpointJid: string;
  readonly invoke: Invoke;
  readonly pinned: PinnedTool;
  readonly canonicalArguments: string;
  readonly fingerprint: string;
}

interface Committed {
  readonly outcome: Outcome;
  /** Set when this commit admitted a new task. */
  readonly admitted?: { readonly taskId: string; readonly deadline: string | undefined };
}

/** What one group transaction admitted so far, per caller (not yet in ActiveTasks). */
interface GroupAdmissions {
  readonly generation: number;
  total: number;
  readonly perCaller: Map<string, number>;
}

export function acceptedFromReplay(replay: StoredReplay): Outcome {
  return answer(
    buildAccepted({
      requestId: replay.requestId,
      taskId: replay.taskId,
      revision: 0,
      created: parseDateTime(replay.created),
      retainUntil: parseDateTime(replay.retainUntil),
    }),
  );
}

/** The effective deadline's text (see the module comment). */
export function effectiveDeadline(
  createdMs: number,
  requested: XmppDateTime | undefined,
  extension: AgentApiToolExtension,
  maxTaskDurationSeconds: number,
): string {
  const maxSeconds = Math.min(maxTaskDurationSeconds, extension.maximumTimeoutSeconds ?? Infinity);
  const ceiling = dateTimeFromMillis(createdMs + maxSeconds * 1000);
  if (requested !== undefined)
    return compareInstants(requested, ceiling) <= 0 ? requested.text : ceiling.text;
  const seconds = Math.min(extension.defaultTimeoutSeconds ?? maxSeconds, maxSeconds);
  return dateTimeFromMillis(createdMs + seconds * 1000).text;
}

export class Admission {
  readonly #ctx: EngineContext;
  readonly #committer: GroupCommitter;
  /** Admissions in progress per (caller, target, request ID): a second one waits for the first. */
  readonly #inFlight = new Map<string, Promise<unknown>>();
  #admittedInGroup: GroupAdmissions | undefined;

  constructor(ctx: EngineContext, committer: GroupCommitter) {
    this.#ctx = ctx;
    this.#committer = committer;
  }

  async invoke(requester: Requester, targetJid: string, invoke: Invoke): Promise<Outcome> {
    const ctx = this.#ctx;
    const endpointJid = normalizedTarget(targetJid);
    const pinned =
      endpointJid === undefined ? undefined : ctx.pinned.find(endpointJid, invoke.apiVersion, invoke.tool);
    // invocation.authorize-first, invocation.unauthorized-item-not-found,
    // invocation.invoke-without-visibility, idempotency.immediate-sender,
    // security.authorize-and-validate: target, version, tool and canInvoke for the stamped sender
    // are evaluated together and refused with the one item-not-found, before anything that reveals
    // validity.
    const permitted =
      endpointJid !== undefined && ctx.policy().canInvoke(requester, endpointJid, invoke.tool);
    const rate = ctx.limiter?.take('invocation', requester.bareJid) ?? { allowed: true };
    if (endpointJid === undefined || pinned === undefined || !permitted) return refuse(FAULT.itemNotFound);
    // security.rate-limits, json-encoding.authorize-before-limits: the invocation limit, answered
    // only to an authorized caller.
    if (!rate.allowed) return refuse(FAULT.resourceConstraint);

    // json-encoding.ijson-rejection, json-encoding.documented-limits
    const parsed = parseCallerJson(invoke.argumentsJson, ctx.limits.json);
    if (!parsed.ok) return refuse(parsed.fault);
    // json-encoding.canonical-replay-comparison, json-encoding.string-whitespace-preserved: the
    // fingerprint covers the canonical bytes of the arguments; canonicalization never touches the
    // content of a string.
    const canonicalArguments = canonicalJson(parsed.value);
    const candidate: Candidate = {
      requester,
      endpointJid,
      invoke,
      pinned,
      canonicalArguments,
      fingerprint: invocationFingerprint({
        callerJid: requester.bareJid,
        endpointJid,
        requestId: invoke.requestId,
        tool: invoke.tool,
        apiVersion: invoke.apiVersion,
        manifestHash: invoke.manifestHash,
        canonicalArguments,
        deadline: invoke.deadline,
      }),
    };
    // invocation.replay-conflict: a replay is keyed by caller bare JID, target and request ID;
    // another caller or target is an independent request.
    const key = `${requester.bareJid}\u0000${endpointJid}\u0000${invoke.requestId}`;
    return this.#serialized(key, () => this.#admit(candidate, parsed.value));
  }

  #serialized<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#inFlight.get(key) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.#inFlight.set(key, tail);
    void tail.then(() => {
      if (this.#inFlight.get(key) === tail) this.#inFlight.delete(key);
    });
    return run;
  }

  /**
   * Steps 4–9, outside the transaction (so that cheap refusals cost no schema evaluation) and
   * again inside it (`inTransaction`), where capacity is authoritative.
   */
  #precheck(candidate: Candidate, inTransaction = false): Outcome | undefined {
    const ctx = this.#ctx;
    const { requester, endpointJid, invoke, pinned } = candidate;
    const replay = ctx.store.tasks.replay(requester.bareJid, endpointJid, invoke.requestId);
    if (replay !== undefined) {
      // invocation.replay-same-task, invocation.replay-conflict: the original <accepted/> for the
      // same fingerprint (any resource of the caller), conflict for a different one.
      return replay.fingerprint === candidate.fingerprint
        ? acceptedFromReplay(replay)
        : refuse(FAULT.conflict);
    }
    const active = ctx.store.registrations.activeVersion(endpointJid);
    // invocation.pin-before-admission, rules.version-pinning: only the active version's exact hash
    // admits.
    if (active !== invoke.apiVersion || !sameHash(invoke.manifestHash, pinned.version.hash)) {
      return refuse(FAULT.conflict);
    }
    // manifest.fail-closed-permissions: an approval we cannot enforce is never executed.
    if (pinned.extension.approvalRequired === true) return refuse(FAULT.forbidden);
    if (!ctx.runtimes.has(endpointJid)) return refuse(FAULT.serviceUnavailable);
    // cancellation.exact-instant-comparison: deadlines compare as instants.
    if (invoke.deadline !== undefined && isAtOrAfter(nowDateTime(ctx.clock), invoke.deadline)) {
      return refuse(FAULT.notAcceptable);
    }
    // rules.resource-bounds: active tasks, in all and per caller.
    if (this.#overCapacity(requester.bareJid, inTransaction)) return refuse(FAULT.resourceConstraint);
    return undefined;
  }

  /**
   * The committed non-terminal counts (ActiveTasks) and, inside the group transaction, the
   * admissions this group already made: the group as a whole cannot exceed the limits.
   */
  #overCapacity(callerJid: string, inGroup: boolean): boolean {
    const { active, limits, store } = this.#ctx;
    let total = active.total;
    let mine: number;
    if (inGroup) {
      const group = this.#group();
      total += group.total;
      const known = active.known(callerJid);
      // The store, read inside this transaction, already holds the group's own admissions.
      mine =
        known === undefined
          ? store.tasks.countNonTerminalOf(callerJid)
          : known + (group.perCaller.get(callerJid) ?? 0);
    } else {
      mine = active.of(callerJid);
    }
    const perCaller = limits.maxActiveTasksOf?.[callerJid] ?? limits.maxActiveTasksPerCaller;
    return total >= limits.maxActiveTasks || mine >= perCaller;
  }

  /** This group transaction's admissions so far (reset when the next group starts). */
  #group(): GroupAdmissions {
    const generation = this.#committer.generation;
    if (this.#admittedInGroup?.generation !== generation) {
      this.#admittedInGroup = { generation, total: 0, perCaller: new Map() };
    }
    return this.#admittedInGroup;
  }

  #countAdmitted(callerJid: string): void {
    const group = this.#group();
    group.total += 1;
    group.perCaller.set(callerJid, (group.perCaller.get(callerJid) ?? 0) + 1);
  }

  async #admit(candidate: Candidate, args: Parameters<typeof checkSchema>[2]): Promise<Outcome> {
    const ctx = this.#ctx;
    const refused = this.#precheck(candidate);
    if (refused !== undefined) return refused;
    const schema = ctx.pinned.schema(candidate.pinned, 'input');
    if (schema === undefined) return refuse(FAULT.serviceUnavailable);
    let verdict;
    try {
      // rules.target-validates-arguments, schemas.bounded-regex: the pinned inputSchema, evaluated
      // within the budget; invalid arguments create no task.
      verdict = await checkSchema(ctx, await schema, args);
    } catch {
      // The registered schema compiled at registration; failing now is a local fault.
      return refuse(FAULT.serviceUnavailable);
    }
    if (verdict === 'invalid') return refuse(FAULT.notAcceptable);
    if (verdict === 'limit') return refuse(FAULT.resourceConstraint);

    // invocation.durable-before-accepted: <accepted/> only once the task, its replay record and the
    // version reference are committed to disk.
    const committed = await this.#committer.submit(
      () => this.#commit(candidate),
      // Counted at COMMIT: the next group's capacity check must see it before it is durable.
      (result) => {
        if (result.admitted !== undefined) ctx.active.admitted(candidate.requester.bareJid);
      },
    );
    if (committed.admitted !== undefined) {
      const { taskId, deadline } = committed.admitted;
      if (deadline !== undefined) ctx.armDeadline(taskId, deadline);
      ctx.dispatch(taskId);
    }
    return committed.outcome;
  }

  /** Runs inside the group transaction. */
  #commit(candidate: Candidate): Committed {
    const ctx = this.#ctx;
    const refused = this.#precheck(candidate, true);
    if (refused !== undefined) return { outcome: refused };
    const { requester, endpointJid, invoke, pinned } = candidate;
    const createdMs = ctx.clock.now();
    const created = dateTimeFromMillis(createdMs).text;
    const deadline = effectiveDeadline(
      createdMs,
      invoke.deadline,
      pinned.extension,
      ctx.limits.maxTaskDurationSeconds,
    );
    // Rounded: a fractional retention (a test gateway's) still gives a whole millisecond.
    const retainUntilMs =
      toEpochMillis(parseDateTime(deadline)) + Math.round(ctx.limits.retentionSeconds * 1000);
    const retainUntil = dateTimeFromMillis(retainUntilMs).text;
    // invocation.identifier-grammar, invocation.identifier-unpredictability: 128+ bits from the
    // CSPRNG, in the identifier grammar (protocol/identifiers.ts).
    const taskId = generateIdentifier('task-');
    ctx.store.tasks.insertTask({
      taskId,
      handle: generateIdentifier('handle-'),
      callerJid: requester.bareJid,
      notifyJid: requester.fullJid,
      endpointJid,
      tool: invoke.tool,
      apiVersion: invoke.apiVersion,
      manifestHash: pinned.version.hash,
      argumentsJson: candidate.canonicalArguments,
      deadline,
      state: 'accepted',
      revision: 0,
      created,
      updated: created,
      retainUntil,
      retainUntilMs,
    });
    const replay: StoredReplay = {
      callerJid: requester.bareJid,
      endpointJid,
      requestId: invoke.requestId,
      fingerprint: candidate.fingerprint,
      taskId,
      created,
      retainUntil,
      // invocation.replay-retention
      keepUntilMs: Math.max(createdMs + ctx.replayWindowSeconds * 1000, retainUntilMs),
    };
    ctx.store.tasks.insertReplay(replay);
    // manifest-retrieval.retain-pinned-manifest, registration-flow.removal-blocked-by-tasks: the
    // pinned version is held while the task is retained.
    ctx.store.registrations.retain(endpointJid, invoke.apiVersion, versionHolder(taskId));
    this.#countAdmitted(requester.bareJid);
    return { outcome: acceptedFromReplay(replay), admitted: { taskId, deadline } };
  }
}
