// The reference gateway through a real native federation: bob@server.example (local) and
// alice@example.com (remote, across s2s) call the in-process gateway component.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { xml } from '@xmpp/xml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../cli/main.ts';
import type { CliIo } from '../cli/io.ts';
import { createDriver, type Caller, type Driver } from '../harness/driver/index.ts';
import { nativeProvider } from '../harness/federation/native-provider.ts';
import type { Federation } from '../harness/federation/server-provider.ts';
import { REPO_ROOT } from '../protocol/test-support/shared-paths.ts';
import { canonicalDocument } from '../protocol/json/canonical.ts';
import { parseStrictJson } from '../protocol/json/strict-json.ts';
import { NS, NS_AGENT_API } from '../protocol/namespaces.ts';
import {
  buildDiscoInfoRequest,
  buildDiscoItemsRequest,
  buildManifestRequest,
  buildRegister,
  buildRegistrationStatus,
  parseDiscoInfo,
  parseDiscoItems,
  parseManifest,
  parseRegistration,
} from '../protocol/stanza/index.ts';
import { loadGatewayConfig, type GatewayConfig } from '../reference-gateway/config/gateway-config.ts';
import { openGatewayState, type GatewayState } from '../reference-gateway/config/gateway-state.ts';
import { manifestText, REFERENCE_WORLD } from '../reference-gateway/registration/test-support/manifests.ts';
import { backoffDelay } from '../reference-gateway/component/backoff.ts';
import { GatewayComponent } from '../reference-gateway/component/gateway-component.ts';

const GATEWAY = 'agents.example';
const INSTANT = {
  setTimeout,
  clearTimeout: (h: unknown) => {
    clearTimeout(h as NodeJS.Timeout);
  },
  random: () => 0,
};

/**
 * gateway.json in a fresh temporary directory, for `federation`'s component: the whole reference
 * world with server.example as the local domain, plus `members`.
 */
function writeGatewayConfig(
  federation: Federation,
  prefix: string,
  members: Record<string, unknown> = {},
): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const { host, port, domain, secret } = federation.component;
  const path = join(dir, 'gateway.json');
  writeFileSync(
    path,
    JSON.stringify({
      component: { domain, host, port, secret },
      database: 'gateway.sqlite',
      world: REFERENCE_WORLD,
      localDomains: ['server.example'],
      ...members,
    }),
  );
  return { dir, path };
}

