/**
 * The conformance tools' ledger when they run as an MCP server (docs/conformance-tools.md, "The
 * ledger and counter"): how often work really ran, per key. It lives in the server's process,
 * so the suite reads it out of band (ConformanceToolsHttp's /ledger endpoint, or the file),
 * never through the gateway under test.
 *
 * With a file, every increment is appended as one JSON line and fsynced before the script goes
 * on, and a read counts the file afresh: the ledger survives a restart of the server (a gateway
 * that is killed takes its stdio child with it), and several server processes started on the
 * same file (one per MCP session, by a bridge that pools sessions) share one ledger. A torn last
 * line after a crash is ignored: that increment never returned.
 */
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { ToolLedger } from '../../protocol/tool-actions.ts';

export class ConformanceLedger implements ToolLedger {
  readonly #counts = new Map<string, number>();
  readonly #file: string | undefined;
  #fd: number | undefined;

  private constructor(file: string | undefined) {
    this.#file = file;
    if (file !== undefined) this.#fd = openSync(file, 'a');
  }

  /** Counts kept in this process only. */
  static inMemory(): ConformanceLedger {
    return new ConformanceLedger(undefined);
  }

  /** Counts kept in `file` (created when missing), shared with every process that names it. */
  static inFile(file: string): ConformanceLedger {
    return new ConformanceLedger(file);
  }

  /** The file, when the ledger has one. */
  get file(): string | undefined {
    return this.#file;
  }

  increment(key: string): number {
    if (this.#fd !== undefined) {
      writeSync(this.#fd, `${JSON.stringify({ key })}\n`);
      fsyncSync(this.#fd);
      return this.read(key);
    }
    const count = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, count);
    return count;
  }

  read(key: string): number {
    return this.counts().get(key) ?? 0;
  }

  /** Every key with its count. */
  counts(): ReadonlyMap<string, number> {
    return this.#file === undefined ? this.#counts : readLedgerFile(this.#file);
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}

/** The counts of a ledger file, as the suite reads it out of band (a missing file counts nothing). */
export function readLedgerFile(file: string): Map<string, number> {
  const counts = new Map<string, number>();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return counts;
    throw error;
  }
  for (const line of text.split('\n')) {
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    const key = (entry as { key?: unknown } | null)?.key;
    if (typeof key === 'string') counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}
