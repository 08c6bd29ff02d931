/**
 * Records the MCP messages between the suite and the caller under test into a case's transcript,
 * by wrapping the connected transport's send and onmessage (the SDK client keeps using it as
 * before). The initialize handshake precedes the tap; every request of the case is recorded.
 */
import type { Transcript } from '../../../harness/driver/index.ts';
import type { McpCallerDriver } from '../../../harness/caller-under-test/index.ts';

/** The transcript's "JID" column for MCP traffic. */
export const MCP_PARTY = 'mcp';

export function tapMcpMessages(driver: McpCallerDriver, transcript: Transcript): void {
  const transport = driver.client.transport;
  if (transport === undefined) return;
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    transcript.record({ kind: 'raw', direction: 'sent', jid: MCP_PARTY, xml: JSON.stringify(message) });
    await send(message, options);
  };
  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    transcript.record({ kind: 'raw', direction: 'received', jid: MCP_PARTY, xml: JSON.stringify(message) });
    receive?.(message, extra);
  };
}
