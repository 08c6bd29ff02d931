/**
 * agentconf mcp-bridge --config FILE [--iq-timeout S] [--poll S] [--http PORT] [--host HOST]
 *   [--transcript FILE]
 * agentconf mcp-bridge --loss-table
 *
 * The reference MCP bridge (docs/mcp-bridge.md): an MCP server that logs in as an XMPP caller
 * and exposes the configured endpoints' pinned tools. Its config is the caller config every
 * caller under test is handed (docs/caller.md); the timings are options, not config members. Without --http it serves one client on
 * stdin/stdout (stdout is the MCP channel: nothing else is written there) until stdin closes;
 * with --http it serves Streamable HTTP at http://HOST:PORT/mcp until SIGTERM or SIGINT.
 * --loss-table prints the semantic-loss table (JSON) and exits.
 *
 * Exit codes: 0 when stdin closed or a signal stopped it (or after --loss-table); 1 when the
 * config is invalid (every problem listed), the login fails or the port cannot be bound; 2 for
 * usage errors. Log lines (pins, protocol errors, cancellations) go to stderr.
 */
import { appendFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../../protocol/json/config-file.ts';
import { readCallerConfig } from '../../protocol/json/caller-config.ts';
import { startBridge } from '../../reference-bridge/bridge.ts';
import {
  bridgeSettingsOf,
  DEFAULT_IQ_TIMEOUT_SECONDS,
  DEFAULT_POLL_SECONDS,
} from '../../reference-bridge/config/bridge-settings.ts';
import { lossTableDocument } from '../../reference-bridge/loss/semantic-loss.ts';
import { serveBridgeHttp, serveBridgeStdio } from '../../reference-bridge/mcp/transports.ts';
import type { TranscriptEntry } from '../../reference-bridge/xmpp/xmpp-session.ts';
import { checkReadableFile, checkWritableFile, EXIT, UsageError } from '../io.ts';
import type { Command } from '../main.ts';
import { expectHostWithHttp, MCP_HTTP_OPTIONS, serveHttpUntilStopped } from '../mcp-http-serving.ts';
import { expectPositionals, parseCommandArgs, type CommandSpec } from '../options.ts';
import { listenForStopSignal } from '../stop-signal.ts';

const SPEC = {
  name: 'mcp-bridge',
  summary: "serve remote XMPP agents' tools to MCP clients (stdio, or Streamable HTTP with --http)",
  usage: ['mcp-bridge --config FILE', 'mcp-bridge --loss-table'],
  options: {
    config: {
      type: 'string',
      valueName: 'FILE',
      description: 'the caller config (docs/caller.md): XMPP account, endpoints, local call timeout',
    },
    'iq-timeout': {
      type: 'number',
      valueName: 'SECONDS',
      above: 0,
      description: 'how long an IQ waits before its answer counts as lost (an <invoke/> is then retried)',
      defaultText: String(DEFAULT_IQ_TIMEOUT_SECONDS),
    },
    poll: {
      type: 'number',
      valueName: 'SECONDS',
      above: 0,
      description: "how often a waiting call recovers its task's state by <task-state-request/>",
      defaultText: String(DEFAULT_POLL_SECONDS),
    },
    ...MCP_HTTP_OPTIONS,
    transcript: {
      type: 'string',
      valueName: 'FILE',
      description: 'append every XMPP stanza sent and received to FILE, one JSON object per line',
    },
    'loss-table': {
      type: 'boolean',
      description: 'print the semantic-loss table as JSON and exit',
    },
  },
  example: 'mcp-bridge --config bridge.json --http 0',
  notes:
    'Runs until stdin closes (stdio) or SIGTERM/SIGINT (--http). Exit 1 when the config is invalid, the login fails or the port cannot be bound.',
} as const satisfies CommandSpec;

function transcriptWriter(path: string | undefined): ((entry: TranscriptEntry) => void) | undefined {
  if (path === undefined) return undefined;
  const file = resolve(path);
  checkWritableFile(file, '--transcript');
  return (entry) => {
    appendFileSync(file, `${JSON.stringify(entry)}\n`);
  };
}

export const mcpBridgeCommand: Command = {
  spec: SPEC,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(SPEC, args);
    expectPositionals(positionals, 0, '');
    if (values['loss-table']) {
      const others = [values.config, values.http, values['iq-timeout'], values.poll];
      if (others.some((value) => value !== undefined)) {
        throw new UsageError('--loss-table takes no other option');
      }
      io.out(`${JSON.stringify(lossTableDocument(), null, 2)}\n`);
      return EXIT.ok;
    }
    if (values.config === undefined) throw new UsageError('missing --config FILE');
    expectHostWithHttp(values);
    checkReadableFile(values.config, '--config');
    const onTranscript = transcriptWriter(values.transcript);
    let settings;
    try {
      settings = bridgeSettingsOf(readCallerConfig(resolve(values.config)), {
        iqTimeoutSeconds: values['iq-timeout'] ?? DEFAULT_IQ_TIMEOUT_SECONDS,
        pollSeconds: values.poll ?? DEFAULT_POLL_SECONDS,
      });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      io.err(`invalid: ${error.message}\n`);
      return EXIT.invalid;
    }
    const log = (line: string): void => {
      io.err(`mcp-bridge: ${line}\n`);
    };
    const signal = values.http === undefined ? undefined : listenForStopSignal();
    let core;
    try {
      core = await startBridge(settings, { log, ...(onTranscript === undefined ? {} : { onTranscript }) });
    } catch (error) {
      signal?.dispose();
      io.err(`agentconf mcp-bridge: ${error instanceof Error ? error.message : String(error)}\n`);
      return EXIT.invalid;
    }
    try {
      if (signal === undefined) {
        log('MCP on stdio');
        await serveBridgeStdio(core);
        return EXIT.ok;
      }
      const port = values.http ?? 0;
      return await serveHttpUntilStopped(io, {
        command: 'mcp-bridge',
        port,
        host: values.host,
        signal,
        listen: () => serveBridgeHttp(core, port, values.host),
        announce: (served) => `MCP at ${served.url}`,
      });
    } finally {
      await core.close();
    }
  },
};
