/**
 * What the commands that serve MCP (mcp-bridge, conformance-tools) share: the --http and --host
 * options, and serving over Streamable HTTP until SIGTERM or SIGINT, a port that cannot be
 * bound being exit 1 in one line.
 */
import { EXIT, UsageError, type CliIo, type ExitCode } from './io.ts';
import type { OptionSpec } from './options.ts';
import type { listenForStopSignal } from './stop-signal.ts';

export const DEFAULT_HTTP_HOST = '127.0.0.1';

export const MCP_HTTP_OPTIONS = {
  http: {
    type: 'integer',
    valueName: 'PORT',
    min: 0,
    max: 65_535,
    description: 'serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (0: any free port)',
  },
  host: {
    type: 'string',
    valueName: 'HOST',
    description: 'the address --http listens on',
    defaultText: DEFAULT_HTTP_HOST,
  },
} as const satisfies Readonly<Record<string, OptionSpec>>;

/** --host means nothing on stdio. */
export function expectHostWithHttp(values: {
  readonly http?: number | undefined;
  readonly host?: string | undefined;
}): void {
  if (values.host !== undefined && values.http === undefined) throw new UsageError('--host needs --http');
}

export interface HttpServing<Served> {
  /** The command's name, which starts every line it prints. */
  readonly command: string;
  readonly port: number;
  readonly host: string | undefined;
  readonly signal: ReturnType<typeof listenForStopSignal>;
  readonly listen: () => Promise<Served>;
  /** The stdout line (without the command's name) that says where it serves. */
  readonly announce: (served: Served) => string;
}

/** Listens, says where on stdout, and serves until the signal; then closes. */
export async function serveHttpUntilStopped<Served extends { close(): Promise<void> }>(
  io: CliIo,
  serving: HttpServing<Served>,
): Promise<ExitCode> {
  const { command, signal } = serving;
  let served: Served;
  try {
    served = await serving.listen();
  } catch (error) {
    signal.dispose();
    const reason = error instanceof Error && 'code' in error ? String(error.code) : String(error);
    const where = `${serving.host ?? DEFAULT_HTTP_HOST}:${String(serving.port)}`;
    io.err(`agentconf ${command}: cannot listen on ${where} (${reason})\n`);
    return EXIT.invalid;
  }
  io.out(`${command}: ${serving.announce(served)}\n`);
  const received = await signal.received;
  await served.close();
  io.out(`${command}: stopped (${received})\n`);
  return EXIT.ok;
}
