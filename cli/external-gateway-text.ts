/** What a gateway the harness does not start needs to connect, printed once the servers are up. */
import type { ConnectionFile } from '../harness/federation/connection-file.ts';
import { textTable } from '../suites/framework/text-table.ts';

export function externalGatewayText(details: ConnectionFile, connectionFile: string | undefined): string {
  const { component, gateway } = details;
  const rows: string[][] = [
    ['host', component.host],
    ['port', String(component.port ?? 5347)],
    ['domain', component.domain ?? ''],
    ['secret', component.secret],
    ['CA file', `${details.caCertPath} (every server certificate chains to it)`],
  ];
  if (gateway?.adminJid !== undefined)
    rows.push(['admin', `${gateway.adminJid} (trust it for Administrative Provisioning)`]);
  if (gateway?.worldFile !== undefined)
    rows.push(['world', `${gateway.worldFile} (load this fixture world)`]);
  if (gateway?.conformanceToolsUrl !== undefined)
    rows.push([
      'tools',
      `${gateway.conformanceToolsUrl} (MCP Streamable HTTP: host these conformance tools as the world's conformance endpoint)`,
    ]);
  return [
    `gateway under test: ${gateway?.name ?? ''} is not started by the harness; connect it as a XEP-0114 component:`,
    ...textTable(rows),
    ...(connectionFile === undefined
      ? []
      : [`connection file: ${connectionFile} (JSON: fixtures/schemas/federation-connection.schema.json)`]),
    `waiting up to ${String(gateway?.startupSeconds ?? 0)} s for it to answer…`,
  ].join('\n');
}
