/**
 * agentconf conformance-tools [--http PORT] [--host HOST] [--ledger FILE]: the conformance tools
 * of docs/conformance-tools.md as an MCP server, for any gateway that hosts MCP servers as
 * endpoints (docs/conformance-tools.md, "Over MCP").
 *
 * Without --http it serves one client on stdin/stdout (stdout is the MCP channel: nothing else
 * is written there) until stdin closes. With --http it serves Streamable HTTP at
 * http://HOST:PORT/mcp (port 0: any free port; the line on stdout says which) and the ledger at
 * /ledger/KEY, until SIGTERM or SIGINT. --ledger keeps the ledger in FILE (JSON lines, fsynced),
 * so it survives a restart and can be read by whoever can read the file; without it the ledger
 * lives in the process.
 *
 * Exit codes: 0 when stdin closed or a signal stopped it; 1 when the port cannot be bound or
 * the ledger file cannot be opened; 2 for usage errors.
 */
import { resolve } from 'node:path';
import { ConformanceLedger } from '../../harness/conformance-tools/ledger.ts';
import {
  serveConformanceToolsHttp,
  serveConformanceToolsStdio,
} from '../../harness/conformance-tools/transports.ts';
import { checkWritableFile, EXIT } from '../io.ts';
import type { Command } from '../main.ts';
import { expectHostWithHttp, MCP_HTTP_OPTIONS, serveHttpUntilStopped } from '../mcp-http-serving.ts';
import { expectPositionals, parseCommandArgs, type CommandSpec } from '../options.ts';
import { listenForStopSignal } from '../stop-signal.ts';

const SPEC = {
  name: 'conformance-tools',
  summary: 'serve the conformance tools as an MCP server (stdio, or Streamable HTTP with --http)',
  usage: ['conformance-tools'],
  options: {
    ...MCP_HTTP_OPTIONS,
    ledger: {
      type: 'string',
      valueName: 'FILE',
      description: 'keep the ledger in FILE (JSON lines, fsynced) so it survives a restart',
      defaultText: 'in memory',
    },
  },
  example: 'conformance-tools --http 0 --ledger ledger.jsonl',
  notes:
    'Runs until stdin closes (stdio) or SIGTERM/SIGINT (--http). Exit 1 when the port cannot be bound or the ledger cannot be opened.',
} as const satisfies CommandSpec;

function reasonOf(error: unknown): string {
  return error instanceof Error && 'code' in error ? String(error.code) : String(error);
}

export const conformanceToolsCommand: Command = {
  spec: SPEC,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(SPEC, args);
    expectPositionals(positionals, 0, '');
    expectHostWithHttp(values);
    const port = values.http;
    if (values.ledger !== undefined) checkWritableFile(resolve(values.ledger), '--ledger');
    let ledger: ConformanceLedger;
    try {
      ledger =
        values.ledger === undefined
          ? ConformanceLedger.inMemory()
          : ConformanceLedger.inFile(resolve(values.ledger));
    } catch (error) {
      io.err(
        `agentconf conformance-tools: cannot open the ledger ${values.ledger ?? ''} (${reasonOf(error)})\n`,
      );
      return EXIT.invalid;
    }
    try {
      if (port === undefined) {
        io.err(`conformance-tools: MCP on stdio; ledger ${ledger.file ?? 'in memory'}\n`);
        await serveConformanceToolsStdio({ ledger });
        return EXIT.ok;
      }
      return await serveHttpUntilStopped(io, {
        command: 'conformance-tools',
        port,
        host: values.host,
        signal: listenForStopSignal(),
        listen: () =>
          serveConformanceToolsHttp({
            ledger,
            port,
            ...(values.host === undefined ? {} : { host: values.host }),
          }),
        announce: (served) =>
          `MCP at ${served.url}; ledger at ${served.ledgerUrl}/KEY${ledger.file === undefined ? '' : ` and in ${ledger.file}`}`,
      });
    } finally {
      ledger.close();
    }
  },
};
