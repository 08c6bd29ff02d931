// A throw-away certificate authority per run and one leaf per server naming all of its domains, so
// that s2s negotiates TLS and authenticates with certificates (SASL EXTERNAL) like real servers do.
// P-256 keys cost nothing to generate. All openssl commands run from one shell: spawning from Node
// is the expensive part, and the leaves are issued in parallel.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureSoftware, OPENSSL } from './debian-packages.ts';

const run = promisify(execFile);

export interface KeyPair {
  readonly certPath: string;
  readonly keyPath: string;
}

export interface LeafRequest {
  /** File name stem. */
  readonly name: string;
  /** The first is the subject; all are subjectAltNames. */
  readonly domains: readonly string[];
}

export interface RunCertificates {
  readonly ca: KeyPair;
  readonly leaves: ReadonlyMap<string, KeyPair>;
}

const NAME = /^[a-z0-9-]+$/;
const DOMAIN = /^[a-z0-9.-]+$/;

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

export async function createRunCertificates(
  dir: string,
  requests: readonly LeafRequest[],
): Promise<RunCertificates> {
  // Not part of a Debian base system: a fresh machine gets it with Prosody (ssl-cert), but the
  // certificates are issued while Prosody is still being ensured.
  await ensureSoftware(OPENSSL);
  const key = '-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2';
  const ca = { certPath: join(dir, 'ca.crt'), keyPath: join(dir, 'ca.key') };
  const leaves = new Map<string, KeyPair>();
  const lines = [
    'set -e',
    `openssl req -x509 ${key} -keyout ${shellQuote(ca.keyPath)} -out ${shellQuote(ca.certPath)}` +
      ` -subj '/CN=agentconf throw-away test CA'` +
      ` -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign`,
    'pids=""',
  ];
  for (const { name, domains } of requests) {
    const [subject] = domains;
    if (!NAME.test(name) || subject === undefined || !domains.every((domain) => DOMAIN.test(domain))) {
      throw new Error(`bad certificate request ${JSON.stringify({ name, domains })}`);
    }
    const pair = { certPath: join(dir, `${name}.crt`), keyPath: join(dir, `${name}.key`) };
    leaves.set(name, pair);
    lines.push(
      `openssl req -x509 ${key} -CA ${shellQuote(ca.certPath)} -CAkey ${shellQuote(ca.keyPath)}` +
        ` -keyout ${shellQuote(pair.keyPath)} -out ${shellQuote(pair.certPath)} -subj /CN=${subject}` +
        ` -addext subjectAltName=${domains.map((domain) => `DNS:${domain}`).join(',')}` +
        ' -addext basicConstraints=critical,CA:FALSE' +
        ' -addext keyUsage=critical,digitalSignature,keyEncipherment,keyAgreement' +
        // s2s certificates authenticate both the listening and the connecting server.
        ' -addext extendedKeyUsage=serverAuth,clientAuth & pids="$pids $!"',
    );
  }
  lines.push('for p in $pids; do wait "$p"; done');
  try {
    await run('/bin/sh', ['-c', lines.join('\n')], { cwd: dir });
  } catch (error) {
    throw new Error('generating the run certificates with openssl failed (is openssl installed?)', {
      cause: error,
    });
  }
  return { ca, leaves };
}
