/**
 * The caller config the suite hands a caller under test through {config} (docs/caller.md):
 * an account of the harness federation, the fake target's endpoints, the local timeout; exactly
 * the members of the contract with the bridge, nothing more (the CA goes in the environment). It is
 * checked against the schema before it is written, so a caller never gets a file the contract
 * does not allow; it holds a password, so only its owner may read it.
 */
import { writeFile } from 'node:fs/promises';

import {
  checkCallerConfig,
  type CallerConfig,
  type CallerEndpoint,
} from '../../protocol/json/caller-config.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import type { Account } from '../federation/server-provider.ts';

export interface CallerConfigFacts {
  /** The account the caller logs in as (on the server other than the fake target's). */
  readonly account: Account;
  readonly endpoints: readonly CallerEndpoint[];
  readonly timeoutSeconds?: number;
}

export function callerConfigFor(facts: CallerConfigFacts): CallerConfig {
  const { account } = facts;
  return {
    xmpp: {
      jid: account.jid,
      password: account.password,
      host: account.c2s.host,
      port: account.c2s.port,
    },
    endpoints: facts.endpoints,
    ...(facts.timeoutSeconds === undefined ? {} : { timeoutSeconds: facts.timeoutSeconds }),
  };
}

/** Checks `config` and writes it to `path`, readable by its owner only. */
export async function writeCallerConfig(path: string, config: CallerConfig): Promise<void> {
  checkCallerConfig(config as unknown as JsonValue, path);
  await writeFile(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
}
