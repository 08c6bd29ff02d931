// The configuration of one Prosody instance of a run, following the verified recipe in
// ../shared/notes/prosody-federation-recipe.md: everything bound to the instance's own loopback
// address, names resolved only from the run's hosts file, all state under the run directory.
import { join } from 'node:path';

import type { KeyPair } from './certificates.ts';
import { luaString as lua } from './lua-string.ts';
import { prosodyPluginDir } from './prosody-plugins.ts';

export interface ProsodyPorts {
  readonly c2s: number;
  readonly c2sDirectTls: number;
  readonly s2s: number;
  readonly component: number;
}

export interface ProsodyInstanceSpec {
  /** Holds the pidfile, data and log of this instance. */
  readonly dir: string;
  readonly address: string;
  readonly ports: ProsodyPorts;
  readonly virtualHosts: readonly string[];
  /** `listed: false` keeps a component out of the virtual hosts' disco#items (default listed). */
  readonly components: readonly {
    readonly domain: string;
    readonly secret: string;
    readonly listed?: boolean;
  }[];
  readonly certificate: KeyPair;
  readonly caCertPath: string;
  readonly hostsFile: string;
  /** The resolver's upstream: a UDP port nobody listens on, so a miss fails at once and offline. */
  readonly deadResolver: { readonly address: string; readonly port: number };
  readonly runAsRoot: boolean;
  readonly logLevel: 'debug' | 'info';
  /** Log to standard output instead of the log file (in a container, where the engine keeps it). */
  readonly logToConsole?: boolean;
  /** Seconds before an s2s connection attempt is given up (Prosody's default is 90). */
  readonly s2sTimeoutSeconds: number;
  /** SCRAM iterations for accounts Prosody creates itself (1: logins cost nothing in tests). */
  readonly iterationCount: number;
  /**
   * Domains whose messages this server does not filter by its users' XEP-0191 blocklists
   * (prosody-plugins/mod_agentconf_unenforced_blocking.lua): the component domains of the
   * federation on the remote server, so a gateway that leaves blocking to routing is caught.
   */
  readonly blockingUnenforcedFor?: readonly string[];
}

export function prosodyPaths(dir: string): { config: string; pidfile: string; data: string; log: string } {
  return {
    config: join(dir, 'prosody.cfg.lua'),
    pidfile: join(dir, 'prosody.pid'),
    data: join(dir, 'data'),
    log: join(dir, 'prosody.log'),
  };
}

const MODULES = [
  'roster',
  'saslauth',
  'tls',
  'dialback',
  'disco',
  'ping',
  'smacks',
  'admin_shell',
  'blocklist',
  'offline',
  'agentconf_block_state',
] as const;

export function renderProsodyConfig(spec: ProsodyInstanceSpec): string {
  const paths = prosodyPaths(spec.dir);
  const unenforced = spec.blockingUnenforcedFor ?? [];
  const ssl = `{ certificate = ${lua(spec.certificate.certPath)}; key = ${lua(spec.certificate.keyPath)}; cafile = ${lua(spec.caCertPath)}; }`;
  const lines = [
    '-- Generated for one agentconf federation run; thrown away with it.',
    `pidfile = ${lua(paths.pidfile)}`,
    `data_path = ${lua(paths.data)}`,
    `log = { ${spec.logLevel} = ${spec.logToConsole === true ? '"*console"' : lua(paths.log)} }`,
    `run_as_root = ${String(spec.runAsRoot)}`,
    'daemonize = false',
    '',
    'use_ipv6 = false',
    `interfaces = { ${lua(spec.address)} }`,
    `c2s_ports = { ${spec.ports.c2s} }`,
    `c2s_direct_tls_ports = { ${spec.ports.c2sDirectTls} }`,
    `s2s_ports = { ${spec.ports.s2s} }`,
    's2s_direct_tls_ports = {}',
    `component_ports = { ${spec.ports.component} }`,
    `component_interfaces = { ${lua(spec.address)} }`,
    '-- Request/response traffic must not wait for delayed ACKs (Nagle costs ~40 ms per round trip).',
    'network_settings = { nagle = false }',
    'http_ports = {}',
    'https_ports = {}',
    'legacy_ssl_ports = {}',
    '',
    '-- Names come from the run hosts file only; SRV names are listed there too, so that their',
    '-- lookups are answered at once instead of going to the (dead) upstream resolver.',
    `unbound = { hoststxt = ${lua(spec.hostsFile)}; resolvconf = false; forward = ${lua(`${spec.deadResolver.address}@${spec.deadResolver.port}`)} }`,
    '',
    '-- blocklist and offline: XEP-0191 blocking and offline storage for the Human Messaging cases;',
    '-- agentconf_block_state: the harness module answering an entity whether a user blocks it.',
    `plugin_paths = { ${lua(prosodyPluginDir(spec.dir))} }`,
    `modules_enabled = { ${[...MODULES, ...(unenforced.length > 0 ? ['agentconf_unenforced_blocking'] : [])].map((name) => lua(name)).join('; ')} }`,
    ...(unenforced.length > 0
      ? [`agentconf_unenforced_block_senders = { ${unenforced.map((domain) => lua(domain)).join('; ')} }`]
      : []),
    'authentication = "internal_hashed"',
    `default_iteration_count = ${spec.iterationCount}`,
    'storage = "internal"',
    '',
    `certificates = ${lua(join(spec.dir, '..', 'certs'))}`,
    `ssl = ${ssl}`,
    'c2s_require_encryption = true',
    '-- s2s must be TLS, authenticated by certificate (the run CA is trusted on every server).',
    's2s_require_encryption = true',
    's2s_secure_auth = true',
    `s2s_timeout = ${spec.s2sTimeoutSeconds}`,
    '',
  ];
  // The server hosting the gateway lists it among its services, as #find-gateway recommends,
  // so the suites see a well-behaved deployment (Prosody lists only subdomain components itself).
  const componentItems = spec.components
    .filter((component) => component.listed !== false)
    .map((component) => `{ ${lua(component.domain)} }`)
    .join('; ');
  for (const host of spec.virtualHosts) {
    lines.push(`VirtualHost ${lua(host)}`, `  ssl = ${ssl}`);
    if (componentItems !== '') lines.push(`  disco_items = { ${componentItems} }`);
    lines.push('');
  }
  for (const component of spec.components) {
    lines.push(
      `Component ${lua(component.domain)}`,
      `  component_secret = ${lua(component.secret)}`,
      `  ssl = ${ssl}`,
      '',
    );
  }
  return lines.join('\n');
}

/** An unbound hosts file: each domain with its s2s SRV names, all pointing at one address. */
export function renderHostsFile(addresses: ReadonlyMap<string, string>): string {
  const lines = ['# Generated for one agentconf federation run.'];
  for (const [domain, address] of addresses) {
    lines.push(`${address} ${domain} _xmpp-server._tcp.${domain} _xmpps-server._tcp.${domain}`);
  }
  return `${lines.join('\n')}\n`;
}
