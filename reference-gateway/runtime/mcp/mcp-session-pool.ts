/**
 * The sessions of one MCP-hosted endpoint. A server that speaks the task-bridge extension names
 * the call in everything it sends, so one session carries every call; any other server gets a
 * session per concurrent call (for stdio, a process each), because an elicitation can then only
 * be attributed to its session's one call. Idle sessions are reused; a closed one is dropped and
 * the next call opens a new one.
 */
import type { McpServerSpec } from '../../config/mcp-endpoints.ts';
import { McpSession, type McpSessionOptions } from './mcp-session.ts';

export class McpSessionPool {
  readonly #spec: McpServerSpec;
  readonly #options: McpSessionOptions;
  readonly #sessions = new Set<McpSession>();
  /** Sessions handed out and not yet released (only for servers without the extension). */
  readonly #busy = new Set<McpSession>();
  #closed = false;

  private constructor(spec: McpServerSpec, options: McpSessionOptions) {
    this.#spec = spec;
    this.#options = options;
  }

  /** Opens the first session: a server that cannot be reached fails the gateway's start. */
  static async open(
    spec: McpServerSpec,
    options: McpSessionOptions,
  ): Promise<{ pool: McpSessionPool; first: McpSession }> {
    const pool = new McpSessionPool(spec, options);
    const first = await pool.#open();
    return { pool, first };
  }

  async #open(): Promise<McpSession> {
    const session = await McpSession.open(this.#spec, this.#options);
    this.#sessions.add(session);
    session.onClose(() => {
      this.#sessions.delete(session);
      this.#busy.delete(session);
    });
    if (this.#closed) await session.close();
    return session;
  }

  /** A session for one call; release() it when the call no longer needs it. */
  async acquire(): Promise<McpSession> {
    if (this.#closed) throw new Error('the MCP endpoint is stopped');
    for (const session of this.#sessions) {
      if (session.closed) continue;
      if (session.bridge) return session;
      if (!this.#busy.has(session)) {
        this.#busy.add(session);
        return session;
      }
    }
    const session = await this.#open();
    if (!session.bridge) this.#busy.add(session);
    return session;
  }

  release(session: McpSession): void {
    this.#busy.delete(session);
  }

  /** Closes a session whose call could not be finished cleanly (its server may still be working on it). */
  async discard(session: McpSession): Promise<void> {
    this.#sessions.delete(session);
    this.#busy.delete(session);
    await session.close();
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#sessions].map((session) => session.close()));
    this.#sessions.clear();
    this.#busy.clear();
  }
}
