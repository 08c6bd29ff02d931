/**
 * `agentconf conformance-tools`: the conformance tools of docs/conformance-tools.md as an MCP
 * server (stdio or Streamable HTTP), with the ledger in this process or a file, read out of band
 * (docs/conformance-tools.md, "Over MCP").
 */
export { ConformanceLedger, readLedgerFile } from './ledger.ts';
export { createConformanceToolsServer, type ConformanceToolsOptions } from './server.ts';
export { CONFORMANCE_MANIFEST_FILE, conformanceToolList, type ConformanceToolList } from './tool-list.ts';
export {
  serveConformanceToolsHttp,
  serveConformanceToolsStdio,
  type ConformanceToolsHttp,
} from './transports.ts';
