/**
 * The connection file: a running federation's servers, accounts and component link as one JSON
 * document (fixtures/schemas/federation-connection.schema.json). `run --connection-file` and
 * `federation up --connection-file` write it for a gateway the harness does not start (its
 * component host, port, domain and secret) and for people bringing their own clients; read back
 * with `--provider external --external FILE` it is the external provider's config, so a
 * federation `federation up` keeps running can be used by any number of runs.
 */
import { chmod, rename, writeFile } from 'node:fs/promises';

import {
  configValidator,
  schemaViolations,
  type ConfigViolation,
} from '../../protocol/json/config-problems.ts';
import { ConfigError, parseConfigJson } from '../../protocol/json/config-file.ts';
import connectionSchema from '../../fixtures/schemas/federation-connection.schema.json' with { type: 'json' };
import type { FederationDomains } from './domains.ts';
import type { ExternalFederationConfig, ExternalServerConfig } from './external-provider.ts';
import type { Federation, FederationServer } from './server-provider.ts';

export interface ConnectionServer extends ExternalServerConfig {
  readonly logPath?: string;
}

/** What the run expects of a gateway the harness does not start. */
export interface ConnectionGateway {
  readonly name?: string;
  readonly adminJid?: string;
  readonly worldFile?: string;
  readonly startupSeconds?: number;
  /** Where the harness serves the conformance tools (SUT `"conformanceTools": {"mcp": "http"}`). */
  readonly conformanceToolsUrl?: string;
}

export interface ConnectionFile {
  readonly provider?: string;
  readonly domains?: Partial<FederationDomains>;
  readonly servers: {
    readonly a: ConnectionServer;
    readonly b: ConnectionServer;
    readonly hostile?: ConnectionServer;
  };
  readonly component: {
    readonly host: string;
    readonly port?: number;
    readonly domain?: string;
    readonly secret: string;
  };
  readonly accounts: readonly { readonly jid: string; readonly password: string }[];
  readonly caCertPath: string;
  readonly gateway?: ConnectionGateway;
}

/** `componentDomains`: the gateway's and the fake target's, which are no account domains. */
function serverEntry(server: FederationServer, componentDomains: readonly string[]): ConnectionServer {
  return {
    host: server.c2s.host,
    domains: server.domains.filter((domain) => !componentDomains.includes(domain)),
    c2sPort: server.c2s.port,
    c2sDirectTlsPort: server.c2sDirectTls.port,
    s2sPort: server.s2s.port,
    implementation: server.implementation,
    ...(server.leavesBlockingToSender ? { leavesBlockingToSender: true } : {}),
    ...(server.logPath === '' ? {} : { logPath: server.logPath }),
  };
}

/** The connection file of a running federation (and of the gateway the run waits for). */
export function connectionFileOf(federation: Federation, gateway?: ConnectionGateway): ConnectionFile {
  const { a, b, hostile } = federation.servers;
  const componentDomain = federation.component.domain;
  const componentDomains = [componentDomain, federation.domains.target];
  return {
    provider: federation.provider,
    domains: { ...federation.domains },
    servers: {
      a: serverEntry(a, componentDomains),
      b: serverEntry(b, componentDomains),
      ...(hostile === undefined ? {} : { hostile: serverEntry(hostile, componentDomains) }),
    },
    component: {
      host: federation.component.host,
      port: federation.component.port,
      domain: componentDomain,
      secret: federation.component.secret,
    },
    accounts: federation.accounts.map(({ jid, password }) => ({ jid, password })),
    caCertPath: federation.caCertPath,
    ...(gateway === undefined ? {} : { gateway }),
  };
}

/**
 * Writes the file whole (a reader never sees half of it), readable by its owner only: it holds
 * the component secret and the passwords.
 */
export async function writeConnectionFile(path: string, file: ConnectionFile): Promise<void> {
  const temporary = `${path}.${String(process.pid)}.tmp`;
  await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

const validate = configValidator(connectionSchema);

/**
 * A connection file (or a hand-written external federation config) as the external provider's
 * config; throws ConfigError listing every problem, each at its JSON pointer.
 */
export function parseConnectionFile(text: Uint8Array | string, source: string): ExternalFederationConfig {
  const value = parseConfigJson(text, source);
  const violations: ConfigViolation[] = schemaViolations(validate, value);
  if (violations.length > 0) throw new ConfigError(source, violations);
  // The schema has vouched for the shape.
  const file = value as unknown as ConnectionFile;
  const componentDomain = file.component.domain;
  const namedDomain = file.domains?.component;
  if (componentDomain !== undefined && namedDomain !== undefined && componentDomain !== namedDomain) {
    throw new ConfigError(source, [
      {
        path: '/component/domain',
        message: `${componentDomain} is not domains.component (${namedDomain}): give one, or the same in both`,
      },
    ]);
  }
  const strip = ({ logPath: _logPath, ...server }: ConnectionServer): ExternalServerConfig => server;
  const { a, b, hostile } = file.servers;
  return {
    domains: {
      ...file.domains,
      ...(componentDomain === undefined ? {} : { component: componentDomain }),
    },
    servers: { a: strip(a), b: strip(b), ...(hostile === undefined ? {} : { hostile: strip(hostile) }) },
    component: {
      host: file.component.host,
      ...(file.component.port === undefined ? {} : { port: file.component.port }),
      secret: file.component.secret,
    },
    accounts: file.accounts,
    caCertPath: file.caCertPath,
  };
}
