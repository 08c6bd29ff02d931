/**
 * agentconf gateway --config FILE: runs the reference gateway until SIGTERM or SIGINT. Loads
 * and validates the config, opens the state (database, world, policy), connects as a XEP-0114
 * component and logs one line once online. Config problems exit 1 with every problem listed.
 */
import { parseArgs } from 'node:util';
import { GatewayComponent } from '../../../reference-gateway/component/index.ts';
import { loadGatewayConfig } from '../../../reference-gateway/config/gateway-config.ts';
import { openGatewayState } from '../../../reference-gateway/config/gateway-state.ts';
import { ConfigError } from '../../../reference-gateway/config/config-violations.ts';
import { EXIT, UsageError } from '../io.ts';
import type { Command } from '../main.ts';

export const gatewayCommand: Command = {
  name: 'gateway',
  usage: 'gateway --config FILE',
  summary: 'run the reference gateway as a XEP-0114 component until SIGTERM/SIGINT',
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: { config: { type: 'string' } },
      allowPositionals: true,
    });
    if (positionals.length > 0) throw new UsageError('unexpected arguments');
    if (values.config === undefined) throw new UsageError('missing --config FILE');
    let config;
    try {
      config = loadGatewayConfig(values.config);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      io.err(`invalid: ${error.message}\n`);
      return EXIT.invalid;
    }
    const state = await openGatewayState(config, Date.now);
    const log = (line: string): void => {
      io.err(`${line}\n`);
    };
    let gateway: GatewayComponent;
    try {
      gateway = await GatewayComponent.start(state, { log });
    } catch (error) {
      state.close();
      throw error;
    }
    gateway.on('online', () => {
      log(`gateway: ${config.component.domain} online again`);
    });
    io.out(
      `gateway: ${config.component.domain} online via ${config.component.host}:${String(config.component.port)}\n`,
    );
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      const stop = (received: NodeJS.Signals): void => {
        process.off('SIGTERM', stop);
        process.off('SIGINT', stop);
        resolve(received);
      };
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
    });
    await gateway.stop();
    state.close();
    io.out(`gateway: stopped (${signal})\n`);
    return EXIT.ok;
  },
};
