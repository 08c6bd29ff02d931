/**
 * The `call-out` ToolRuntime (docs/caller.md, "A gateway whose own agents call out"): its one
 * tool (CALL_OUT_TOOL) makes the gateway a caller of a remote endpoint, so that a
 * conformance suite can judge the gateway's caller side. The XMPP caller is the shared engine
 * (reference-caller/: pinning, identical retries, event intake, recovery, cancellation), here
 * on the gateway's component: IQs leave from the calling identity through the link the component
 * attaches, and the lifecycle messages the target sends back to that identity come in through
 * receive().
 *
 * Outcome: the conformance task completes with `{ state, taskId, result }` once the remote task
 * settled; after the local wait (timeoutSeconds, or the conformance task's own deadline) it
 * completes with state "unknown" and asserts nothing remote (#cancellation: a caller-side
 * timeout is local). It fails `unavailable` only when no remote task could be started: the
 * target could not be pinned, lists no such tool, or refused the invocation. Cancelling the
 * conformance task asks the remote task to cancel; the outcome still waits for the remote
 * settlement (`<cancel-accepted/>` alone is not cancellation). A remote input request is asked
 * of the conformance task's caller (TaskActions.requestInput) and the answer sent back.
 *
 * Off unless the gateway config declares a call-out endpoint: a tool that makes the gateway
 * call any JID it is given is a server-side request forgery risk.
 */
import type { Element } from '@xmpp/xml';
import type {
  InputRequiredPayload,
  ProgressPayload,
  TaskFailure,
} from '../../../protocol/events/payload-types.ts';
import { parseDateTime, toEpochMillis } from '../../../protocol/datetime.ts';
import { bareJidOf, JidError } from '../../../protocol/jid/index.ts';
import type { JsonObject } from '../../../protocol/json/json-value.ts';
import { QueryFailed } from '../../../reference-caller/catalog/discovery-queries.ts';
import { PinRefused } from '../../../reference-caller/catalog/manifest-pin.ts';
import { PinnedCatalog, type PinnedTool } from '../../../reference-caller/catalog/pinned-catalog.ts';
import { IqLost, type IqAnswer, type Querier } from '../../../reference-caller/querier.ts';
import { TaskTracker } from '../../../reference-caller/tasks/task-tracker.ts';
import {
  runToolCall,
  type CallOutcome,
  type CallSink,
  type InputAnswer,
} from '../../../reference-caller/tasks/tool-call.ts';
import type { TaskActions, ToolInvocation, ToolRuntime } from '../tool-runtime.ts';
import { CALL_OUT_TOOL } from './call-out-manifest.ts';
import { parseCallOutRequest, type CallOutRequest } from './call-out-request.ts';

export const CALL_OUT_RUNTIME_NAME = 'call-out';

/** How the runtime reaches the network: the gateway component, attached once it exists. */
export interface CallOutLink {
  /** Sends an IQ from `from` and resolves with its answer; rejects when none will come. */
  iq(request: {
    readonly to: string;
    readonly type: 'get' | 'set';
    readonly payload: Element;
    readonly from: string;
    readonly timeoutMs: number;
  }): Promise<IqAnswer>;
}

export interface CallOutRuntimeOptions {
  /** The calling identity: a bare JID of the gateway's component domain (the call-out endpoint). */
  readonly identity: string;
  /** How long an IQ waits before its answer counts as lost (then an invoke is retried identically). */
  readonly iqTimeoutMs: number;
  /** How often a waiting call recovers its remote task's state by task-state query. */
  readonly pollMs: number;
  readonly log?: (line: string) => void;
  /** Wall clock in milliseconds since the epoch, for the conformance task's deadline. */
  readonly wallClock?: () => number;
}

