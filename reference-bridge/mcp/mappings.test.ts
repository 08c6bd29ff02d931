// #mcp-mapping, #events, #interactive-input: the pure MCP mappings: cursors of the bridge's own,
// progress notifications, elicitation plans, and a call's end as a result or an error.
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { TASK_BRIDGE } from '../../protocol/mcp-task-bridge.ts';
import {
  LOSS_RESOURCE_URI,
  SEMANTIC_LOSS,
  lossTableDocument,
  tasksClaimBlockers,
} from '../loss/semantic-loss.ts';
import { INPUT_META_KEY, JSON_TEXT_FIELD, elicitationPlan, inputOf } from './elicitation-mapping.ts';
import { PROGRESS_META_KEY, progressNotificationParams } from './progress-mapping.ts';
import { callAnswer } from './result-mapping.ts';
import { InvalidCursor, toolPage } from './tool-pages.ts';

describe('toolPage (MCP cursors, not RSM)', () => {
  const items = ['a', 'b', 'c', 'd', 'e'];

  it('pages with opaque cursors to the end', () => {
    const first = toolPage(items, undefined, 2);
    expect(first.items).toEqual(['a', 'b']);
    const second = toolPage(items, first.nextCursor, 2);
    const third = toolPage(items, second.nextCursor, 2);
    expect([...second.items, ...third.items]).toEqual(['c', 'd', 'e']);
    expect(third.nextCursor).toBeUndefined();
  });

  it.each([
    'urn:xmpp:agent-tool:0#1.0.0#c2NyaXB0',
    'garbage',
    Buffer.from('mcp-tools:99').toString('base64url'),
  ])('refuses a cursor it did not hand out: %s', (cursor) => {
    expect(() => toolPage(items, cursor, 2)).toThrow(InvalidCursor);
  });
});

describe('progressNotificationParams', () => {
  it('uses the revision as progress and keeps the exact payload in _meta', () => {
    expect(progressNotificationParams('tok', { percent: 50, stage: 'fetch' }, 3, 'task-x')).toEqual({
      progressToken: 'tok',
      progress: 3,
      message: '50% fetch',
      _meta: {
        [PROGRESS_META_KEY]: { taskId: 'task-x', revision: 3, payload: { percent: 50, stage: 'fetch' } },
      },
    });
  });
});

describe('elicitationPlan', () => {
  const request = {
    requestId: 'input-aaaaaaaaaaaaaaaaaaaaaa',
    question: 'Unit?',
    createdAt: '2026-07-27T19:14:04Z',
  };

  it('sends a schema MCP carries exactly as is', () => {
    const inputSchema = {
      type: 'object',
      properties: { unit: { type: 'string', enum: ['C', 'F'] } },
      required: ['unit'],
    };
    const plan = elicitationPlan({ ...request, inputSchema }, 'task-x', false);
    expect(plan.wrapped).toBe(false);
    expect(plan.params['requestedSchema']).toEqual(inputSchema);
    expect(plan.params['_meta']).toMatchObject({ [INPUT_META_KEY]: { taskId: 'task-x', inputSchema } });
    expect(inputOf(plan, { unit: 'C' })).toEqual({ unit: 'C' });
  });

  it('asks for a JSON text when MCP would drop part of the schema', () => {
    const inputSchema = { type: 'object', properties: { when: { type: 'string', pattern: '^[0-9]+$' } } };
    const plan = elicitationPlan({ ...request, inputSchema }, 'task-x', true);
    expect(plan.wrapped).toBe(true);
    expect(plan.params['message']).toMatch(/refused/);
    expect(inputOf(plan, { [JSON_TEXT_FIELD]: '{"when":"12"}' })).toEqual({ when: '12' });
    expect(() => inputOf(plan, {})).toThrow();
  });
});

describe('callAnswer', () => {
  it('returns a completed result object exactly, isError=true included', () => {
    const result = { content: [{ type: 'text', text: 'x' }], isError: true };
    expect(
      callAnswer({
        kind: 'settled',
        taskId: 't',
        cancelRequested: false,
        outcome: { state: 'completed', payload: { result, summary: 's' } },
      }),
    ).toEqual(result);
  });

  it('throws a failure as a JSON-RPC error carrying it, never a result', () => {
    const error = { code: 'org.example:x', message: 'Broken.', retryable: true };
    const answer = () =>
      callAnswer({
        kind: 'settled',
        taskId: 't',
        cancelRequested: false,
        outcome: { state: 'failed', payload: { error } },
      });
    expect(answer).toThrow(McpError);
    try {
      answer();
    } catch (thrown) {
      expect((thrown as McpError).data).toMatchObject({ [TASK_BRIDGE]: { failed: error } });
    }
  });

  it('reports a local timeout without claiming a remote state', () => {
    try {
      callAnswer({ kind: 'timed-out', requestId: 'r', taskId: 't', lastKnownState: 'running' });
      expect.unreachable();
    } catch (thrown) {
      expect((thrown as McpError).message).toMatch(/stopped waiting.*running when last known.*unknown/);
      expect((thrown as McpError).data).toMatchObject({ local: true, lastKnownState: 'running' });
    }
  });
});

describe('the semantic-loss table', () => {
  it('blocks any claim of transparent MCP Tasks while task rows remain', () => {
    expect(tasksClaimBlockers().length).toBeGreaterThan(0);
    expect(lossTableDocument()).toMatchObject({ transparentMcpTasks: false });
    expect(new Set(SEMANTIC_LOSS.map((entry) => entry.id)).size).toBe(SEMANTIC_LOSS.length);
    expect(LOSS_RESOURCE_URI).toMatch(/^agentconf:/);
  });
});
