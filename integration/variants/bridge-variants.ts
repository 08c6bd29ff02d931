/**
 * Test-only variants of the reference MCP bridge (reference-bridge/), built as patched copies of
 * the source tree like the gateway variants (gateway-variants.ts). Each gets its own SUT file,
 * written into the copy at fixtures/sut/<name>.json and derived from
 * fixtures/sut/reference-mcp-bridge.json, so its `"cwd": "../.."` starts the copy's bridge.
 *
 * BROKEN variants call in a way the spec forbids (#invocation, #events, #mcp-mapping,
 * #use-case-mcp-bridge): none may pass the assessment that judges it. PERMITTED variants differ
 * only in ways the spec allows: each must pass a full caller run. README.md gives the reasons.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../harness/repo-root.ts';
import { buildSourceVariant, type DiffPatch } from '../../harness/sut/source-variant.ts';
import type { BuiltVariant } from './gateway-variants.ts';
import { variantPatches } from './gateway-variants.ts';

/** The reference bridge's SUT file as JSON, the shape the variants edit. */
interface BridgeSutFile {
  name: string;
  caller: { mcp: { command: string[]; cwd?: string; url?: string } };
  [member: string]: unknown;
}

export interface BridgeVariant {
  /** Kebab-case, starting with `bridge-`. */
  readonly name: string;
  /** One line: what differs from the reference bridge. */
  readonly change: string;
  /** The requirement a case must fail it on (broken variants only). */
  readonly violates?: string;
  readonly patches: readonly DiffPatch[];
  /** Edits the variant's copy of the reference bridge's SUT file (its command line). */
  readonly sut?: (sut: BridgeSutFile) => void;
}

/** Builds the variant's source copy with its SUT file; remove() deletes it. */
export function buildBridgeVariant(variant: BridgeVariant): BuiltVariant {
  const sut = JSON.parse(
    readFileSync(join(REPO_ROOT, 'fixtures', 'sut', 'reference-mcp-bridge.json'), 'utf8'),
  ) as BridgeSutFile;
  sut.name = `reference MCP bridge variant ${variant.name}`;
  variant.sut?.(sut);
  const sutPath = join('fixtures', 'sut', `${variant.name}.json`);
  const built = buildSourceVariant(REPO_ROOT, {
    name: variant.name,
    patches: variant.patches,
    addFiles: { [sutPath]: `${JSON.stringify(sut, null, 2)}\n` },
  });
  return {
    name: variant.name,
    root: built.root,
    sutFile: join(built.root, sutPath),
    remove: () => {
      built.remove();
    },
  };
}

function patched(name: string, change: string, violates?: string): BridgeVariant {
  return { name, change, ...(violates === undefined ? {} : { violates }), patches: variantPatches(name) };
}

// ---------------------------------------------------------------------------------------------
// Broken variants

/** After a lost `<accepted/>`, the retry carries a fresh request ID (#invocation). */
export const BRIDGE_RETRIES_NEW_ID = patched(
  'bridge-retries-new-id',
  'a lost <accepted/> is retried with a fresh request ID',
  'invocation.caller-retries-identically',
);

/** An event at a known revision with another event ID or payload is applied, not ignored (#events). */
export const BRIDGE_ACCEPTS_CONFLICTING_REVISION = patched(
  'bridge-accepts-conflicting-revision',
  'a conflicting event at a known revision replaces the one seen and is applied',
  'events.caller-ignores-conflicting-revision',
);

/** `<cancel-accepted/>` settles the call as cancelled before the target settles (#mcp-mapping). */
export const BRIDGE_CANCEL_ACCEPTED_AS_CANCELLED = patched(
  'bridge-cancel-accepted-as-cancelled',
  '<cancel-accepted/> settles the call as cancelled at once',
  'mcp-mapping.cancel-accepted-not-cancellation',
);

/** A chat message from the task's target is read as the task's result (#events). */
export const BRIDGE_CHAT_FALLBACK = patched(
  'bridge-chat-fallback',
  "a chat message from the task's target completes the call with its body as text content",
  'events.caller-no-chat-fallback',
);