describe('reference gateway component', () => {
  let federation: Federation;
  let driver: Driver;
  let bob: Caller;
  let alice: Caller;
  let dir: string;
  let config: GatewayConfig;
  let state: GatewayState;
  let gateway: GatewayComponent;
  let configPath: string;

  async function startGateway(): Promise<void> {
    state = await openGatewayState(config, Date.now);
    gateway = await GatewayComponent.start(state, {
      backoff: { initialMs: 20, maxMs: 200 },
      timing: INSTANT,
    });
  }

  async function stopGateway(): Promise<void> {
    await gateway.stop();
    state.close();
  }

  beforeAll(async () => {
    federation = await nativeProvider.start();
    ({ dir, path: configPath } = writeGatewayConfig(federation, 'agentconf-gateway-', {
      admins: ['bob@server.example'],
    }));
    config = loadGatewayConfig(configPath);
    await startGateway();
    driver = createDriver(federation, { timeoutMs: 5000 });
    bob = await driver.connect('bob@server.example', 'desk');
    alice = await driver.connect('alice@example.com', 'laptop');
  }, 300_000);

  afterAll(async () => {
    await driver.closeAll();
    await stopGateway();
    await federation.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the directory to a local caller in octet order with the RSM count', async () => {
    const items = parseDiscoItems(
      (await bob.iq(GATEWAY, 'get', buildDiscoItemsRequest({ rsm: { max: 10 } }))) ?? xml('none'),
    );
    expect(items.items.map((item) => item.jid)).toEqual([
      'calendar@agents.example',
      'conformance@agents.example',
      'toolbox@agents.example',
      'translator@agents.example',
      'weather@agents.example',
      '\ufa0e@agents.example',
      '\u{20000}@agents.example',
    ]);
    expect(items.rsm?.count).toBe(7);
  });

  it('answers endpoint info with the endpoint-info form', async () => {
    const exchange = await bob.exchangeIq('weather@agents.example', 'get', buildDiscoInfoRequest({}));
    expect(exchange.parsed.type).toBe('result');
    const info = parseDiscoInfo(exchange.parsed.payload ?? xml('none'));
    expect(info.forms.length).toBeGreaterThan(0);
    expect(exchange.reply.xml).toContain('urn:xmpp:agent-endpoint-info:0');
    expect(exchange.reply.xml).toContain('cold_start_supported');
  });

  it('serves a manifest whose <json/> hashes to the served <hash/>', async () => {
    const manifest = parseManifest(
      (await bob.iq('weather@agents.example', 'get', buildManifestRequest({}))) ?? xml('none'),
    );
    expect(manifest.version).toBe('1.4.0');
    const hash = canonicalDocument(parseStrictJson(Buffer.from(manifest.json, 'utf8'))).hash;
    expect(hash.value).toBe(manifest.hash.value);
  });

  it('denies a remote caller by default with the same item-not-found as a nonexistent endpoint', async () => {
    const hidden = await alice.exchangeIq('translator@agents.example', 'get', buildManifestRequest({}));
    const missing = await alice.exchangeIq('nobody@agents.example', 'get', buildManifestRequest({}));
    expect(hidden.parsed.type).toBe('error');
    if (hidden.parsed.type !== 'error' || missing.parsed.type !== 'error') throw new Error('not errors');
    expect(hidden.parsed.error.condition).toBe('item-not-found');
    const errorXml = (text: string): string => text.slice(text.indexOf('<error'));
    expect(errorXml(hidden.reply.xml)).toBe(errorXml(missing.reply.xml));
  });

  it('sends exactly one reply per IQ, also one service-unavailable for an unknown payload', async () => {
    const before = bob.inbound.length;
    const replies = gateway.replies;
    const ping = await bob.exchangeIq(GATEWAY, 'get', xml('ping', { xmlns: NS.ping }));
    expect(ping.parsed.type).toBe('result');
    const unknown = await bob.exchangeIq(GATEWAY, 'set', xml('mystery', { xmlns: 'urn:example:unknown' }));
    expect(unknown.parsed.type).toBe('error');
    if (unknown.parsed.type === 'error') expect(unknown.parsed.error.condition).toBe('service-unavailable');
    // A late second reply would reach bob after the first: a third round trip flushes it.
    const flush = await bob.exchangeIq(GATEWAY, 'get', xml('ping', { xmlns: NS.ping }));
    const received = bob.inbound.slice(before).filter((s) => s.name === 'iq');
    expect(received.map((s) => s.id)).toEqual([ping.id, unknown.id, flush.id]);
    expect(gateway.replies - replies).toBe(3);
  });

  it('keeps an admin-registered version across a restart with the same database', async () => {
    const text = manifestText({ jid: 'fresh@agents.example', version: '2.0.0' });
    const registered = await bob.iq(GATEWAY, 'set', buildRegister({ manifestJson: text }));
    expect(registered?.is('registered', NS_AGENT_API)).toBe(true);
    await stopGateway();
    await startGateway();
    const status = parseRegistration(
      (await bob.iq(GATEWAY, 'get', buildRegistrationStatus({ jid: 'fresh@agents.example' }))) ?? xml('none'),
    );
    expect(status.versions.map((v) => v.id)).toEqual(['2.0.0']);
  });

  it('never answers IQ results or errors sent to it', async () => {
    const before = bob.inbound.length;
    await bob.send(xml('iq', { type: 'result', id: 'stray-result', to: GATEWAY }));
    await bob.send(
      xml(
        'iq',
        { type: 'error', id: 'stray-error', to: GATEWAY },
        xml('error', { type: 'cancel' }, xml('item-not-found', { xmlns: NS.stanzas })),
      ),
    );
    const ping = await bob.exchangeIq(GATEWAY, 'get', xml('ping', { xmlns: NS.ping }));
    const received = bob.inbound.slice(before).filter((s) => s.name === 'iq');
    expect(received.map((s) => s.id)).toEqual([ping.id]);
  });

  it('runs as `agentconf gateway --config FILE` (a process) until SIGTERM', async () => {
    await stopGateway();
    const child = spawn(process.execPath, ['bin/agentconf.js', 'gateway', '--config', configPath], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) => {
      child.once('exit', (code, signal) => {
        resolveExit({ code, signal });
      });
    });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const online = new Promise<void>((resolveOnline, rejectOnline) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (stdout.includes(' online via ')) resolveOnline();
      });
      void exited.then((status) => {
        rejectOnline(new Error(`exited before online (${JSON.stringify(status)}):\n${stdout}\n${stderr}`));
      });
    });
    try {
      await online;
      expect(stdout).toMatch(/^gateway: agents\.example online via \S+\n$/u);
      expect(await bob.iq(GATEWAY, 'get', xml('ping', { xmlns: NS.ping }))).toBeUndefined();
      child.kill('SIGTERM');
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(stdout).toMatch(/gateway: stopped \(SIGTERM\)\n$/u);
    } finally {
      child.kill('SIGKILL');
      await exited;
      await startGateway();
    }
  }, 60_000);

  it('rejects a missing --config as a usage error', async () => {
    const err: string[] = [];
    const io: CliIo = {
      out: () => undefined,
      err: (text) => err.push(text),
      readFile: (file) => readFileSync(file),
    };
    expect(await main(['gateway'], io)).toBe(2);
    expect(err.join('')).toContain('missing --config FILE');
  });

  it('reconnects after the component link is cut', async () => {
    const offline = gateway.next('offline');
    const online = gateway.next('online');
    federation.links.component.cut();
    await offline;
    await online;
    expect(gateway.status).toBe('online');
    expect(await bob.iq(GATEWAY, 'get', xml('ping', { xmlns: NS.ping }))).toBeUndefined();
  });
});

