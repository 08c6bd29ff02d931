/**
 * #mcp-mapping and #use-case-mcp-bridge, judged on an MCP bridge (an XMPP caller that serves MCP
 * clients). The section is marked informative, yet states its bridge rules with MUST; the
 * registry holds them as `informativeSource` entries and they count toward the `mcp-bridge`
 * assessment only, never a spec profile (docs/mcp-bridge.md, "How the suite judges a bridge").
 */
import { isDeepStrictEqual } from 'node:util';

import type { JsonObject } from '../../../protocol/json/json-value.ts';
import { NS_AGENT_TASK } from '../../../protocol/namespaces.ts';
import { CannotTell, RequirementViolation } from '../../framework/verdicts.ts';
import { defineCallerSuite } from '../framework/caller-case.ts';
import { mcpOnly } from '../framework/caller-under-test.ts';
import { callerWaitMs, listedTool, oneToolWorld } from '../framework/caller-steps.ts';
import { invokeOf } from '../framework/invoke-stanzas.ts';
import {
  CARRIED_MEMBERS,
  callAndAdmit,
  describeEnd,
  endWithin,
  largeWorld,
  memberDifferences,
  memberWorld,
  metaDifferences,
  objectMember,
  watchCall,
} from './bridge-steps.ts';
import { lossReport, tasksClaim } from './loss-report.ts';
import { normalToolObjectsCase } from './normal-tool-objects.ts';

/** More tools than one tools/list page of most servers (the reference bridge's holds 50). */
const PAGED_WORLD_TOOLS = 120;

