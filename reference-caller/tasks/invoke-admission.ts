/**
 * Task admission as a caller must do it (#invocation): a fresh, unpredictable request ID per
 * call; when no answer comes, the identical request again (same request ID, tool, pins,
 * canonical arguments), never a new one; and no retry once the target's advertised replay window
 * may have passed, because the target may then admit the repeat as new work. The window is
 * counted from the first send, which is no later than the target's first receipt, so every
 * retry lands inside the target's own window.
 */
import { generateIdentifier } from '../../protocol/identifiers.ts';
import {
  buildInvoke,
  parseAccepted,
  type Accepted,
  type Hash,
  type Invoke,
  type StanzaError,
} from '../../protocol/stanza/index.ts';
import { IqLost, type IqAnswer, type Querier } from '../querier.ts';

export interface AdmissionTarget {
  /** The endpoint's bare JID: commands go there, never to a full JID (#task-message-routing). */
  readonly jid: string;
  readonly tool: string;
  readonly version: string;
  readonly manifestHash: Hash;
  readonly replaySeconds: number;
}

export type Admission =
  | { readonly kind: 'accepted'; readonly accepted: Accepted; readonly attempts: number }
  | { readonly kind: 'refused'; readonly requestId: string; readonly error: StanzaError }
  /** No answer, and no identical retry is allowed any more: execution is uncertain. */
  | {
      readonly kind: 'uncertain';
      readonly requestId: string;
      readonly attempts: number;
      readonly reason: string;
    };

export interface AdmissionOptions {
  readonly querier: Querier;
  /** Milliseconds on a monotonic clock. */
  readonly now: () => number;
  /** Stop retrying (the local call limit passed, or the call was cancelled). */
  readonly stop?: () => string | undefined;
  readonly log?: (line: string) => void;
}

/** Sends the invoke and its identical retries; resolves once admission is decided or given up. */
export async function admit(
  target: AdmissionTarget,
  canonicalArguments: string,
  options: AdmissionOptions,
): Promise<Admission> {
  const invoke: Invoke = {
    requestId: generateIdentifier('req-'),
    tool: target.tool,
    apiVersion: target.version,
    manifestHash: target.manifestHash,
    argumentsJson: canonicalArguments,
  };
  const windowEnds = options.now() + target.replaySeconds * 1000;
  for (let attempts = 1; ; attempts += 1) {
    let answer: IqAnswer;
    try {
      answer = await options.querier(target.jid, 'set', buildInvoke(invoke));
    } catch (error) {
      if (!(error instanceof IqLost)) throw error;
      const stopped = options.stop?.();
      if (stopped !== undefined) {
        return { kind: 'uncertain', requestId: invoke.requestId, attempts, reason: stopped };
      }
      if (options.now() >= windowEnds) {
        return {
          kind: 'uncertain',
          requestId: invoke.requestId,
          attempts,
          reason: `no answer within the target's ${String(target.replaySeconds)} s replay window; not retried, since a repeat could run the tool again`,
        };
      }
      options.log?.(
        `invoke ${invoke.requestId} to ${target.jid}: no answer (attempt ${String(attempts)}); sending the identical request again`,
      );
      continue;
    }
    if (answer.type === 'error') return { kind: 'refused', requestId: invoke.requestId, error: answer.error };
    try {
      const accepted = parseAccepted(answer.payload ?? missingPayload());
      if (accepted.requestId !== invoke.requestId) throw new Error('the answer names another request ID');
      return { kind: 'accepted', accepted, attempts };
    } catch (error) {
      return {
        kind: 'uncertain',
        requestId: invoke.requestId,
        attempts,
        reason: `an unusable answer to the invoke (${error instanceof Error ? error.message : String(error)})`,
      };
    }
  }
}

function missingPayload(): never {
  throw new Error('an empty result');
}
