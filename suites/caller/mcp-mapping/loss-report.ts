/**
 * Where an MCP bridge reports semantic loss and whether it claims MCP Tasks (#mcp-mapping,
 * #use-case-mcp-bridge), read the way an MCP client can: the server's capabilities, and a
 * resource holding a JSON loss table (`{"losses": [{"id", …, "tasksSemantics"?}], "transparentMcpTasks"?}`,
 * the shape docs/mcp-bridge.md describes). A bridge that reports elsewhere is not readable here.
 */
import type { CallerSession } from '../../../harness/caller-under-test/index.ts';
import type { JsonObject, JsonValue } from '../../../protocol/json/json-value.ts';
import { objectMember } from './bridge-steps.ts';

export interface LossReport {
  readonly uri: string;
  readonly document: JsonObject;
  readonly losses: readonly {
    readonly id: string;
    readonly tasksSemantics: boolean;
    readonly entry: JsonObject;
  }[];
}

function lossesOf(document: JsonObject): LossReport['losses'] | undefined {
  const losses = document['losses'];
  if (!Array.isArray(losses)) return undefined;
  return losses.flatMap((value: JsonValue) => {
    const entry = objectMember(value);
    if (entry === undefined) return [];
    const id = entry['id'];
    return [
      {
        id: typeof id === 'string' ? id : JSON.stringify(entry),
        tasksSemantics: entry['tasksSemantics'] === true,
        entry,
      },
    ];
  });
}

/** The first JSON resource holding a loss table, or undefined (no resources, or none is one). */
export async function lossReport(session: CallerSession): Promise<LossReport | undefined> {
  const { client } = session.caller.driver;
  if (client.getServerCapabilities()?.resources === undefined) return undefined;
  const { resources } = await client.listResources();
  for (const resource of resources) {
    if (resource.mimeType !== undefined && !resource.mimeType.includes('json')) continue;
    const { contents } = await client.readResource({ uri: resource.uri });
    for (const content of contents) {
      if (!('text' in content) || typeof content.text !== 'string') continue;
      let document: JsonObject | undefined;
      try {
        document = objectMember(JSON.parse(content.text) as JsonValue);
      } catch {
        continue;
      }
      const losses = document === undefined ? undefined : lossesOf(document);
      if (document !== undefined && losses !== undefined) return { uri: resource.uri, document, losses };
    }
  }
  return undefined;
}

/** What amounts to a claim of transparent MCP Tasks, and the task-semantics losses reported. */
export function tasksClaim(
  session: CallerSession,
  report: LossReport | undefined,
): { claims: string[]; taskLosses: string[] } {
  const capabilities = session.caller.driver.client.getServerCapabilities() as JsonObject | undefined;
  const claims: string[] = [];
  if (capabilities?.['tasks'] !== undefined) {
    claims.push(`the tasks capability ${JSON.stringify(capabilities['tasks'])}`);
  }
  if (report?.document['transparentMcpTasks'] === true)
    claims.push(`"transparentMcpTasks": true at ${report.uri}`);
  const taskLosses = (report?.losses ?? []).filter((loss) => loss.tasksSemantics).map((loss) => loss.id);
  return { claims, taskLosses };
}