export const mcpMappingCallerSuite = defineCallerSuite('mcp-mapping', 'MCP Mapping (bridge)', [
  {
    id: 'mcp-mapping.bridge-lists-tool-members-exactly',
    requirements: ['mcp-mapping.preserve-tool-members'],
    assessments: ['mcp-bridge'],
    interfaces: mcpOnly(
      'it reads the MCP Tool objects of a tools/list, which a call-out tool has no counterpart of',
    ),
    level: 'MUST',
    statement:
      "tools/list carries each tool's schemas, annotations, execution, title, description and _meta exactly as the manifest gives them, and a member the manifest lacks stays absent.",
    async run(context) {
      const { world, jid, tools } = memberWorld(context);
      const session = await context.startSession(world);
      for (const tool of tools) {
        const name = typeof tool['name'] === 'string' ? tool['name'] : '';
        const listed = (await listedTool(session, jid, name)).json;
        const differences = [
          ...memberDifferences(tool, listed, ['inputSchema', ...CARRIED_MEMBERS]),
          ...metaDifferences(tool, listed),
        ];
        if (differences.length > 0) {
          throw new RequirementViolation(
            'mcp-mapping.preserve-tool-members',
            `the manifest's ${name} as an MCP Tool: ${JSON.stringify(tool)}`,
            `${JSON.stringify(listed)}\ndiffering in:\n${differences.join('\n')}`,
            `mcp-mapping.preserve-tool-members: ${name} is listed with ${differences.length} member(s) changed, added or lost`,
          );
        }
        context.held(
          'mcp-mapping.preserve-tool-members',
          `${name}: ${[...CARRIED_MEMBERS, 'inputSchema', '_meta'].filter((m) => tool[m] !== undefined).join(', ') || 'inputSchema only'} kept, the rest absent`,
        );
      }
    },
  },
  {
    id: 'mcp-mapping.bridge-pages-with-own-cursors',
    requirements: ['mcp-mapping.mcp-cursors-own'],
    assessments: ['mcp-bridge'],
    interfaces: mcpOnly('it pages tools/list with MCP cursors; a call-out tool lists nothing'),
    level: 'MUST',
    statement:
      'tools/list over a large tool collection, which the fake target lists without RSM, yields every tool once, and no MCP cursor is an XMPP item name or RSM value.',
    async run(context) {
      const { world, names } = largeWorld(context, PAGED_WORLD_TOOLS);
      const session = await context.startSession(world);
      const listing = await session.caller.driver.listTools();
      const remote = listing.tools.flatMap((tool) => (tool.target === undefined ? [] : [tool.target.tool]));
      const missing = names.filter((name) => !remote.includes(name));
      const repeated = remote.filter((name, index) => remote.indexOf(name) !== index);
      if (missing.length > 0 || repeated.length > 0) {
        throw new RequirementViolation(
          'mcp-mapping.mcp-cursors-own',
          `the ${String(names.length)} tools, each once, over the bridge's pages`,
          `${String(listing.cursors.length + 1)} page(s); missing ${missing.join(', ') || 'none'}; repeated ${repeated.join(', ') || 'none'}`,
        );
      }
      const xmppValues = new Set([
        ...names,
        ...names.map((name) => `${world.endpoints[0]?.jid ?? ''}/${name}`),
      ]);
      const leaked = listing.cursors.filter((cursor) => xmppValues.has(cursor));
      if (leaked.length > 0) {
        throw new RequirementViolation(
          'mcp-mapping.mcp-cursors-own',
          "tool-list cursors of the bridge's own",
          `cursors that are XMPP item names: ${leaked.join(', ')}`,
        );
      }
      context.note(
        listing.cursors.length === 0
          ? 'the bridge listed every tool in one page (MCP allows that)'
          : `the bridge paged with ${String(listing.cursors.length)} cursor(s) of its own`,
      );
      context.held(
        'mcp-mapping.mcp-cursors-own',
        `${String(names.length)} tools listed once each over ${String(listing.cursors.length + 1)} page(s)`,
      );
    },
  },
  {
    id: 'mcp-mapping.bridge-returns-call-result-exactly',
    requirements: ['mcp-mapping.preserve-call-result'],
    assessments: ['mcp-bridge'],
    interfaces: mcpOnly(
      'it compares the MCP CallToolResult member by member; a call-out tool reports {state, taskId, result} by contract',
    ),
    level: 'MUST',
    statement:
      "A completed task's result reaches the MCP client with content, structuredContent, isError and _meta exactly as given, absent ones absent, isError: true included.",
    async run(context) {
      const { world, jid, tool } = oneToolWorld(context, 'results', 'report.get');
      const session = await context.startSession(world);
      const { name } = await listedTool(session, jid, tool);
      const marker = context.random.string('abcdefghijklmnopqrstuvwxyz', 10);
      const results: JsonObject[] = [
        {
          content: [
            { type: 'text', text: `no forecast for ${marker}` },
            { type: 'text', text: 'second block', annotations: { priority: 0.5 } },
          ],
          structuredContent: { marker, nested: { list: [1, 'two', null] } },
          isError: true,
          _meta: { 'com.example/trace': marker },
        },
        { content: [{ type: 'text', text: marker }] },
      ];
      for (const result of results) {
        const { call, task } = await callAndAdmit(session, name, { marker }, callerWaitMs(context));
        const watched = watchCall(call);
        await session.target.sendEvent(task, { type: 'completed', payload: { result } });
        const end = await watched.ended;
        if (end.kind !== 'result') {
          throw new RequirementViolation(
            'mcp-mapping.preserve-call-result',
            `the CallToolResult ${JSON.stringify(result)}`,
            describeEnd(end),
            'mcp-mapping.preserve-call-result: a completed task did not answer with its result',
          );
        }
        const differences = [
          ...memberDifferences(result, end.result, ['content', 'structuredContent', 'isError']),
          ...metaDifferences(result, end.result),
        ];
        if (differences.length > 0) {
          throw new RequirementViolation(
            'mcp-mapping.preserve-call-result',
            `the CallToolResult ${JSON.stringify(result)}`,
            `${JSON.stringify(end.result)}\ndiffering in:\n${differences.join('\n')}`,
            `mcp-mapping.preserve-call-result: ${differences.join('; ')}`,
          );
        }
        context.held(
          'mcp-mapping.preserve-call-result',
          `${Object.keys(result).join(', ')} returned exactly, the other members absent`,
        );
      }
    },
  },
  {
    id: 'mcp-mapping.bridge-answers-after-settlement',
    requirements: ['mcp-mapping.result-after-settlement'],
    assessments: ['mcp-bridge'],
    interfaces: mcpOnly(
      'it judges when the MCP tools/call answer comes; a call-out task settles by the task protocol, which the gateway suites judge',
    ),
    level: 'MUST',
    statement:
      'While the task runs and reports progress, the tools/call stays open; it answers with the result only once the fake target sends the terminal event.',
    async run(context) {
      const { world, jid, tool } = oneToolWorld(context, 'settle', 'slow.run');
      const session = await context.startSession(world);
      const { name } = await listedTool(session, jid, tool);
      const { call, task } = await callAndAdmit(session, name, {}, callerWaitMs(context));
      const watched = watchCall(call);
      await session.target.sendEvent(task, {
        type: 'status',
        payload: { state: 'running', updatedAt: session.target.timestamp() },
      });
      await session.target.sendEvent(task, {
        type: 'progress',
        payload: { percent: 50, message: 'halfway' },
      });
      const openMs = context.timeouts.replySeconds * 1000;
      context.note(`the terminal event is held for ${String(openMs)} ms; the call must stay open meanwhile`);
      const early = await endWithin(watched.ended, openMs);
      if (early !== undefined) {
        throw new RequirementViolation(
          'mcp-mapping.result-after-settlement',
          'the call still open: the task is running, not settled',
          describeEnd(early),
          'mcp-mapping.result-after-settlement: the bridge answered the call before the task settled',
        );
      }
      const result = { content: [{ type: 'text', text: 'done' }] };
      await session.target.sendEvent(task, { type: 'completed', payload: { result } });
      const end = await watched.ended;
      if (end.kind !== 'result' || !isDeepStrictEqual(end.result['content'], result.content)) {
        throw new RequirementViolation(
          'mcp-mapping.result-after-settlement',
          `after settlement, the result ${JSON.stringify(result)}`,
          describeEnd(end),
        );
      }
      context.held('mcp-mapping.result-after-settlement', 'open while running, answered once completed');
    },
  },
  {
    id: 'mcp-mapping.bridge-cancel-accepted-is-not-cancelled',
    requirements: ['mcp-mapping.cancel-accepted-not-cancellation', 'mcp-mapping.result-after-settlement'],
    assessments: ['mcp-bridge'],
    interfaces: mcpOnly('it judges how MCP cancellation is reported over MCP'),
    level: 'MUST',
    statement:
      'When the bridge asks the target to cancel (here: the MCP client declined an elicitation) and gets <cancel-accepted/>, it reports no cancellation; the task then completes and the call answers with that result.',
    async run(context) {
      const { world, jid, tool } = oneToolWorld(context, 'cancelling', 'ask.user');
      const session = await context.startSession(world);
      const { name } = await listedTool(session, jid, tool);
      const cancels = session.target.stream({ kind: 'cancel', from: session.account.jid });
      const { call, task } = await callAndAdmit(session, name, {}, callerWaitMs(context));
      const watched = watchCall(call);
      context.note('the task asks for input; the suite declines the elicitation');
      await session.target.sendEvent(task, {
        type: 'input_required',
        payload: {
          requestId: `input-${context.random.string('abcdefghijklmnopqrstuvwxyz0123456789', 24)}`,
          question: 'Proceed?',
          inputSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
          createdAt: session.target.timestamp(),
        },
      });
      try {
        await cancels.next(callerWaitMs(context));
      } catch {
        throw new CannotTell(
          `the caller did not ask the target to cancel within ${String(callerWaitMs(context))} ms of the declined elicitation; the <cancel-accepted/> path was not reached (${describeEnd(watched.end())})`,
        );
      }
      const openMs = context.timeouts.replySeconds * 1000;
      context.note(`<cancel-accepted/> sent; the task stays cancelling for ${String(openMs)} ms`);
      const early = await endWithin(watched.ended, openMs);
      if (early !== undefined) {
        const cancelled = /cancel/i.test(JSON.stringify(early));
        throw new RequirementViolation(
          cancelled ? 'mcp-mapping.cancel-accepted-not-cancellation' : 'mcp-mapping.result-after-settlement',
          'the call still open: <cancel-accepted/> is advisory and the task has not settled',
          describeEnd(early),
          cancelled
            ? 'mcp-mapping.cancel-accepted-not-cancellation: the bridge reported cancellation on <cancel-accepted/> alone'
            : 'mcp-mapping.result-after-settlement: the bridge answered the call before the task settled',
        );
      }
      context.held(
        'mcp-mapping.cancel-accepted-not-cancellation',
        'no cancellation reported while cancelling',
      );
      const result = { content: [{ type: 'text', text: 'completed despite the cancellation' }] };
      await session.target.sendEvent(task, { type: 'completed', payload: { result } });
      const end = await watched.ended;
      if (end.kind === 'error' && /cancel/i.test(end.message)) {
        throw new RequirementViolation(
          'mcp-mapping.cancel-accepted-not-cancellation',
          `the completed result ${JSON.stringify(result)} (the task completed, it was never cancelled)`,
          describeEnd(end),
        );
      }
      context.held('mcp-mapping.result-after-settlement', `after completion: ${describeEnd(end)}`);
    },
  },
  {
    id: 'mcp-mapping.bridge-request-id-not-json-rpc-id',
    requirements: ['mcp-mapping.no-json-rpc-task-id'],
    assessments: ['mcp-bridge'],
    interfaces: mcpOnly(
      'it compares the request ID with the JSON-RPC request ID, which exists only over MCP',
    ),
    level: 'MUST',
    statement:
      "The request ID the bridge invokes with is not the tools/call's JSON-RPC ID, and where the bridge names a task it names the XMPP task ID.",
    async run(context) {
      const { world, jid, tool } = oneToolWorld(context, 'identity', 'fail.now');
      const session = await context.startSession(world);
      const { name } = await listedTool(session, jid, tool);
      const rpcIds = recordCallIds(session.caller.driver.client.transport);
      // The invoke is judged before its admission, on its raw attribute: a JSON-RPC ID is too
      // short for the request-ID grammar, so the target refuses it and leaves no task to look at.
      const invokes = session.target.stream({ kind: 'invoke', from: session.account.jid });
      const watched = watchCall(
        session.caller.driver.call(name, {}, { timeoutMs: 10 * callerWaitMs(context) }),
      );
      const invoke = await invokes.next(callerWaitMs(context));
      const requestId = invoke.element.getChild('invoke', NS_AGENT_TASK)?.attrs['request-id'] as unknown;
      const [rpcId] = rpcIds;
      if (rpcId === undefined)
        throw new CannotTell('the tools/call request was not seen on the MCP transport');
      if (requestId === rpcId) {
        throw new RequirementViolation(
          'mcp-mapping.no-json-rpc-task-id',
          `a request ID of the bridge's own, not the JSON-RPC ID ${rpcId}`,
          invoke.xml,
        );
      }
      const task = session.target.taskOf(invoke);
      await session.target.sendEvent(task, {
        type: 'failed',
        payload: {
          error: { code: 'urn:example:weather:no-data', message: 'it failed on purpose', retryable: false },
        },
      });
      const end = await watched.ended;
      const named = /"taskId":"([^"]*)"/.exec(JSON.stringify(end))?.[1];
      if (named !== undefined && named !== task.taskId) {
        throw new RequirementViolation(
          'mcp-mapping.no-json-rpc-task-id',
          `the XMPP task ID ${task.taskId} wherever a task ID is named`,
          describeEnd(end),
        );
      }
      context.held(
        'mcp-mapping.no-json-rpc-task-id',
        `request-id ${invokeOf(invoke).requestId} beside JSON-RPC ID ${rpcId}${named === undefined ? '' : `; the error names task ${named}`}`,
      );
    },
  },
  {
    id: 'mcp-mapping.bridge-reports-semantic-loss',
    requirements: ['mcp-mapping.report-semantic-loss'],
    assessments: ['mcp-bridge'],
    interfaces: mcpOnly("it reads an MCP bridge's semantic-loss table"),
    level: 'MUST',
    statement:
      'The bridge reports its semantic losses where an MCP client can read them (a resource holding a loss table), the cancellation mapping among them.',
    async run(context) {
      const { world } = oneToolWorld(context, 'loss', 'any.tool');
      const session = await context.startSession(world);
      const report = await lossReport(session);
      if (report === undefined) {
        throw new CannotTell(
          'no MCP resource of the bridge holds a JSON loss table ({"losses": [...]}); a report elsewhere (its documentation) cannot be read by the suite',
        );
      }
      context.note(`loss table at ${report.uri}: ${report.losses.map((loss) => loss.id).join(', ')}`);
      if (report.losses.length === 0 || !report.losses.some((loss) => /cancel/i.test(JSON.stringify(loss)))) {
        throw new RequirementViolation(
          'mcp-mapping.report-semantic-loss',
          'a loss table that names the cancellation mapping (XMPP <cancel-accepted/> is advisory, MCP cancellation terminal)',
          JSON.stringify(report.document),
        );
      }
      context.held(
        'mcp-mapping.report-semantic-loss',
        `${String(report.losses.length)} losses reported at ${report.uri}`,
      );
    },
  },
  {
    id: 'mcp-mapping.bridge-claims-no-mcp-tasks-with-loss',
    requirements: ['mcp-mapping.no-false-tasks-claim', 'use-case-mcp-bridge.no-false-tasks-claim'],
    assessments: ['mcp-bridge'],
    interfaces: mcpOnly('it reads the MCP capabilities a bridge claims (MCP Tasks)'),
    level: 'MUST',
    statement:
      'A bridge whose loss table lists task-semantics losses declares no MCP Tasks support (no `tasks` capability, no transparent-tasks claim in its report).',
    async run(context) {
      const { world } = oneToolWorld(context, 'tasks', 'any.tool');
      const session = await context.startSession(world);
      const claim = tasksClaim(session, await lossReport(session));
      if (claim.claims.length === 0) {
        context.held('mcp-mapping.no-false-tasks-claim', 'no MCP Tasks support declared');
        context.held('use-case-mcp-bridge.no-false-tasks-claim', 'no MCP Tasks support declared');
        return;
      }
      if (claim.taskLosses.length === 0) {
        throw new CannotTell(
          `the bridge claims MCP Tasks (${claim.claims.join('; ')}) and reports no task-semantics loss; whether a loss remains visible cannot be read`,
        );
      }
      throw new RequirementViolation(
        'mcp-mapping.no-false-tasks-claim',
        'no MCP Tasks claim while task-semantics losses remain',
        `${claim.claims.join('; ')}, with losses ${claim.taskLosses.join(', ')}`,
        'mcp-mapping.no-false-tasks-claim: the bridge claims MCP Tasks support although its own loss table lists task-semantics losses',
      );
    },
  },
  normalToolObjectsCase,
]);

/** The JSON-RPC IDs of the tools/call requests sent from now on, as strings. */
function recordCallIds(transport: { send: (...args: never[]) => Promise<void> } | undefined): string[] {
  const ids: string[] = [];
  if (transport === undefined) return ids;
  const send = transport.send.bind(transport) as (message: unknown, options?: unknown) => Promise<void>;
  (transport as unknown as { send: typeof send }).send = async (message, options) => {
    const request = objectMember(message as never);
    const id = request?.['id'];
    if (request?.['method'] === 'tools/call' && (typeof id === 'string' || typeof id === 'number'))
      ids.push(String(id));
    await send(message, options);
  };
  return ids;
}
