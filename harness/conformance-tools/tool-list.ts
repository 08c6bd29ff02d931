/**
 * What `agentconf conformance-tools` lists (tools/list) and says about itself (serverInfo):
 * the tools of fixtures/manifests/conformance.json as MCP Tool objects, so that a bridge which
 * generates a manifest from tools/list (#mcp-mapping) gets that manifest back. Each tool keeps
 * its name, title, description, schemas, annotations and execution member as the manifest has
 * them; the XMPP declarations (the urn:xmpp:agent-api:0 object: task features, timeouts,
 * approvalRequired, tags), which MCP has no member for, travel in the tool's
 * `_meta[TASK_BRIDGE].declarations`. serverInfo is the manifest's `implementation`.
 */
import { join } from 'node:path';
import { readJsonFile } from '../../protocol/json/config-file.ts';
import { isJsonObject, type JsonObject } from '../../protocol/json/json-value.ts';
import { MCP_TOOL_MEMBERS, TASK_BRIDGE } from '../../protocol/mcp-task-bridge.ts';
import { NS_AGENT_API } from '../../protocol/namespaces.ts';
import { REPO_ROOT } from '../repo-root.ts';

export const CONFORMANCE_MANIFEST_FILE = join(REPO_ROOT, 'fixtures', 'manifests', 'conformance.json');

export interface ConformanceToolList {
  readonly serverInfo: { readonly name: string; readonly version: string };
  readonly tools: readonly JsonObject[];
}

let cached: ConformanceToolList | undefined;

export function conformanceToolList(): ConformanceToolList {
  if (cached !== undefined) return cached;
  const manifest = readJsonFile(CONFORMANCE_MANIFEST_FILE, 1_048_576);
  if (
    !isJsonObject(manifest) ||
    !Array.isArray(manifest['tools']) ||
    !isJsonObject(manifest['implementation'])
  ) {
    throw new Error(`${CONFORMANCE_MANIFEST_FILE}: not the conformance manifest`);
  }
  const { name, version } = manifest['implementation'];
  if (typeof name !== 'string' || typeof version !== 'string') {
    throw new Error(`${CONFORMANCE_MANIFEST_FILE}: implementation needs a name and a version`);
  }
  const tools = manifest['tools'].filter(isJsonObject).map((tool) => {
    const listed: JsonObject = Object.fromEntries(
      MCP_TOOL_MEMBERS.filter((member) => Object.hasOwn(tool, member)).map((member) => [
        member,
        tool[member],
      ]),
    ) as JsonObject;
    const declarations = tool[NS_AGENT_API];
    if (isJsonObject(declarations)) listed['_meta'] = { [TASK_BRIDGE]: { declarations } };
    return listed;
  });
  cached = { serverInfo: { name, version }, tools };
  return cached;
}
