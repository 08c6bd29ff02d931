/**
 * bench/read-path: the reference gateway's own time per discovery request (issue 25), in this
 * process and without a server: the state opened as `agentconf gateway` opens it (a database
 * file in WAL mode, the suites' reference world), and each request taken the way the component
 * takes a received stanza: strict re-parse, routeIq, serialize the reply. What a run adds on top
 * (Prosody, the socket, the runner) is the same for every gateway, and is left out on purpose.
 *
 * Requests, each from a local caller who sees every visible endpoint: disco#info at an endpoint
 * (the large conformance manifest and a small one), disco#items at the gateway (the directory),
 * a form search for every endpoint and one for a name, a manifest request.
 * Run alone: node bin/run-ts.js bench/read-path.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../harness/repo-root.ts';
import { parseXml, serialize } from '../protocol/stanza/index.ts';
import { gatewayRouterOf } from '../reference-gateway/component/gateway-component.ts';
import { routeIq } from '../reference-gateway/component/iq-router.ts';
import { parseGatewayConfig } from '../reference-gateway/config/gateway-config.ts';
import { openGatewayState } from '../reference-gateway/config/gateway-state.ts';

const CALLER = 'local@server.example/bench';
const DISCO_INFO = 'http://jabber.org/protocol/disco#info';
const DISCO_ITEMS = 'http://jabber.org/protocol/disco#items';

const REQUESTS: readonly (readonly [label: string, stanza: string])[] = [
  [
    'disco#info at the conformance endpoint',
    `<iq type='get' id='b1' from='${CALLER}' to='conformance@agents.example'><query xmlns='${DISCO_INFO}'/></iq>`,
  ],
  [
    'disco#info at the weather endpoint',
    `<iq type='get' id='b2' from='${CALLER}' to='weather@agents.example'><query xmlns='${DISCO_INFO}'/></iq>`,
  ],
  [
    'disco#items at the gateway',
    `<iq type='get' id='b3' from='${CALLER}' to='agents.example'><query xmlns='${DISCO_ITEMS}'/></iq>`,
  ],
  [
    'search, every endpoint',
    `<iq type='set' id='b4' from='${CALLER}' to='agents.example'><query xmlns='jabber:iq:search'>` +
      `<x xmlns='jabber:x:data' type='submit'/></query></iq>`,
  ],
  [
    'search, nick "weather"',
    `<iq type='set' id='b5' from='${CALLER}' to='agents.example'><query xmlns='jabber:iq:search'>` +
      `<nick>weather</nick></query></iq>`,
  ],
  [
    'manifest of the conformance endpoint',
    `<iq type='get' id='b6' from='${CALLER}' to='conformance@agents.example'>` +
      `<manifest-request xmlns='urn:xmpp:agent-api:0'/></iq>`,
  ],
];

export interface ReadPathFigure {
  readonly label: string;
  readonly medianUs: number;
  readonly p90Us: number;
}

const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;

export async function benchReadPath({ rounds = 2000, warmup = 200 } = {}): Promise<ReadPathFigure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'agentconf-bench-read-'));
  const config = parseGatewayConfig(
    {
      component: { domain: 'agents.example', host: '127.0.0.1', port: 5347, secret: 'bench-only' },
      database: join(dir, 'gateway.sqlite'),
      world: join(REPO_ROOT, 'fixtures/worlds/reference.json'),
      localDomains: ['server.example'],
      limits: {
        rateLimits: Object.fromEntries(
          ['registration', 'administration', 'discovery', 'search', 'metadata', 'invocation'].map((op) => [
            op,
            { burst: 1e9, perSecond: 1e9 },
          ]),
        ),
      },
    },
    { source: 'bench', baseDir: dir },
  );
  const state = await openGatewayState(config, Date.now);
  try {
    const router = gatewayRouterOf(state);
    const samples = REQUESTS.map((): number[] => []);
    const once = async (index: number, text: string): Promise<number> => {
      const started = process.hrtime.bigint();
      const reply = await routeIq(parseXml(serialize(parseXml(text))), router);
      if (reply?.attrs['type'] !== 'result') throw new Error(`request ${String(index)} failed`);
      serialize(reply);
      return Number(process.hrtime.bigint() - started) / 1e3;
    };
    for (let round = 0; round < warmup + rounds; round++) {
      // One of each in turn: load from elsewhere falls on every request alike.
      for (const [index, [, text]] of REQUESTS.entries()) {
        const us = await once(index, text);
        if (round >= warmup) samples[index]?.push(us);
      }
    }
    return REQUESTS.map(([label], index) => {
      const sorted = (samples[index] ?? []).sort((a, b) => a - b);
      return { label, medianUs: quantile(sorted, 0.5), p90Us: quantile(sorted, 0.9) };
    });
  } finally {
    state.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function printReadPath(figures: readonly ReadPathFigure[]): void {
  console.log('read path (in process: parse, route, serialize; µs per request)');
  for (const { label, medianUs, p90Us } of figures) {
    console.log(
      `  ${label.padEnd(40)} median ${medianUs.toFixed(1).padStart(7)}  p90 ${p90Us.toFixed(1).padStart(7)}`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) printReadPath(await benchReadPath());
