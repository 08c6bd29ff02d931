/**
 * Starts the MCP bridge a SUT file declares (`"caller": {"mcp": …}`, docs/caller.md) with the
 * caller config the suite wrote, and connects the MCP driver to it: over stdio (the SDK spawns the
 * command and owns its pipes) or over Streamable HTTP (the harness starts the command, then
 * connects to its url, probing with a short back-off until it answers; a command that exits
 * ends the wait at once, with its output).
 *
 * The run's CA reaches the bridge in its environment: NODE_EXTRA_CA_CERTS (a Node XMPP client's
 * STARTTLS takes no CA of its own) and SSL_CERT_FILE (OpenSSL's default trust for others).
 *
 * Over HTTP a case may add headers to every request (a client's credentials: #security's token
 * rule); the bridge then reports how many of its requests carried them, the evidence they arrived.
 */
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import type { CallerConfig } from '../../protocol/json/caller-config.ts';
import { ManagedProcess, ProcessExitedError } from '../faults/managed-process.ts';
import type { McpCallerDeclaration } from '../sut/sut-config.ts';
import { writeCallerConfig } from './caller-config-file.ts';
import { McpCallerDriver } from './mcp-driver.ts';

export const CALLER_CONFIG_FILE = 'caller-config.json';

export interface StartMcpCallerOptions {
  readonly declaration: McpCallerDeclaration;
  readonly config: CallerConfig;
  /** Where the config file is written (the run's data directory). */
  readonly dataDir: string;
  /** PEM of the CA the servers' certificates chain to (the federation's caCertPath). */
  readonly caFile?: string;
  /** How long a Streamable HTTP bridge gets to answer (default 20 s). */
  readonly startupMs?: number;
  /** Sent with every HTTP request to the bridge (Streamable HTTP only; stdio has no headers). */
  readonly httpHeaders?: Readonly<Record<string, string>>;
}

export interface McpCallerUnderTest {
  readonly driver: McpCallerDriver;
  readonly configPath: string;
  /** The Streamable HTTP endpoint, for an HTTP bridge. */
  readonly url?: string;
  /** What the bridge printed on stderr (and, over HTTP, stdout), for failure output. */
  output(): string;
  /** HTTP requests sent so far that carried every one of `httpHeaders` (0 on stdio). */
  requestsWithHeaders(): number;
  /** Closes the MCP session and ends the bridge process. */
  stop(): Promise<void>;
}

/** A free TCP port on the loopback interface, for {port}. */
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
  return port;
}

/** Fills {config} and {port}; `{{name}` stands for a literal `{name}`. */
export function fillCallerTemplate(template: string, facts: { config: string; port?: number }): string {
  return template.replace(/\{(\{?)([A-Za-z][A-Za-z0-9]*)\}/g, (whole, escape: string, name: string) => {
    if (escape === '{') return `{${name}}`;
    if (name === 'config') return facts.config;
    if (name === 'port' && facts.port !== undefined) return String(facts.port);
    return whole;
  });
}

function usesPort(declaration: McpCallerDeclaration): boolean {
  return [...declaration.command, declaration.url ?? ''].some((text) => /(^|[^{])\{port\}/.test(text));
}

function stringEnvironment(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

export async function startMcpCaller(options: StartMcpCallerOptions): Promise<McpCallerUnderTest> {
  const { declaration, config } = options;
  const configPath = join(options.dataDir, CALLER_CONFIG_FILE);
  await writeCallerConfig(configPath, config);
  const facts = { config: configPath, ...(usesPort(declaration) ? { port: await freeLoopbackPort() } : {}) };
  const [program, ...args] = declaration.command.map((part) => fillCallerTemplate(part, facts));
  const env = {
    ...declaration.env,
    ...(options.caFile === undefined
      ? {}
      : { NODE_EXTRA_CA_CERTS: options.caFile, SSL_CERT_FILE: options.caFile }),
  };
  const headers = options.httpHeaders ?? {};
  if (declaration.url === undefined) {
    if (Object.keys(headers).length > 0) {
      throw new Error('HTTP headers for a caller under test on stdio: only Streamable HTTP carries them');
    }
    return await startStdio(program ?? '', args, declaration.cwd, env, configPath);
  }
  const carrying = new HeaderCarryingFetch(headers);
  const url = fillCallerTemplate(declaration.url, facts);
  const child = await ManagedProcess.start({
    name: 'caller under test',
    command: program ?? '',
    args,
    cwd: declaration.cwd,
    env,
  });
  try {
    const driver = await connectWhenReady(url, child, options.startupMs ?? 20_000, carrying);
    return {
      driver,
      configPath,
      url,
      output: () => child.output,
      requestsWithHeaders: () => carrying.carried,
      async stop() {
        await driver.close().catch(() => undefined);
        await child.stop();
      },
    };
  } catch (error) {
    await child.kill9();
    throw error;
  }
}

async function startStdio(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  configPath: string,
): Promise<McpCallerUnderTest> {
  const transport = new StdioClientTransport({
    command,
    args,
    cwd,
    env: { ...getDefaultEnvironment(), ...stringEnvironment(), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  try {
    const driver = await McpCallerDriver.connect(transport);
    return {
      driver,
      configPath,
      output: () => stderr,
      requestsWithHeaders: () => 0,
      stop: () => driver.close(),
    };
  } catch (error) {
    await transport.close().catch(() => undefined);
    throw new Error(`the caller under test did not start on stdio: ${String(error)}\n${stderr}`, {
      cause: error,
    });
  }
}

/** Connection refused and the like: the bridge is not listening yet. */
function notListeningYet(error: unknown): boolean {
  const text = `${String(error)} ${String((error as { cause?: unknown }).cause)}`;
  return /ECONNREFUSED|fetch failed|ECONNRESET/.test(text);
}

/**
 * The transport's fetch: adds the headers to every request (the SDK merges its requestInit into
 * POST, GET and DELETE alike) and counts the requests that really carried them.
 */
class HeaderCarryingFetch {
  carried = 0;
  readonly #headers: Readonly<Record<string, string>>;

  constructor(headers: Readonly<Record<string, string>>) {
    this.#headers = headers;
  }

  transportOptions(): StreamableHTTPClientTransportOptions {
    if (Object.keys(this.#headers).length === 0) return {};
    return {
      requestInit: { headers: { ...this.#headers } },
      fetch: async (input, init) => {
        const sent = new Headers(init?.headers);
        if (Object.entries(this.#headers).every(([name, value]) => sent.get(name) === value))
          this.carried += 1;
        return await fetch(input, init);
      },
    };
  }
}

async function connectWhenReady(
  url: string,
  child: ManagedProcess,
  startupMs: number,
  carrying: HeaderCarryingFetch,
): Promise<McpCallerDriver> {
  const deadline = performance.now() + startupMs;
  const exited = child.waitForExit().then((status) => {
    throw new ProcessExitedError(child.name, status, child.output);
  });
  exited.catch(() => undefined);
  let backOffMs = 10;
  for (;;) {
    try {
      return await Promise.race([
        McpCallerDriver.connect(new StreamableHTTPClientTransport(new URL(url), carrying.transportOptions())),
        exited,
      ]);
    } catch (error) {
      if (!notListeningYet(error)) throw error;
      if (performance.now() + backOffMs > deadline) {
        throw new Error(
          `the caller under test did not answer at ${url} within ${startupMs} ms\n${child.output}`,
          {
            cause: error,
          },
        );
      }
    }
    await Promise.race([new Promise((resolve) => setTimeout(resolve, backOffMs)), exited]);
    backOffMs = Math.min(backOffMs * 2, 200);
  }
}
