// Writes the reference gateway's config for this example from the run's connection file (where
// and how to connect, which account administers it, where the conformance tools are served) and
// operator-settings.json (what an operator sets up by hand: the operator checklist the run prints
// — policy grants, hidden and restricted endpoints, which runtime runs which endpoint — plus the
// gateway's own limits). Usage: node gateway-config.mjs CONNECTION_FILE DATA_DIR > gateway.json
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [connectionFile, dataDir] = process.argv.slice(2);
if (connectionFile === undefined || dataDir === undefined) {
  process.stderr.write('usage: node gateway-config.mjs CONNECTION_FILE DATA_DIR\n');
  process.exit(2);
}
const connection = JSON.parse(readFileSync(connectionFile, 'utf8'));
const operator = JSON.parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'operator-settings.json'), 'utf8'),
);
const { gateway, component } = connection;
if (gateway?.conformanceToolsUrl === undefined || gateway.adminJid === undefined) {
  process.stderr.write(
    `${connectionFile} names no conformance tools URL or admin: is sut.json the SUT file of the run?\n`,
  );
  process.exit(2);
}
const { conformanceEndpoint, ...settings } = operator;
const config = {
  component: {
    host: component.host,
    port: component.port ?? 5347,
    domain: component.domain,
    secret: component.secret,
  },
  database: join(dataDir, 'gateway.sqlite'),
  admins: [gateway.adminJid],
  ...settings,
  mcpEndpoints: [{ ...conformanceEndpoint, server: { url: gateway.conformanceToolsUrl } }],
};
process.stdout.write(`${JSON.stringify(config, null, 2)}\n`);