describe('presence of hosted endpoints (#identity-presence)', () => {
  let federation: Federation;
  let driver: Driver;
  let bob: Caller;
  let alice: Caller;
  let dir: string;
  let state: GatewayState;
  let gateway: GatewayComponent;

  beforeAll(async () => {
    federation = await nativeProvider.start();
    const written = writeGatewayConfig(federation, 'agentconf-presence-');
    dir = written.dir;
    state = await openGatewayState(loadGatewayConfig(written.path), Date.now);
    gateway = await GatewayComponent.start(state, { timing: INSTANT });
    driver = createDriver(federation, { timeoutMs: 5000 });
    bob = await driver.connect('bob@server.example', 'desk');
    alice = await driver.connect('alice@example.com', 'laptop');
    // Only a resource that asked for its roster is sent subscription answers (RFC 6121 §2.1.6).
    for (const caller of [bob, alice]) {
      await caller.iq(caller.bareJid, 'get', xml('query', { xmlns: 'jabber:iq:roster' }));
    }
  }, 300_000);

  afterAll(async () => {
    await driver.closeAll();
    await gateway.stop();
    state.close();
    await federation.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The presence stanzas from `jid` that `caller` received since `since`, as (type or 'available'). */
  function presenceFrom(caller: Caller, jid: string, since: number): string[] {
    return caller.inbound
      .slice(since)
      .filter((stanza) => stanza.name === 'presence' && stanza.from === jid)
      .map((stanza) => stanza.type ?? 'available');
  }

  async function subscribe(caller: Caller, jid: string): Promise<string[]> {
    const since = caller.inbound.length;
    await caller.send(xml('presence', { to: jid, type: 'subscribe' }));
    await caller.waitForStanza((stanza) => stanza.name === 'presence' && stanza.from === jid, {
      since,
      description: `an answer from ${jid}`,
    });
    // Whatever else the gateway sends for it is written before the answer to a later IQ.
    await caller.iq(GATEWAY, 'get', xml('ping', { xmlns: NS.ping }));
    return presenceFrom(caller, jid, since);
  }

  it("approves a local caller's subscription to a visible endpoint: subscribed, then available", async () => {
    expect(await subscribe(bob, 'weather@agents.example')).toEqual(['subscribed', 'available']);
  });

  it('answers a probe from a caller who may see the endpoint with available presence', async () => {
    const since = bob.inbound.length;
    await bob.send(xml('presence', { to: 'calendar@agents.example', type: 'probe' }));
    const answer = await bob.waitForStanza(
      (stanza) => stanza.name === 'presence' && stanza.from === 'calendar@agents.example',
      { since },
    );
    expect(answer.type).toBeUndefined();
  });

  it('declines hidden and nonexistent endpoints alike, byte for byte', async () => {
    // vault is hidden from local callers; nobody@ does not exist; archive is deactivated.
    const answers = [];
    for (const jid of ['vault@agents.example', 'nobody@agents.example', 'archive@agents.example']) {
      const since = bob.inbound.length;
      expect(await subscribe(bob, jid)).toEqual(['unsubscribed']);
      const stanza = bob.inbound.slice(since).find((s) => s.name === 'presence' && s.from === jid);
      answers.push((stanza?.xml ?? '').replaceAll(jid, 'JID'));
    }
    expect(new Set(answers).size).toBe(1);
  });

  it('gives a remote caller across s2s the same decisions its grants give discovery', async () => {
    // alice sees weather; translator is invocable for her but not visible.
    expect(await subscribe(alice, 'weather@agents.example')).toEqual(['subscribed', 'available']);
    const hidden = await subscribe(alice, 'translator@agents.example');
    const missing = await subscribe(alice, 'nobody@agents.example');
    expect(hidden).toEqual(['unsubscribed']);
    expect(missing).toEqual(hidden);
    const disco = await alice.exchangeIq('translator@agents.example', 'get', buildDiscoInfoRequest({}));
    expect(disco.parsed.type).toBe('error');
  });

  it('declines a subscription to the gateway JID itself', async () => {
    expect(await subscribe(bob, GATEWAY)).toEqual(['unsubscribed']);
  });
});

describe('agentconf gateway: a refused first connection', () => {
  let federation: Federation;
  let dir: string;

  beforeAll(async () => {
    federation = await nativeProvider.start();
    dir = mkdtempSync(join(tmpdir(), 'agentconf-refused-'));
  }, 300_000);

  afterAll(async () => {
    await federation.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits 1 with one line when the server refuses the component secret', async () => {
    const { host, port, domain } = federation.component;
    const path = join(dir, 'gateway.json');
    writeFileSync(
      path,
      JSON.stringify({
        component: { domain, host, port, secret: 'not-the-secret' },
        database: 'gateway.sqlite',
      }),
    );
    const out: string[] = [];
    const err: string[] = [];
    const io: CliIo = {
      out: (text) => out.push(text),
      err: (text) => err.push(text),
      readFile: (file) => readFileSync(file),
    };
    expect(await main(['gateway', '--config', path], io)).toBe(1);
    expect(out).toEqual([]);
    expect(err.join('')).toBe(
      `agentconf gateway: cannot connect as agents.example to ${host}:${String(port)}: ` +
        'the server refused the handshake (not-authorized): check component.secret\n',
    );
    expect(err.join('')).not.toContain('not-the-secret');
  });
});

describe('backoffDelay', () => {
  it('doubles the ceiling per attempt up to the cap, jittered within its upper half', () => {
    const policy = { initialMs: 100, maxMs: 1000 };
    expect([1, 2, 3, 4, 5, 40].map((n) => backoffDelay(n, policy, () => 0))).toEqual([
      50, 100, 200, 400, 500, 500,
    ]);
    expect(backoffDelay(3, policy, () => 0.999_999)).toBe(400);
  });
});
