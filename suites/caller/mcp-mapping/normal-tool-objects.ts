/**
 * #mcp-mapping's first bridge rule (a SHOULD): the MCP client gets ordinary MCP tools. "Ordinary"
 * is judged by MCP's own definitions, through the official SDK: each listed tool parses as MCP's
 * Tool (its types, `inputSchema` an object schema, annotations and execution as MCP defines
 * them), its name follows MCP's tool-name format (1 to 128 of A-Z a-z 0-9 _ - .), and no two
 * listed tools share a name (a client calls by name). XMPP tool names are wider than MCP's
 * (#namespaces: any XML-legal string), so the world holds one that MCP's format cannot carry and
 * one name two endpoints share: a bridge has to rename, which the contract allows (the remote
 * identity rides in `_meta`, docs/caller.md).
 */

import type { ListedTool } from '../../../harness/caller-under-test/index.ts';
import { simpleManifest, type FakeTargetWorld } from '../../../harness/fake-target/index.ts';
import { CannotTell, RequirementViolation } from '../../framework/verdicts.ts';
import type { CallerCaseDeclaration } from '../framework/caller-case.ts';
import { mcpOnly } from '../framework/caller-under-test.ts';
import type { CallerCaseContext } from '../framework/caller-context.ts';

/** A name XMPP carries (XML-legal) and MCP's format does not: a space, a slash, non-ASCII. */
const NON_MCP_NAME = 'prévision météo/jour';
/** The name both endpoints give a tool. */
const SHARED_NAME = 'forecast.get';

function namingWorld(context: CallerCaseContext): { world: FakeTargetWorld; remotes: string[] } {
  const first = `meteo@${context.targetDomain}`;
  const second = `almanac@${context.targetDomain}`;
  const annotated = {
    name: SHARED_NAME,
    title: 'Forecast',
    description: 'Tomorrow, in one line.',
    annotations: { readOnlyHint: true },
    execution: { taskSupport: 'optional' },
  } as const;
  return {
    remotes: [`${first} ${SHARED_NAME}`, `${first} ${NON_MCP_NAME}`, `${second} ${SHARED_NAME}`],
    world: {
      endpoints: [
        {
          jid: first,
          manifests: [simpleManifest(first, '1.0.0', [annotated, { name: NON_MCP_NAME }] as never)],
        },
        { jid: second, manifests: [simpleManifest(second, '1.0.0', [{ name: SHARED_NAME }])] },
      ],
    },
  };
}

/** MCP's own Tool definition and tool-name check, as its SDK has them. */
interface McpToolRules {
  readonly ToolSchema: typeof import('@modelcontextprotocol/sdk/types.js').ToolSchema;
  readonly validateToolName: typeof import('@modelcontextprotocol/sdk/shared/toolNameValidation.js').validateToolName;
}

/** Imported when the case judges: the SDK brings some 270 modules no other case of a run needs loaded at its start. */
async function mcpToolRules(): Promise<McpToolRules> {
  const [{ ToolSchema }, { validateToolName }] = await Promise.all([
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/shared/toolNameValidation.js'),
  ]);
  return { ToolSchema, validateToolName };
}

/** What keeps a listed tool from being an ordinary MCP tool, in words (none: it is one). */
function abnormalities(
  tool: ListedTool,
  listing: readonly ListedTool[],
  { ToolSchema, validateToolName }: McpToolRules,
): string[] {
  const parsed = ToolSchema.safeParse(tool.json);
  const schemaIssues = parsed.success
    ? []
    : parsed.error.issues.map(
        (issue) => `not an MCP Tool at ${issue.path.join('.') || '(root)'}: ${issue.message}`,
      );
  const name = validateToolName(tool.name);
  const nameIssues = name.isValid ? [] : [`name ${JSON.stringify(tool.name)}: ${name.warnings.join('; ')}`];
  const shared = listing.filter((other) => other.name === tool.name).length;
  const sharedIssues =
    shared > 1 ? [`name ${JSON.stringify(tool.name)} is listed ${String(shared)} times`] : [];
  return [...schemaIssues, ...nameIssues, ...sharedIssues];
}

export const normalToolObjectsCase: CallerCaseDeclaration<'mcp-mapping'> = {
  id: 'mcp-mapping.bridge-lists-normal-mcp-tools',
  requirements: ['mcp-mapping.normal-tool-objects'],
  assessments: ['mcp-bridge'],
  interfaces: mcpOnly('it checks the Tool objects an MCP tools/list returns against the MCP schema'),
  level: 'SHOULD',
  statement:
    "Every tool the bridge lists is an ordinary MCP Tool: valid by MCP's Tool definition, named in MCP's tool-name format and uniquely, even for an XMPP tool name MCP's format cannot carry and a name two endpoints share.",
  async run(context) {
    const { world, remotes } = namingWorld(context);
    const session = await context.startSession(world);
    const listing = await session.caller.driver.listTools();
    const bridged = listing.tools.filter((tool) => tool.target !== undefined);
    if (bridged.length === 0) {
      throw new CannotTell(
        `the bridge lists no tool whose _meta names a remote tool (${remotes.join(', ')}): there is no bridged tool to judge`,
      );
    }
    const listed = new Set(bridged.map((tool) => `${tool.target?.jid ?? ''} ${tool.target?.tool ?? ''}`));
    const unlisted = remotes.filter((remote) => !listed.has(remote));
    if (unlisted.length > 0) context.note(`not listed (judged only on what is): ${unlisted.join(', ')}`);
    const rules = await mcpToolRules();
    const findings = bridged.flatMap((tool) =>
      abnormalities(tool, listing.tools, rules).map((issue) => `${tool.target?.tool ?? tool.name}: ${issue}`),
    );
    if (findings.length > 0) {
      throw new RequirementViolation(
        'mcp-mapping.normal-tool-objects',
        "tools valid by MCP's Tool definition, each named in MCP's tool-name format and once",
        `${findings.join('\n')}\nlisted: ${JSON.stringify(bridged.map((tool) => tool.json))}`,
        `mcp-mapping.normal-tool-objects: ${String(findings.length)} finding(s), first: ${findings[0] ?? ''}`,
      );
    }
    context.held(
      'mcp-mapping.normal-tool-objects',
      `${String(bridged.length)} bridged tools are MCP Tools named ${bridged.map((tool) => JSON.stringify(tool.name)).join(', ')}`,
    );
  },
};