/** A completed result loses its `isError` member (#mcp-mapping). */
export const BRIDGE_DROPS_IS_ERROR = patched(
  'bridge-drops-is-error',
  'the CallToolResult of a completed task loses isError',
  'mcp-mapping.preserve-call-result',
);

/** A tool without `destructiveHint` is listed with MCP's default written out (#mcp-mapping, #tool-info). */
export const BRIDGE_INVENTS_ANNOTATION = patched(
  'bridge-invents-annotation',
  'every listed tool gets annotations.destructiveHint true unless the manifest says otherwise',
  'mcp-mapping.preserve-tool-members',
);

/** Declares the MCP `tasks` capability while its loss table lists task-semantics losses. */
export const BRIDGE_CLAIMS_MCP_TASKS = patched(
  'bridge-claims-mcp-tasks',
  'the server declares MCP Tasks support for tools/call while the loss table is non-empty',
  'mcp-mapping.no-false-tasks-claim',
);

/**
 * Tools are listed under their XMPP names as they are (#mcp-mapping, a SHOULD): a name MCP's
 * format cannot carry and a name two endpoints share reach the MCP client unchanged.
 */
export const BRIDGE_LISTS_XMPP_TOOL_NAMES = patched(
  'bridge-lists-xmpp-tool-names',
  "every tool is listed under its XMPP name, unchecked against MCP's format and unrenamed when two share it",
  'mcp-mapping.normal-tool-objects',
);

export const BROKEN_BRIDGE_VARIANTS: readonly BridgeVariant[] = [
  BRIDGE_RETRIES_NEW_ID,
  BRIDGE_ACCEPTS_CONFLICTING_REVISION,
  BRIDGE_CANCEL_ACCEPTED_AS_CANCELLED,
  BRIDGE_CHAT_FALLBACK,
  BRIDGE_DROPS_IS_ERROR,
  BRIDGE_INVENTS_ANNOTATION,
  BRIDGE_CLAIMS_MCP_TASKS,
  BRIDGE_LISTS_XMPP_TOOL_NAMES,
];

// ---------------------------------------------------------------------------------------------
// Permitted variants

/** The local limit of a call is half the configured timeoutSeconds (#cancellation: it is local). */
export const BRIDGE_STRICTER_TIMEOUT = patched(
  'bridge-stricter-timeout',
  "each call's local wait limit is half the configured timeoutSeconds",
);

/**
 * structuredContent is checked against the listed outputSchema again, and a result that breaks
 * it becomes a JSON-RPC error (MCP 2025-11-25: a server with an outputSchema returns conforming
 * structured results; a client may validate them).
 */
export const BRIDGE_REVALIDATES_OUTPUT = patched(
  'bridge-revalidates-output',
  'structuredContent is validated against the outputSchema; a breaking result is a JSON-RPC error',
);

/**
 * Polling instead of events: of the lifecycle events only progress is read; the task's state and
 * result come from task-state and task-result every second (#task-message-routing: correctness
 * never depends on notifications).
 */
export const BRIDGE_POLLS: BridgeVariant = {
  ...patched('bridge-polls', 'only progress is read from events; state and result are polled every second'),
  sut: (sut) => {
    sut.caller.mcp.command.push('--poll', '1');
  },
};

export const PERMITTED_BRIDGE_VARIANTS: readonly BridgeVariant[] = [
  BRIDGE_STRICTER_TIMEOUT,
  BRIDGE_REVALIDATES_OUTPUT,
  BRIDGE_POLLS,
];

// ---------------------------------------------------------------------------------------------
// Broken variants of the caller rules the reference bridge's caller cases judge (issue 23)

/** Task commands go to the full JID the task's events come from (#task-message-routing). */
export const BRIDGE_COMMANDS_TO_FULL_JID = patched(
  'bridge-commands-to-full-jid',
  "cancel and task-state go to the full JID the task's last accepted event came from",
  'task-message-routing.bare-jid-commands',
);

