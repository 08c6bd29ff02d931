/**
 * agentconf gateway --config FILE: runs the reference gateway until SIGTERM or SIGINT
 * (docs/gateway-config.md, "The gateway command"). Loads and validates the config, then starts
 * the runtime: database, fixture world, optional health listener, component connection.
 *
 * Exit codes: 0 after a signal stopped it; 1 when the config is invalid (every problem listed) or
 * a start stage fails (the database cannot be opened, the fixture world cannot be loaded, the
 * health listener cannot bind, the first connection fails): one line saying what failed, plus
 * the world's problems one per line, never a stack trace; 2 for usage errors.
 *
 * Output: stdout carries the one "online via" line and the "stopped" line; every log line (the
 * health listener's address, reconnects, dead streams) goes to stderr.
 */
import { GatewayStartError, startGatewayRuntime } from '../../reference-gateway/component/index.ts';
import { loadGatewayConfig } from '../../reference-gateway/config/gateway-config.ts';
import { IntakeCache } from '../../reference-gateway/registration/intake-cache.ts';
import { ConfigError } from '../../protocol/json/config-file.ts';
import { checkReadableFile, EXIT, UsageError } from '../io.ts';
import type { Command } from '../main.ts';
import { expectPositionals, parseCommandArgs, type CommandSpec } from '../options.ts';
import { listenForStopSignal } from '../stop-signal.ts';

const SPEC = {
  name: 'gateway',
  summary: 'run the reference gateway as a XEP-0114 component until SIGTERM/SIGINT',
  usage: ['gateway --config FILE'],
  options: {
    config: {
      type: 'string',
      valueName: 'FILE',
      description: "the gateway's config (docs/gateway-config.md); required",
    },
  },
  example: 'gateway --config gateway.json',
  notes: 'Exit 1 when the config is invalid (every problem listed) or a start stage fails, in one line.',
} as const satisfies CommandSpec;

export const gatewayCommand: Command = {
  spec: SPEC,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(SPEC, args);
    expectPositionals(positionals, 0, '');
    if (values.config === undefined) throw new UsageError('missing --config FILE');
    checkReadableFile(values.config, '--config');
    let config;
    try {
      config = loadGatewayConfig(values.config);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      io.err(`invalid: ${error.message}\n`);
      return EXIT.invalid;
    }
    const log = (line: string): void => {
      io.err(`${line}\n`);
    };
    // Listening before the start: a signal during a slow start still stops the gateway cleanly.
    const signal = listenForStopSignal();
    let runtime;
    try {
      runtime = await startGatewayRuntime(config, {
        log,
        ...(process.env['AGENTCONF_NO_INTAKE_CACHE'] === '1' ? {} : { intakeCache: new IntakeCache() }),
      });
    } catch (error) {
      signal.dispose();
      if (!(error instanceof GatewayStartError)) throw error;
      io.err(`agentconf gateway: ${error.message}\n`);
      for (const problem of error.problems) io.err(`  ${problem}\n`);
      return EXIT.invalid;
    }
    const { gateway } = runtime;
    gateway.on('offline', () => {
      log(`gateway: ${config.component.domain} offline; reconnecting`);
    });
    gateway.on('online', () => {
      log(`gateway: ${config.component.domain} online again`);
    });
    io.out(
      `gateway: ${config.component.domain} online via ${config.component.host}:${String(config.component.port)}\n`,
    );
    const received = await signal.received;
    await runtime.stop();
    io.out(`gateway: stopped (${received})\n`);
    return EXIT.ok;
  },
};
