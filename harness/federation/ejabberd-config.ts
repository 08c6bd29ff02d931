// The configuration of ejabberd 23.01 as server A (cross-implementation s2s), following the
// recipe: a plain Erlang node, listeners bound to the instance's address, accounts through
// mod_http_api on that address only, names from a hosts file mounted over /etc/hosts in a private
// mount namespace (its outgoing s2s resolves with libc getaddrinfo, which reads nothing else).
import { join } from 'node:path';

import type { KeyPair } from './certificates.ts';

export interface EjabberdPorts {
  readonly c2s: number;
  readonly c2sDirectTls: number;
  readonly s2s: number;
  /** mod_http_api, for creating accounts (ejabberd keeps them in Mnesia, not in files we could write). */
  readonly api: number;
  /** XEP-0114 components (ejabberd_service), when the server carries any. */
  readonly component: number;
}

export interface EjabberdInstanceSpec {
  readonly dir: string;
  readonly address: string;
  readonly ports: EjabberdPorts;
  readonly virtualHosts: readonly string[];
  readonly certificate: KeyPair;
  readonly caCertPath: string;
  readonly logLevel: 'debug' | 'info';
  /** XEP-0114 components it accepts (a pair topology's second gateway), each listed in disco#items. */
  readonly components?: readonly {
    readonly domain: string;
    readonly secret: string;
    readonly listed?: boolean;
  }[];
}

export function ejabberdPaths(dir: string): {
  config: string;
  log: string;
  db: string;
  inetrc: string;
  hosts: string;
} {
  return {
    config: join(dir, 'ejabberd.yml'),
    log: join(dir, 'ejabberd.log'),
    db: join(dir, 'mnesia'),
    inetrc: join(dir, 'inetrc'),
    hosts: join(dir, 'hosts'),
  };
}

/** YAML accepts JSON strings, which quote everything we write safely. */
const q = (value: string): string => JSON.stringify(value);

export function renderEjabberdConfig(spec: EjabberdInstanceSpec): string {
  const { address, ports } = spec;
  const components = spec.components ?? [];
  // Listed among the host's services, as #find-gateway recommends (prosody-config.ts does the same).
  const listed = components.filter((component) => component.listed !== false).map(({ domain }) => q(domain));
  const listener = (port: number, module: string, extra: readonly string[]): string[] => [
    '  -',
    `    port: ${port}`,
    `    ip: ${q(address)}`,
    `    module: ${module}`,
    ...extra.map((line) => `    ${line}`),
  ];
  return [
    '# Generated for one agentconf federation run; thrown away with it.',
    `hosts: [${spec.virtualHosts.map(q).join(', ')}]`,
    `loglevel: ${spec.logLevel}`,
    'log_rotate_count: 0',
    `certfiles: [${q(spec.certificate.certPath)}, ${q(spec.certificate.keyPath)}]`,
    `ca_file: ${q(spec.caCertPath)}`,
    'listen:',
    ...listener(ports.c2s, 'ejabberd_c2s', ['starttls_required: true']),
    ...listener(ports.c2sDirectTls, 'ejabberd_c2s', ['tls: true']),
    ...listener(ports.s2s, 'ejabberd_s2s_in', []),
    ...listener(ports.api, 'ejabberd_http', ['request_handlers:', '  /api: mod_http_api']),
    ...(components.length === 0
      ? []
      : listener(ports.component, 'ejabberd_service', [
          'hosts:',
          ...components.flatMap(({ domain, secret }) => [`  ${q(domain)}:`, `    password: ${q(secret)}`]),
        ])),
    '# s2s must be TLS, authenticated by certificate (the run CA is trusted on every server).',
    's2s_use_starttls: required',
    's2s_dns_timeout: 1',
    's2s_dns_retries: 1',
    'auth_method: internal',
    'auth_password_format: scram',
    'acl:',
    '  loopback:',
    '    ip: ["127.0.0.0/8"]',
    'api_permissions:',
    '  "harness accounts":',
    '    from: [mod_http_api]',
    '    who:',
    '      acl: loopback',
    '    what: [register, change_password]',
    'modules:',
    // What the Prosody servers load too (prosody-config.ts): a roster (without it ejabberd 23.01
    // ends the session of a client that sends a subscription), XEP-0191 blocking (on top of
    // mod_privacy in 23.01) and offline storage, as a real deployment has.
    '  mod_roster: {}',
    '  mod_privacy: {}',
    '  mod_blocking: {}',
    '  mod_offline: {}',
    ...(listed.length === 0
      ? ['  mod_disco: {}']
      : ['  mod_disco:', `    extra_domains: [${listed.join(', ')}]`]),
    '  mod_ping: {}',
    '  mod_http_api: {}',
    '  # change_password (replacing an account) lives here.',
    '  mod_admin_extra: {}',
    '  mod_stream_mgmt: {}',
    '',
  ].join('\n');
}

/**
 * Erlang's own resolver (used for SRV lookups) must not ask the machine's name servers: without a
 * resolv.conf it answers NXDOMAIN at once, and ejabberd falls back to the domain's address.
 */
export function renderErlangInetrc(): string {
  return '{resolv_conf, ""}.\n';
}

/** The machine's hosts file with the run's names in front (the first match wins). */
export function renderMountedHostsFile(machineHosts: string, routes: ReadonlyMap<string, string>): string {
  const ours = [...routes].map(([domain, address]) => `${address} ${domain}`);
  return `# agentconf federation run\n${ours.join('\n')}\n\n${machineHosts}`;
}
