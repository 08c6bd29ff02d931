/**
 * fixtures/manifests/conformance.json against the runtime: the manifest validates as the
 * gateway validates it, names exactly the runtime's tools, declares what the documentation
 * says each tool declares, and its schemas hold the results and failures the tools produce.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { validateEventPayload } from '../../../protocol/events/index.ts';
import { failureCodeViolation } from '../../../protocol/events/failure-code.ts';
import { canonicalJson } from '../../../protocol/json/canonical.ts';
import type { JsonValue } from '../../../protocol/json/json-value.ts';
import type { ValidManifest } from '../../../protocol/manifest/index.ts';
import { CONFORMANCE_TOOLS, COUNTER_TOOL, KEYWORDS_TOOL, SCRIPT_TOOLS } from './conformance-runtime.ts';
import {
  DEFAULT_EXPIRY_FAILURE,
  REFUSAL_FAILURE,
  UNKNOWN_TOOL_FAILURE,
  argumentFailure,
} from '../../../protocol/conformance-script/failures.ts';
import { ArgumentProblem } from '../../../protocol/conformance-script/argument-reader.ts';
import { counterResult } from '../../../protocol/conformance-script/ledger-tools.ts';
import { SCRIPT_LIMITS } from '../../../protocol/conformance-script/script.ts';
import {
  conformanceManifest,
  toolSchemas,
} from '../../../protocol/conformance-script/test-support/manifest.ts';

let manifest: ValidManifest;
beforeAll(async () => {
  manifest = await conformanceManifest();
});

function tool(name: string) {
  const found = manifest.manifest.tools.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
}

describe('fixtures/manifests/conformance.json', () => {
  it('is a valid manifest for conformance@agents.example', () => {
    expect(manifest.endpointJid).toBe('conformance@agents.example');
    expect(manifest.manifest.agent.version).toBe('1.0.0');
  });

  it('names exactly the tools the runtime implements', () => {
    expect(manifest.manifest.tools.map((t) => t.name).sort()).toEqual([...CONFORMANCE_TOOLS].sort());
  });

  it('gives every script tool the same inputSchema, with the parser limits', () => {
    const [first, ...rest] = SCRIPT_TOOLS.map((name) => canonicalJson(tool(name).inputSchema));
    for (const other of rest) expect(other).toBe(first);
    const schema = tool('script').inputSchema as Record<string, JsonValue>;
    const text = JSON.stringify(schema);
    expect(text).toContain(`"maxItems":${SCRIPT_LIMITS.maxSteps}`);
    expect(text.match(new RegExp(`"maximum":${SCRIPT_LIMITS.maxMs}`, 'g'))).toHaveLength(2);
    expect(text).toContain(`"maximum":${SCRIPT_LIMITS.maxReissue}`);
  });

  it('declares the task features, outputSchema and approval each tool is documented with', () => {
    const declared = (name: string) => {
      const t = tool(name);
      const ext = t['urn:xmpp:agent-api:0'] ?? {};
      return {
        progress: ext.supportsProgress === true,
        cancel: ext.supportsCancellation === true,
        input: ext.supportsInput === true,
        approval: ext.approvalRequired === true,
        output: t.outputSchema !== undefined,
      };
    };
    const all = { progress: true, cancel: true, input: true };
    const none = { progress: false, cancel: false, input: false };
    expect(declared('script')).toEqual({ ...all, approval: false, output: false });
    expect(declared('script.typed')).toEqual({ ...all, approval: false, output: true });
    expect(declared('script.plain')).toEqual({ ...none, approval: false, output: false });
    expect(declared('script.approval')).toEqual({ ...all, approval: true, output: false });
    expect(declared('script.bounded')).toEqual({ ...all, approval: false, output: false });
    expect(declared(COUNTER_TOOL)).toEqual({ ...none, approval: false, output: true });
    expect(declared(KEYWORDS_TOOL)).toEqual({ ...none, approval: false, output: false });
  });

  it("gives script.bounded a maximum timeout below the script tools' and any usual gateway limit", () => {
    const timeouts = (name: string) => {
      const ext = tool(name)['urn:xmpp:agent-api:0'] ?? {};
      return [ext.defaultTimeoutSeconds, ext.maximumTimeoutSeconds];
    };
    expect(timeouts('script')).toEqual([300, 3600]);
    expect(timeouts('script.bounded')).toEqual([60, 600]);
  });

  it("schema.keywords's inputSchema applies 2020-12: $ref with its siblings, $anchor, $dynamicRef, format as an annotation", () => {
    const { input } = toolSchemas(manifest, KEYWORDS_TOOL);
    const valid = (value: JsonValue) => input.validate(value).valid;
    const admitted: JsonValue[] = [
      {},
      {
        code: 'abcdefgh',
        country: 'FR',
        tree: { value: 1, children: [{ value: 2, children: [{ value: 3 }] }] },
      },
      { email: 'not an address', when: 'yesterday' },
    ];
    const refused: JsonValue[] = [
      { code: 'abcdefghi' }, // the sibling maxLength
      { code: 'ABC' }, // the $ref target's pattern
      { country: 'France' }, // through $anchor
      { tree: { value: 1, children: [{ value: 'two' }] } }, // through $dynamicRef
      { tree: { value: 1, children: [{ value: 2, extra: true }] } },
      { email: 1 },
      { other: 1 },
    ];
    for (const value of admitted) expect(valid(value), JSON.stringify(value)).toBe(true);
    for (const value of refused) expect(valid(value), JSON.stringify(value)).toBe(false);
  });

  it("script.typed's outputSchema holds a value or echoed inputs, and nothing else", () => {
    const output = toolSchemas(manifest, 'script.typed').output;
    if (output === undefined) expect.fail('script.typed has no outputSchema');
    const valid = (value: JsonValue) => output.validate(value).valid;
    expect(valid({ value: 'x' })).toBe(true);
    expect(valid({ inputs: [{ unit: 'C' }, 2] })).toBe(true);
    expect(valid({ inputs: [] })).toBe(true);
    for (const bad of [{}, { value: 1 }, { value: 'x', extra: 1 }, { inputs: {} }, 'x', null, []]) {
      expect(valid(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it("counter's outputSchema holds the counter's results", () => {
    const output = toolSchemas(manifest, COUNTER_TOOL).output;
    if (output === undefined) expect.fail('counter has no outputSchema');
    for (const count of [0, 1, 12345]) {
      expect(output.validate(counterResult('k', count).structuredContent ?? null).valid).toBe(true);
    }
  });
});

describe("the runtime's own failures", () => {
  it('are valid failed payloads with reserved or qualified codes (#errors)', () => {
    for (const failure of [
      REFUSAL_FAILURE,
      DEFAULT_EXPIRY_FAILURE,
      UNKNOWN_TOOL_FAILURE,
      argumentFailure(new ArgumentProblem(`/${'~0'.repeat(5000)}`, 'x')),
    ]) {
      expect(failureCodeViolation(failure.code)).toBeUndefined();
      expect(validateEventPayload('failed', { error: { ...failure } }).ok).toBe(true);
    }
  });
});
