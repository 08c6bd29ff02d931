/**
 * One caller under test against the fake target, set up the way a case needs it: a fresh account
 * on the federation's remote domain (server A, so every stanza crosses s2s to the fake target on
 * server B), the fake target serving the case's world, the caller config naming its endpoints,
 * and the bridge the SUT file declares, connected. `stop()` undoes all of it.
 */
import { randomBytes } from 'node:crypto';

import type { CallerEndpoint } from '../../protocol/json/caller-config.ts';
import { startFakeTarget, type FakeTarget, type FakeTargetOptions } from '../fake-target/fake-target.ts';
import type { FakeTargetWorld } from '../fake-target/target-world.ts';
import type { Account, Federation } from '../federation/server-provider.ts';
import type { McpCallerDeclaration } from '../sut/sut-config.ts';
import { callerConfigFor } from './caller-config-file.ts';
import { startMcpCaller, type McpCallerUnderTest } from './mcp-caller.ts';

export interface CallerSessionOptions {
  readonly federation: Federation;
  readonly declaration: McpCallerDeclaration;
  readonly world: FakeTargetWorld;
  /** The run's data directory, where the caller config is written. */
  readonly dataDir: string;
  /** Pins per endpoint JID; an endpoint not named here is left to the caller's start-up pin. */
  readonly pins?: Readonly<Record<string, string>>;
  readonly timeoutSeconds?: number;
  /** The rest of the fake target's options (its clock, retention, late-retry policy). */
  readonly target?: Omit<FakeTargetOptions, 'link' | 'world'>;
  readonly startupMs?: number;
  /** Sent with every HTTP request to a Streamable HTTP caller (StartMcpCallerOptions). */
  readonly httpHeaders?: Readonly<Record<string, string>>;
}

export interface CallerSession {
  readonly account: Account;
  readonly target: FakeTarget;
  readonly caller: McpCallerUnderTest;
  stop(): Promise<void>;
}

export async function startCallerSession(options: CallerSessionOptions): Promise<CallerSession> {
  const { federation } = options;
  const link = federation.targetComponent;
  if (link === undefined) {
    throw new Error(`the ${federation.provider} federation has no fake target component (docs/caller.md)`);
  }
  const account = await federation.createAccount({
    username: `caller-${randomBytes(6).toString('hex')}`,
    domain: federation.domains.remote,
  });
  const target = await startFakeTarget({ ...options.target, link, world: options.world });
  try {
    const endpoints: CallerEndpoint[] = options.world.endpoints.map(({ jid }) => {
      const version = options.pins?.[jid];
      return version === undefined ? { jid } : { jid, version };
    });
    const config = callerConfigFor({
      account,
      endpoints,
      ...(options.timeoutSeconds === undefined ? {} : { timeoutSeconds: options.timeoutSeconds }),
    });
    const caller = await startMcpCaller({
      declaration: options.declaration,
      config,
      dataDir: options.dataDir,
      caFile: federation.caCertPath,
      ...(options.startupMs === undefined ? {} : { startupMs: options.startupMs }),
      ...(options.httpHeaders === undefined ? {} : { httpHeaders: options.httpHeaders }),
    });
    return {
      account,
      target,
      caller,
      async stop() {
        await caller.stop();
        await target.stop();
      },
    };
  } catch (error) {
    await target.stop();
    throw error;
  }
}
