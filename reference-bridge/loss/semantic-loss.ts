/**
 * The bridge's semantic-loss table (#mcp-mapping: report semantic loss when either side cannot
 * represent a capability): every place where what one protocol says does not reach the other
 * exactly, and what the bridge does instead. Served as an MCP resource and printed by
 * `agentconf mcp-bridge --loss-table`. While any row remains, the bridge does not declare MCP
 * Tasks support (#use-case-mcp-bridge); tools keep their `execution` member as metadata only.
 */
import type { JsonObject } from '../../protocol/json/json-value.ts';

export interface LossEntry {
  /** Stable identifier of the row. */
  readonly id: string;
  /** The spec section that governs it. */
  readonly anchor: string;
  readonly xmpp: string;
  readonly mcp: string;
  /** What the bridge does about it. */
  readonly treatment: string;
  /** Whether the loss concerns the MCP Tasks semantics the bridge therefore does not claim. */
  readonly tasksSemantics: boolean;
}

export const LOSS_RESOURCE_URI = 'agentconf://mcp-bridge/semantic-loss';

export const SEMANTIC_LOSS: readonly LossEntry[] = Object.freeze([
  {
    id: 'task-identity',
    anchor: 'mcp-mapping',
    xmpp: 'Request ID, task ID, initial revision and absolute retain-until of <accepted/>.',
    mcp: 'tools/call has a JSON-RPC ID only; no MCP task is created.',
    treatment:
      'The XMPP identifiers stay in the bridge; the JSON-RPC ID is never used as a task ID. Errors name the task ID when one exists.',
    tasksSemantics: true,
  },
  {
    id: 'state-detail',
    anchor: 'mcp-mapping',
    xmpp: 'Non-terminal states accepted, running, input_required and cancelling, each at a revision.',
    mcp: 'An open tools/call request.',
    treatment:
      'The states are tracked inside the bridge and not shown; progress and elicitation are the only visible traces.',
    tasksSemantics: true,
  },
  {
    id: 'retention',
    anchor: 'mcp-mapping',
    xmpp: 'State and result queryable until retain-until.',
    mcp: 'The tools/call response.',
    treatment: 'The bridge promises no retention: the result exists for the MCP client only as the response.',
    tasksSemantics: true,
  },
  {
    id: 'result-timing',
    anchor: 'mcp-mapping',
    xmpp: 'Events are best-effort; task-state and task-result are the source of truth.',
    mcp: 'One response per request.',
    treatment:
      'The response is sent only after terminal settlement, learned from an event or from task-state/task-result polling.',
    tasksSemantics: true,
  },
  {
    id: 'cancellation',
    anchor: 'cancellation',
    xmpp: '<cancel-accepted/> is advisory; the task may still complete or fail.',
    mcp: 'notifications/cancelled ends the request; no response follows.',
    treatment:
      'notifications/cancelled becomes a <cancel/> to the target; the bridge reports the outcome only once the task settled, as the agentconf task-bridge outcome notification (clients declaring capabilities.experimental["org.agentconf/task-bridge"]) and in its log. A plain MCP client never learns whether the task completed, failed or was cancelled.',
    tasksSemantics: true,
  },
  {
    id: 'failure',
    anchor: 'events',
    xmpp: 'failed with code, message, retryable and details.',
    mcp: 'No failed state: a JSON-RPC error or a result with isError.',
    treatment:
      'A JSON-RPC error whose message is the failure message and whose data["org.agentconf/task-bridge"] carries {"failed": error}; never a result with isError, which means a completed call.',
    tasksSemantics: false,
  },
  {
    id: 'target-cancelled',
    anchor: 'task-states',
    xmpp: 'cancelled settled by the target (or after a cancellation request).',
    mcp: 'No cancelled result.',
    treatment: 'A JSON-RPC error with data["org.agentconf/task-bridge"] = {"cancelled": {reason?}}.',
    tasksSemantics: false,
  },
  {
    id: 'summary',
    anchor: 'events',
    xmpp: 'completed carries an optional summary beside the result.',
    mcp: 'CallToolResult has no summary member.',
    treatment: 'Dropped: the CallToolResult is the XMPP result object exactly, _meta untouched.',
    tasksSemantics: false,
  },
  {
    id: 'progress',
    anchor: 'events',
    xmpp: 'progress with optional percent, stage and message.',
    mcp: 'notifications/progress with a strictly increasing progress, optional total and message.',
    treatment:
      'progress is the event revision (always increasing), total absent, message "percent% stage: message" from the members present; the exact payload rides in params._meta["urn:xmpp:agent-task:0/progress"]. Sent only when the client gave a progressToken.',
    tasksSemantics: false,
  },
  {
    id: 'input',
    anchor: 'interactive-input',
    xmpp: 'input_required with an arbitrary JSON Schema, a creation time and an optional expiry.',
    mcp: 'elicitation/create (form mode) with a flat schema of primitive properties, no expiry.',
    treatment:
      'A schema MCP can carry exactly is sent as requestedSchema; any other is asked as one string property "json" holding a JSON text. The exact request (task ID, request ID, schema, expiry) rides in params._meta["urn:xmpp:agent-task:0/input"]. The target validates the answer authoritatively.',
    tasksSemantics: false,
  },
  {
    id: 'input-refusal',
    anchor: 'interactive-input',
    xmpp: 'No way to decline an input request.',
    mcp: 'Elicitation can be declined or cancelled; a client may not support elicitation at all.',
    treatment: 'Decline, cancel or no elicitation support become a cancellation request to the target.',
    tasksSemantics: false,
  },
  {
    id: 'local-timeout',
    anchor: 'cancellation',
    xmpp: 'A caller-side timeout is a local observation only.',
    mcp: 'A request timeout.',
    treatment:
      'A JSON-RPC error (-32001) naming the task and its last known state; the remote task is neither cancelled nor reported as ended.',
    tasksSemantics: true,
  },
  {
    id: 'uncertain-admission',
    anchor: 'invocation',
    xmpp: 'A lost <accepted/> leaves execution uncertain; retries are identical and end with the replay window.',
    mcp: 'A request either has a result or an error.',
    treatment:
      'Identical retries while the window lasts; then a JSON-RPC error saying the outcome is unknown, naming the request ID. Never a new request.',
    tasksSemantics: true,
  },
  {
    id: 'tool-names',
    anchor: 'namespaces',
    xmpp: 'Tool names are any legal XML text, unique per endpoint version.',
    mcp: 'Tool names are 1 to 128 of A-Z a-z 0-9 _ - . and unique per server.',
    treatment:
      'A name that breaks the rule or collides across endpoints becomes its sanitized form plus "-" and 8 hex digits of SHA-256 over "JID\\nVERSION\\nTOOL"; _meta["urn:xmpp:agent-api:0/target"] always names the remote tool.',
    tasksSemantics: false,
  },
  {
    id: 'declarations',
    anchor: 'manifest',
    xmpp: 'The tool extension object urn:xmpp:agent-api:0 (progress, cancellation, input support, timeouts).',
    mcp: 'No Tool member for it.',
    treatment: 'Carried in the Tool\'s _meta["urn:xmpp:agent-api:0"], as declarations, not grants.',
    tasksSemantics: false,
  },
  {
    id: 'execution',
    anchor: 'mcp-mapping',
    xmpp: 'Tool.execution with MCP taskSupport semantics.',
    mcp: "taskSupport means something only with the server's tasks capability.",
    treatment:
      'Preserved verbatim; the bridge does not declare the tasks capability, so every call is a plain tools/call.',
    tasksSemantics: true,
  },
  {
    id: 'principal',
    anchor: 'idempotency',
    xmpp: 'The authenticated XMPP account is the only principal.',
    mcp: 'Each MCP client or HTTP session may act for someone else.',
    treatment: 'Every MCP session acts as the configured XMPP account; HTTP credentials are never forwarded.',
    tasksSemantics: false,
  },
]);

/** Why the bridge declares no MCP Tasks support: the rows it cannot close. */
export function tasksClaimBlockers(table: readonly LossEntry[] = SEMANTIC_LOSS): string[] {
  return table.filter((entry) => entry.tasksSemantics).map((entry) => entry.id);
}

/** The table as its resource and --loss-table print it. */
export function lossTableDocument(): JsonObject {
  const blockers = tasksClaimBlockers();
  return {
    bridge: 'agentconf mcp-bridge',
    spec: 'urn:xmpp:agent-api:0 / urn:xmpp:agent-task:0 (#mcp-mapping)',
    transparentMcpTasks: blockers.length === 0,
    tasksClaimBlockedBy: blockers,
    preserved: [
      'inputSchema',
      'outputSchema',
      'annotations',
      'execution',
      'content',
      'structuredContent',
      'isError',
      '_meta',
    ],
    losses: SEMANTIC_LOSS.map((entry) => ({ ...entry })),
  };
}
