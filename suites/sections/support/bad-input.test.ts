// The bad-input generators' oracles, checked at test time: every generated JSON text is refused
// by the project's strict parser for the reason its conditions say (I-JSON → not-acceptable,
// syntax → bad-request or not-acceptable, limits → resource-constraint) or parses where it may be
// admitted; every element mutant breaks the normative XSD (apart from the invalid JIDs, which
// the schema types as plain strings) while its base is valid.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonRejection } from '../../../protocol/json/json-rejection.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import {
  buildActivate,
  buildCancel,
  buildInvoke,
  buildManifestRequest,
  buildProvideInput,
  buildRegister,
  buildRegistrationStatus,
  buildRemoveVersion,
  buildSchemaRequest,
  buildTaskStateRequest,
  serialize,
} from '../../../protocol/stanza/index.ts';
import { validateElements } from '../../../protocol/xsd/validator.ts';
import { badJsonArbitrary, elementMutants, xsdInvalidOnly, type BadElement } from './bad-input.ts';

const HASH = { algo: 'sha-256', value: 'K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=' };
const ID = 'req-91a6d2f49c514f44a2d223f0f97bd9fe';
const LIMITS = { maxDepth: 64, maxStringLength: 65_536 };

describe('bad JSON', () => {
  const slot = {
    wrap: (inner: string) => `{"ledgerKey":"k","steps":[{"complete":{"structuredContent":${inner}}}]}`,
    ijsonRequirement: 'json-encoding.ijson-rejection',
    syntaxRequirement: 'json-encoding.single-json-value',
    ...LIMITS,
    edgeNumbers: true,
  } as const;

  it('is refused by the strict parser for the reason its conditions name', () => {
    const samples = fc.sample(badJsonArbitrary(slot, 'agentconfcanary0'), { seed: 7, numRuns: 400 });
    const seen = new Set<string>();
    for (const sample of samples) {
      seen.add(sample.flaw);
      let classification: string | undefined;
      try {
        parseStrictJson(sample.text, LIMITS);
      } catch (error) {
        if (!(error instanceof JsonRejection)) throw error;
        classification = error.classification;
      }
      const expected = sample.conditions.includes('not-acceptable')
        ? sample.conditions.includes('bad-request')
          ? 'syntax'
          : 'ijson'
        : 'limit';
      if (sample.mustAccept === true) expect(classification, sample.what).toBeUndefined();
      else if (sample.mayAccept !== true) expect(classification, sample.what).toBe(expected);
    }
    expect([...seen].toSorted()).toEqual(
      [
        'depth',
        'duplicate-member',
        'edge-number',
        'lone-surrogate',
        'overflow',
        'string-length',
        'syntax',
      ].toSorted(),
    );
  });

  it('carries only XML-legal characters (it travels in a stanza)', () => {
    for (const sample of fc.sample(badJsonArbitrary(slot, 'c'), { seed: 3, numRuns: 300 })) {
      expect(serialize(buildRegister({ manifestJson: sample.text })), sample.what).toContain('register');
    }
  });
});

describe('XSD-guided element mutants', () => {
  const bases = [
    buildInvoke({
      requestId: ID,
      tool: 'script',
      apiVersion: '1.0.0',
      manifestHash: HASH,
      argumentsJson: '{}',
    }),
    buildProvideInput({ taskId: ID, requestId: ID, expectedRevision: 1, inputJson: '{}' }),
    buildCancel({ taskId: ID, expectedRevision: 1, reason: 'r' }),
    buildTaskStateRequest({ taskId: ID }),
    buildSchemaRequest({ tool: 'script', version: '1.0.0', direction: 'input', manifestHash: HASH }),
    buildManifestRequest({ version: '1.0.0' }),
    buildRegister({ manifestJson: '{}' }),
    buildActivate({ jid: 'a@agents.example', version: '1.0.0', hash: HASH }),
    buildRegistrationStatus({ jid: 'a@agents.example' }),
    buildRemoveVersion({ jid: 'a@agents.example', version: '1.0.0' }),
  ];

  it('starts from valid requests', async () => {
    const results = await validateElements(bases.map((base) => serialize(base)));
    expect(results.every((result) => result.valid)).toBe(true);
  });

  it('breaks the XSD in every mutant it keeps, and rarely needs to drop one', async () => {
    const mutants: BadElement[] = bases.flatMap((base) =>
      fc.sample(
        elementMutants(base, { conditions: ['bad-request'], requirement: 'security.authorize-and-validate' }),
        {
          seed: 11,
          numRuns: 30,
        },
      ),
    );
    const { kept, dropped } = await xsdInvalidOnly(mutants);
    expect(dropped, 'mutants the schema still accepts').toBeLessThan(mutants.length / 10);
    const results = await validateElements(kept.map((mutant) => serialize(mutant.element)));
    kept.forEach((mutant, index) => {
      if (mutant.flaw !== 'invalid-jid') expect(results[index]?.valid, mutant.what).toBe(false);
    });
    expect(new Set(kept.map((mutant) => mutant.flaw))).toEqual(
      new Set([
        'missing-attribute',
        'invalid-attribute',
        'fixed-attribute',
        'missing-child',
        'invalid-text',
        'invalid-jid',
      ]),
    );
  });
});