/** Each call invokes the endpoint's version active now, not the pinned one (#manifest-retrieval). */
export const BRIDGE_IGNORES_VERSION_PIN = patched(
  'bridge-ignores-version-pin',
  "every invoke re-reads the endpoint's disco#info and carries the active version and hash",
  'manifest-retrieval.client-pins-version',
);

/** Reaching the local wait limit sends the target a <cancel/> (#cancellation). */
export const BRIDGE_CANCELS_ON_LOCAL_TIMEOUT = patched(
  'bridge-cancels-on-local-timeout',
  "the call's local wait limit asks the target to cancel the task",
  'cancellation.caller-timeout-local',
);

/** A failed query about an endpoint reaches the MCP client as "does not exist" (#use-case-discovery). */
export const BRIDGE_FAILURE_AS_NONEXISTENCE = patched(
  'bridge-failure-as-nonexistence',
  'a failed query while pinning fails tools/list with "endpoint … does not exist"',
  'use-case-discovery.no-existence-inference',
);

/** MCP tools/list cursors are the RSM item ID of the page's last tool (#mcp-mapping). */
export const BRIDGE_RSM_ITEM_CURSOR = patched(
  'bridge-rsm-item-cursor',
  "the tools/list cursor is the last listed tool's name, the item ID RSM would page by",
  'mcp-mapping.mcp-cursors-own',
);

/** The tools/call's JSON-RPC ID goes out as the XMPP request ID (#mcp-mapping). */
export const BRIDGE_JSON_RPC_ID_AS_REQUEST_ID = patched(
  'bridge-json-rpc-id-as-request-id',
  "the invoke's request-id is the tools/call's JSON-RPC ID",
  'mcp-mapping.no-json-rpc-task-id',
);

/** A domain whose disco#info lacks the directory feature has its directory listed anyway (#find-gateway). */
export const BRIDGE_LISTS_UNVERIFIED_GATEWAY = patched(
  'bridge-lists-unverified-gateway',
  'a failed gateway check is followed by a directory listing (disco#items) of the domain',
  'find-gateway.client-verifies-feature',
);

export const BROKEN_CALLER_RULE_BRIDGE_VARIANTS: readonly BridgeVariant[] = [
  BRIDGE_COMMANDS_TO_FULL_JID,
  BRIDGE_IGNORES_VERSION_PIN,
  BRIDGE_CANCELS_ON_LOCAL_TIMEOUT,
  BRIDGE_FAILURE_AS_NONEXISTENCE,
  BRIDGE_RSM_ITEM_CURSOR,
  BRIDGE_JSON_RPC_ID_AS_REQUEST_ID,
  BRIDGE_LISTS_UNVERIFIED_GATEWAY,
];

// Variants judged over Streamable HTTP (#security's token rule binds a bridge reached over HTTP):
// their SUT files serve the bridge on a free port, like fixtures/sut/reference-mcp-bridge-http.json.

function servedOverHttp(sut: BridgeSutFile): void {
  sut.caller.mcp.command.push('--http', '{port}');
  sut.caller.mcp.url = 'http://127.0.0.1:{port}/mcp';
}

/** The MCP client's Authorization header rides into every invoke's arguments (#security). */
export const BRIDGE_FORWARDS_CLIENT_TOKEN: BridgeVariant = {
  ...patched(
    'bridge-forwards-client-token',
    "the MCP client's Authorization header is copied into every invoke's arguments",
    'security.no-token-passthrough',
  ),
  sut: servedOverHttp,
};

/**
 * Permitted: the bridge authenticates its MCP clients by their bearer token (a tools/call over
 * HTTP without one is refused) and logs which client called, while it calls the XMPP side as its
 * own account, never with the client's token (#security; MCP authorization: a server accepts
 * tokens for itself and uses credentials of its own upstream).
 */
export const BRIDGE_AUTHENTICATES_CLIENTS: BridgeVariant = {
  ...patched(
    'bridge-authenticates-clients',
    'over HTTP a tools/call needs a bearer token, logged by digest; XMPP goes out as the bridge',
  ),
  sut: servedOverHttp,
};
