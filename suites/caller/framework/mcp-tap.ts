/**
 * Records the MCP messages between the suite and the caller under test into a case's transcript,
 * by wrapping the connected transport's send and onmessage (the SDK client keeps using it as
 * before). The initialize handshake precedes the tap; every request of the case is recorded.
 */
import type { Transcript } from '../../../harness/driver/index.ts';
import type { McpCallerDriver } from '../../../harness/caller-under-test/index.ts';

/** The transcript's "JID" column for MCP traffic. */
export const MCP_PARTY = 'mcp';

/** Called with each MCP message the caller under test sends the suite, as JSON text. */
export type McpListener = (json: string) => void;

export function tapMcpMessages(
  driver: McpCallerDriver,
  transcript: Transcript,
  onReceived?: McpListener,
): void {
  const transport = driver.client.transport;
  if (transport === undefined) return;
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    transcript.record({ kind: 'raw', direction: 'sent', jid: MCP_PARTY, xml: JSON.stringify(message) });
    await send(message, options);
  };
  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const json = JSON.stringify(message);
    transcript.record({ kind: 'raw', direction: 'received', jid: MCP_PARTY, xml: json });
    onReceived?.(json);
    receive?.(message, extra);
  };
}
