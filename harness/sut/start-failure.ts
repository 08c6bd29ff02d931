/**
 * Why a gateway under test could not be brought up, in words for the person who runs the suite:
 * one paragraph, the gateway's exit code and the last lines of its own output when it exited,
 * never a stack trace and never the per-run component secret. Anything not recognised here is a
 * bug of the harness and is left to surface as one.
 */
import { ConfigError } from '../../protocol/json/config-file.ts';
import { ProcessExitedError, ProcessStartError } from '../faults/managed-process.ts';
import { ExternalConfigError } from '../federation/external-provider.ts';
import { FederationStartError } from '../federation/server-provider.ts';
import { SutMismatchError } from './launch.ts';
import { SutNotReadyError } from './readiness.ts';
import { StaleGatewayError } from './stale-gateway.ts';
import { outputTail, stripTerminalEscapes } from './process-output.ts';

function redact(text: string, secrets: readonly string[]): string {
  return secrets
    .filter((secret) => secret.length > 0)
    .reduce((out, secret) => out.replaceAll(secret, '[component secret]'), text);
}

/**
 * The message for a failure to start or reach the gateway, or undefined when `error` is not one
 * (a harness bug). `secrets` are replaced wherever they would appear.
 */
export function startFailureMessage(error: unknown, secrets: readonly string[] = []): string | undefined {
  let message: string | undefined;
  if (error instanceof ProcessExitedError) {
    const { code, signal } = error.status;
    const how = signal === null ? `with exit code ${String(code)}` : `on signal ${signal}`;
    message = `the gateway exited ${how} before it answered; its last output:\n${outputTail(error.output)}`;
  } else if (error instanceof ProcessStartError) {
    message = `the gateway could not be started: ${error.message}`;
  } else if (error instanceof SutNotReadyError) {
    message = error.launched
      ? `the gateway was started but never answered: ${stripTerminalEscapes(error.message)}`
      : `the gateway (not started by the harness) never connected and answered: ${error.message}; ` +
        'start it with the component host, port, domain and secret printed above (or in --connection-file)';
  } else if (
    error instanceof SutMismatchError ||
    error instanceof StaleGatewayError ||
    error instanceof ExternalConfigError ||
    error instanceof ConfigError ||
    error instanceof FederationStartError
  ) {
    message = error.message;
  }
  return message === undefined ? undefined : redact(message, secrets);
}
