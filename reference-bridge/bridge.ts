/**
 * The bridge's shared core: one XMPP session, one pinned catalog and one task tracker, used by
 * every MCP connection (a stdio process has one; Streamable HTTP one per session). Each MCP
 * connection gets its own Server from createBridgeServer (mcp/bridge-server.ts).
 */
import type { BridgeSettings } from './config/bridge-settings.ts';
import { PinnedCatalog } from '../reference-caller/catalog/pinned-catalog.ts';
import type { Querier } from '../reference-caller/querier.ts';
import { TaskTracker } from '../reference-caller/tasks/task-tracker.ts';
import type { ToolCallDeps } from '../reference-caller/tasks/tool-call.ts';
import { McpCatalog } from './catalog/mcp-catalog.ts';
import { XmppSession, type TranscriptEntry } from './xmpp/xmpp-session.ts';

export interface BridgeCore {
  readonly settings: BridgeSettings;
  readonly session: XmppSession;
  readonly catalog: McpCatalog;
  readonly calls: ToolCallDeps;
  readonly log: (line: string) => void;
  close(): Promise<void>;
}

export interface StartBridgeOptions {
  /** One line per event worth an operator's attention (stderr in the CLI). */
  readonly log: (line: string) => void;
  readonly onTranscript?: (entry: TranscriptEntry) => void;
}

/** Logs in and prepares the catalog; endpoints are pinned at the first tools/list. */
export async function startBridge(
  settings: BridgeSettings,
  options: StartBridgeOptions,
): Promise<BridgeCore> {
  const { log } = options;
  const session = await XmppSession.open({
    account: settings.xmpp,
    ...(options.onTranscript === undefined ? {} : { onTranscript: options.onTranscript }),
  });
  const querier: Querier = (to, type, payload) => session.iq(to, type, payload, settings.iqTimeoutMs);
  const tracker = new TaskTracker(log);
  session.onMessage((message) => {
    tracker.receive(message);
  });
  const catalog = new McpCatalog(new PinnedCatalog(querier, settings.endpoints, log));
  log(`logged in as ${session.jid}; ${String(settings.endpoints.length)} endpoint(s) configured`);
  return {
    settings,
    session,
    catalog,
    log,
    calls: {
      querier,
      tracker,
      now: () => performance.now(),
      pollMs: settings.pollMs,
      ...(settings.callTimeoutMs === undefined ? {} : { callTimeoutMs: settings.callTimeoutMs }),
      log,
    },
    close: () => session.close(),
  };
}
