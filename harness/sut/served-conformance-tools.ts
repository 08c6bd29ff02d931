/**
 * `"conformanceTools": {"mcp": "http"}` (docs/sut.md): the harness serves the conformance tools
 * itself, over MCP Streamable HTTP on a fresh loopback port, with the ledger in its own process.
 * A gateway the harness does not start hosts them from the URL it is handed (connection file,
 * printed details, or {conformanceToolsUrl}), and "the tool ran at most once" is read here, in the
 * suite's process, never from the gateway.
 */
import { ConformanceLedger } from '../conformance-tools/ledger.ts';
import { serveConformanceToolsHttp } from '../conformance-tools/transports.ts';
import type { LedgerReader } from './conformance-ledger.ts';

export interface ServedConformanceTools {
  /** The MCP endpoint, `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  readonly read: LedgerReader;
  /** For the case transcripts: where the counts come from. */
  readonly source: string;
  close(): Promise<void>;
}

export async function serveConformanceTools(): Promise<ServedConformanceTools> {
  const ledger = ConformanceLedger.inMemory();
  const served = await serveConformanceToolsHttp({ ledger, port: 0, host: '127.0.0.1' });
  return {
    url: served.url,
    read: (key) => ledger.read(key),
    source: `the conformance tools' ledger in the harness's own process (served at ${served.url})`,
    close: () => served.close(),
  };
}
