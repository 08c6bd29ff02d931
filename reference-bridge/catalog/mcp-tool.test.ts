// #mcp-mapping, #namespaces, #tool-info: MCP names and tool objects.
import { describe, expect, it } from 'vitest';
import { DECLARATIONS_META_KEY, TARGET_META_KEY, mcpToolNames, mcpToolOf } from './mcp-tool.ts';

const remote = (tool: string, jid = 'a@agents.example') => ({ jid, version: '1', tool });

describe('mcpToolNames', () => {
  it('keeps a name that fits MCP and is unique', () => {
    expect(mcpToolNames([remote('forecast.get'), remote('script_2')])).toEqual(['forecast.get', 'script_2']);
  });

  it('renames names that collide across endpoints, stably and distinctly', () => {
    const names = mcpToolNames([remote('script', 'a@agents.example'), remote('script', 'b@agents.example')]);
    expect(names[0]).toMatch(/^script-[0-9a-f]{8}$/);
    expect(names[1]).toMatch(/^script-[0-9a-f]{8}$/);
    expect(names[0]).not.toBe(names[1]);
    expect(
      mcpToolNames([remote('script', 'a@agents.example'), remote('script', 'b@agents.example')]),
    ).toEqual(names);
  });

  it('replaces characters MCP does not allow and bounds the length', () => {
    const [spaced] = mcpToolNames([remote('météo du jour')]);
    expect(spaced).toMatch(/^m_t_o_du_jour-[0-9a-f]{8}$/);
    const [long] = mcpToolNames([remote('x'.repeat(300))]);
    expect(long?.length).toBe(128);
  });
});

describe('mcpToolOf', () => {
  it('carries only what the manifest has, plus the target and declarations in _meta', () => {
    const tool = mcpToolOf(
      't',
      remote('t'),
      { name: 't', inputSchema: { type: 'object' }, 'urn:xmpp:agent-api:0': { supportsProgress: true } },
      {
        inputSchema: { type: 'object' },
      },
    );
    expect(tool).toEqual({
      name: 't',
      inputSchema: { type: 'object' },
      _meta: { [DECLARATIONS_META_KEY]: { supportsProgress: true }, [TARGET_META_KEY]: remote('t') },
    });
  });

  it("keeps the manifest's own _meta members", () => {
    const tool = mcpToolOf(
      't',
      remote('t'),
      { name: 't', inputSchema: {}, _meta: { 'org.example/x': 1 }, annotations: { readOnlyHint: true } },
      { inputSchema: {} },
    );
    expect(tool['_meta']).toMatchObject({ 'org.example/x': 1 });
    expect(tool['annotations']).toEqual({ readOnlyHint: true });
  });
});