/** Why the gateway could not call at all (the contract's only failure). */
function unavailable(message: string): TaskFailure {
  return { code: 'unavailable', message, retryable: true };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class CallOutRuntime implements ToolRuntime {
  readonly name = CALL_OUT_RUNTIME_NAME;
  readonly identity: string;
  readonly #options: CallOutRuntimeOptions;
  readonly #log: (line: string) => void;
  readonly #tracker: TaskTracker;
  #link: CallOutLink | undefined;

  constructor(options: CallOutRuntimeOptions) {
    this.identity = options.identity;
    this.#options = options;
    this.#log = options.log ?? (() => undefined);
    this.#tracker = new TaskTracker((line) => {
      this.#log(`call-out: ${line}`);
    });
  }

  /** The gateway component, once it is built: every IQ of a call leaves through it. */
  attach(link: CallOutLink): void {
    this.#link = link;
  }

  /** Whether an inbound message is addressed to the calling identity (any resource). */
  addressedTo(message: Element): boolean {
    const to: unknown = message.attrs['to'];
    if (typeof to !== 'string') return false;
    try {
      return bareJidOf(to) === this.identity;
    } catch (error) {
      if (error instanceof JidError) return false;
      throw error;
    }
  }

  /** A message to the calling identity: judged by the engine's event intake (#events). */
  receive(message: Element): void {
    this.#tracker.receive(message);
  }

  readonly #querier: Querier = async (to, type, payload) => {
    const link = this.#link;
    if (link === undefined) throw new IqLost(to, 'not sent: the component is not attached yet');
    try {
      return await link.iq({ to, type, payload, from: this.identity, timeoutMs: this.#options.iqTimeoutMs });
    } catch (error) {
      // Deadline, stream lost, offline, overloaded: no answer, which the engine treats as lost.
      const id: unknown = error instanceof Error && 'id' in error ? error.id : undefined;
      throw new IqLost(to, typeof id === 'string' ? id : 'unanswered');
    }
  };

  async execute(invocation: ToolInvocation, actions: TaskActions): Promise<void> {
    // The engine validated the arguments against the input schema already: what fails here is
    // this runtime's own reading of them, an internal error (as the conformance runtime reports).
    if (invocation.tool !== CALL_OUT_TOOL) {
      await actions.fail({ code: 'internal-error', message: 'No such tool.', retryable: false });
      return;
    }
    const parsed = parseCallOutRequest(invocation.arguments);
    if (!parsed.ok) {
      await actions.fail({
        code: 'internal-error',
        message: `Unusable arguments: ${parsed.problem}.`,
        retryable: false,
      });
      return;
    }
    const { request } = parsed;
    const tool = await this.#pinnedTool(request);
    if ('failure' in tool) {
      await actions.fail(tool.failure);
      return;
    }
    if (actions.cancellation.aborted) {
      // Cancelled while pinning: no remote task exists, so there is nothing to wait for.
      await actions.confirmCancellation?.('Cancelled before the remote call was made.');
      return;
    }
    const waitMs = this.#waitMs(request, invocation.deadline);
    const outcome = await runToolCall(
      {
        jid: request.target,
        tool: request.tool,
        version: tool.pinned.remote.version,
        manifestHash: tool.pinned.manifestHash,
        replaySeconds: tool.pinned.replaySeconds,
      },
      request.canonicalArguments,
      actions.cancellation,
      relayTo(actions),
      {
        querier: this.#querier,
        tracker: this.#tracker,
        now: () => performance.now(),
        pollMs: this.#options.pollMs,
        ...(waitMs === undefined ? {} : { callTimeoutMs: waitMs }),
        log: (line) => {
          this.#log(`call-out: ${line}`);
        },
      },
    );
    await settle(actions, outcome);
  }

  /** The remote tool pinned now (or at the requested version), or why no call is possible. */
  async #pinnedTool(
    request: CallOutRequest,
  ): Promise<{ readonly pinned: PinnedTool } | { readonly failure: TaskFailure }> {
    const endpoint = {
      jid: request.target,
      ...(request.version === undefined ? {} : { version: request.version }),
    };
    const catalog = new PinnedCatalog(this.#querier, [endpoint], (line) => {
      this.#log(`call-out: ${line}`);
    });
    try {
      const pinned = await catalog.pin(endpoint);
      const tool = pinned.tools.find((entry) => entry.remote.tool === request.tool);
      if (tool === undefined) {
        return {
          failure: unavailable(
            `${request.target} lists no tool ${request.tool} at version ${pinned.version}.`,
          ),
        };
      }
      return { pinned: tool };
    } catch (error) {
      // A failed query says nothing about whether the endpoint exists (#use-case-discovery).
      if (error instanceof QueryFailed || error instanceof PinRefused) {
        return { failure: unavailable(`Cannot call ${request.target}: ${describe(error)}.`) };
      }
      throw error;
    }
  }

  /** The local wait: timeoutSeconds, cut to the conformance task's own deadline. */
  #waitMs(request: CallOutRequest, deadline: string | undefined): number | undefined {
    const untilDeadline =
      deadline === undefined
        ? undefined
        : Math.max(0, toEpochMillis(parseDateTime(deadline)) - (this.#options.wallClock ?? Date.now)());
    if (untilDeadline === undefined) return request.timeoutMs;
    return request.timeoutMs === undefined ? untilDeadline : Math.min(request.timeoutMs, untilDeadline);
  }
}

/** Remote progress and input requests, passed on to the conformance task's caller. */
function relayTo(actions: TaskActions): CallSink {
  return {
    async progress(payload: ProgressPayload): Promise<void> {
      await actions.progress(payload);
    },
    async requestInput(request: InputRequiredPayload): Promise<InputAnswer> {
      const outcome = await actions.requestInput({
        question: request.question,
        inputSchema: request.inputSchema,
        ...(request.expiresAt === undefined ? {} : { expiresAt: request.expiresAt }),
      });
      if (typeof outcome === 'string') {
        return { kind: 'no-input', reason: `the conformance task cannot ask for input (${outcome})` };
      }
      if (outcome.kind === 'answered') return { kind: 'input', value: outcome.input };
      return {
        kind: 'no-input',
        reason:
          outcome.kind === 'expired' ? 'the input request expired unanswered' : 'the conformance task ended',
      };
    },
  };
}

interface CallOutReport {
  readonly state: string;
  readonly taskId: string | null;
  readonly result: JsonObject | null;
}

/** What the call's outcome reports; undefined when the target refused the invocation. */
function reportOf(outcome: CallOutcome): CallOutReport | undefined {
  switch (outcome.kind) {
    case 'refused':
      return undefined;
    case 'settled':
      return {
        state: outcome.outcome.state,
        taskId: outcome.taskId,
        result: outcome.outcome.payload as JsonObject,
      };
    case 'timed-out':
      return { state: 'unknown', taskId: outcome.taskId ?? null, result: null };
    case 'uncertain':
      return { state: 'unknown', taskId: null, result: null };
  }
}

/** The conformance task's outcome for the call's outcome (see the module comment). */
async function settle(actions: TaskActions, outcome: CallOutcome): Promise<void> {
  const report = reportOf(outcome);
  if (report === undefined) {
    const condition = outcome.kind === 'refused' ? outcome.error.condition : 'undefined-condition';
    await actions.fail(unavailable(`The target refused the invocation with <${condition}/>.`));
    return;
  }
  const text =
    report.state === 'unknown'
      ? 'The remote task did not settle within the local wait; nothing is known of its outcome.'
      : `The remote task settled ${report.state}.`;
  await actions.complete({
    content: [{ type: 'text', text }],
    structuredContent: { state: report.state, taskId: report.taskId, result: report.result },
  });
}
