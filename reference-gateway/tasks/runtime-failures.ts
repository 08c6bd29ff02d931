/**
 * The failures the engine itself commits (#errors: stable code, safe message, retryable flag;
 * never a stack trace, an exception message or anything of another principal). Reserved codes
 * where one fits; our own conditions are namespace-qualified (#registrar-failure-codes).
 *
 * errors.failed-event-shape, errors.safe-messages, errors.qualified-codes,
 * security.no-credentials-in-payloads: fixed codes and messages, no exception text.
 */
const failure = (code: string, message: string, retryable: boolean) =>
  Object.freeze({ error: Object.freeze({ code, message, retryable }) });

/** The runtime threw, or returned without settling: its exception text is never copied. */
export const RUNTIME_FAULT = failure('internal-error', 'The tool stopped without producing a result.', true);

/** No runtime serves the endpoint any more (the map changed across a restart). */
export const RUNTIME_UNAVAILABLE = failure('unavailable', 'The tool runtime is unavailable.', true);

/** The gateway stopped while the tool ran; whether side effects happened is unknown. */
export const EXECUTION_INTERRUPTED = failure(
  'org.agentconf.gateway:execution-interrupted',
  'The gateway restarted while the tool was running; the outcome is unknown.',
  true,
);
