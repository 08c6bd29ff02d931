// The health listener's answers: pure handlers for every path, method and state, then the real
// node:http listener on an ephemeral port.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { respondToHealthRequest, type HealthState } from './health-handlers.ts';
import { HealthListenError, startHealthListener, type HealthListener } from './health-listener.ts';

function state(componentOnline: boolean, storeOpen: boolean): HealthState {
  return { componentOnline: () => componentOnline, storeOpen: () => storeOpen };
}

const UP = state(true, true);

function body(method: string | undefined, target: string | undefined, s: HealthState = UP): unknown {
  return JSON.parse(respondToHealthRequest(method, target, s).body);
}

describe('respondToHealthRequest', () => {
  it('GET /health is 200 whatever the component and store do', () => {
    for (const s of [UP, state(false, true), state(true, false), state(false, false)]) {
      expect(respondToHealthRequest('GET', '/health', s).status).toBe(200);
    }
    expect(body('GET', '/health')).toEqual({ status: 'ok' });
  });

  it('GET /ready is 200 only with the component online and the store open', () => {
    expect(respondToHealthRequest('GET', '/ready', UP).status).toBe(200);
    expect(body('GET', '/ready')).toEqual({ ready: true, component: 'online', store: 'open' });
    expect(respondToHealthRequest('GET', '/ready', state(false, true)).status).toBe(503);
    expect(body('GET', '/ready', state(false, true))).toEqual({
      ready: false,
      component: 'offline',
      store: 'open',
    });
    expect(respondToHealthRequest('GET', '/ready', state(true, false)).status).toBe(503);
    expect(body('GET', '/ready', state(true, false))).toEqual({
      ready: false,
      component: 'online',
      store: 'closed',
    });
  });

  it('ignores a query string', () => {
    expect(respondToHealthRequest('GET', '/ready?verbose=1', UP).status).toBe(200);
  });

  it('answers 404 for any other path, and 405 with Allow for any other method', () => {
    for (const target of ['/', '/healthz', '/health/', '//health', '/READY', '', undefined]) {
      const answer = respondToHealthRequest('GET', target, UP);
      expect(answer.status, String(target)).toBe(404);
      expect(JSON.parse(answer.body)).toEqual({ error: 'not-found' });
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', undefined]) {
      const answer = respondToHealthRequest(method, '/health', UP);
      expect(answer.status, String(method)).toBe(405);
      expect(answer.headers['allow']).toBe('GET');
    }
  });

  it('sends JSON that no cache keeps', () => {
    const answer = respondToHealthRequest('GET', '/ready', UP);
    expect(answer.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
    });
    expect(answer.body.endsWith('\n')).toBe(true);
  });
});

interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

function fetchFrom(listener: HealthListener, method: string, path: string): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: listener.address.host, port: listener.address.port, method, path },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, body: text });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('startHealthListener', () => {
  const listeners: HealthListener[] = [];
  afterEach(async () => {
    for (const listener of listeners.splice(0)) await listener.close();
  });

  it('binds an ephemeral port for port 0 and follows the state on every request', async () => {
    let online = false;
    const listener = await startHealthListener(
      { host: '127.0.0.1', port: 0 },
      { componentOnline: () => online, storeOpen: () => true },
    );
    listeners.push(listener);
    expect(listener.address.port).toBeGreaterThan(0);
    expect(listener.url).toBe(`http://127.0.0.1:${String(listener.address.port)}`);
    expect(await fetchFrom(listener, 'GET', '/health')).toMatchObject({ status: 200 });
    expect(await fetchFrom(listener, 'GET', '/ready')).toMatchObject({ status: 503 });
    online = true;
    expect(await fetchFrom(listener, 'GET', '/ready')).toEqual({
      status: 200,
      body: '{"ready":true,"component":"online","store":"open"}\n',
    });
    expect((await fetchFrom(listener, 'POST', '/ready')).status).toBe(405);
    expect((await fetchFrom(listener, 'GET', '/metrics')).status).toBe(404);
  });

  it('reports a port it cannot bind in one readable line, and closes idempotently', async () => {
    const first = await startHealthListener({ host: '127.0.0.1', port: 0 }, UP);
    listeners.push(first);
    await expect(startHealthListener({ host: '127.0.0.1', port: first.address.port }, UP)).rejects.toThrow(
      new HealthListenError(`cannot listen on ${first.url} (EADDRINUSE)`),
    );
    await first.close();
    await first.close();
  });
});
