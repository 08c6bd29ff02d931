import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../json/json-value.ts';
import { compileToolSchema } from './compile.ts';
import { DIALECT_2020_12 } from './dialect.ts';
import { hasDialect } from './evaluator-module.ts';
import { registerExternalDocuments } from './registry.ts';
import { expectRejected, rejectionOf } from './test-support/expect-rejection.ts';

const input = { direction: 'input' } as const;
const output = { direction: 'output' } as const;

/** An input schema root around the given members. */
function tool(members: JsonObject): JsonObject {
  return { type: 'object', ...members };
}

describe('not-an-object', () => {
  it.each([true, false, null, 'object', 3, []])(
    'refuses the non-object schema %j in both directions',
    async (schema) => {
      await expectRejected(schema, 'not-an-object', '', input);
      await expectRejected(schema, 'not-an-object', '', output);
    },
  );
});

describe('object-root (input schemas)', () => {
  it('refuses a root that does not declare a type', async () => {
    await expectRejected({ properties: { a: { type: 'string' } } }, 'object-root', '');
  });

  it.each([['string'], [['object', 'null']], [[]], [['object', 'object', 'array']]])(
    'refuses root type %j, which is not "object" alone',
    async (type) => {
      await expectRejected({ type }, 'object-root', '/type');
    },
  );

  it('does not follow a root $ref: the root itself must say "object"', async () => {
    await expectRejected({ $ref: '#/$defs/o', $defs: { o: { type: 'object' } } }, 'object-root', '');
  });

  it('accepts type "object" and ["object"]', async () => {
    await expect(compileToolSchema({ type: 'object' }, input)).resolves.toBeDefined();
    await expect(compileToolSchema({ type: ['object'] }, input)).resolves.toBeDefined();
  });

  it('does not apply to output schemas', async () => {
    const compiled = await compileToolSchema({ type: 'string' }, output);
    expect(compiled.validate('x').valid).toBe(true);
    expect(compiled.validate(1).valid).toBe(false);
  });
});

describe('unsupported-dialect', () => {
  it('refuses another dialect at the root', async () => {
    await expectRejected(
      tool({ $schema: 'http://json-schema.org/draft-07/schema#' }),
      'unsupported-dialect',
      '/$schema',
    );
  });

  it('refuses another dialect on an embedded resource', async () => {
    const schema = tool({
      $defs: { a: { $id: 'https://example.com/a', $schema: 'https://json-schema.org/draft/2019-09/schema' } },
    });
    await expectRejected(schema, 'unsupported-dialect', '/$defs/a/$schema');
  });

  it('accepts the 2020-12 URI, with or without the empty fragment, and its omission', async () => {
    for (const $schema of [DIALECT_2020_12, `${DIALECT_2020_12}#`]) {
      await expect(compileToolSchema(tool({ $schema }), input)).resolves.toBeDefined();
    }
    await expect(compileToolSchema(tool({}), input)).resolves.toBeDefined();
  });
});

describe('unsupported-vocabulary', () => {
  it('refuses a required vocabulary it does not support', async () => {
    const schema = tool({ $vocabulary: { 'https://example.com/vocab/units': true } });
    await expectRejected(
      schema,
      'unsupported-vocabulary',
      '/$vocabulary/https:~1~1example.com~1vocab~1units',
    );
  });

  it('refuses requiring format assertion, which version 0 leaves annotation-only', async () => {
    const schema = tool({
      $vocabulary: { 'https://json-schema.org/draft/2020-12/vocab/format-assertion': true },
    });
    await expectRejected(
      schema,
      'unsupported-vocabulary',
      '/$vocabulary/https:~1~1json-schema.org~1draft~12020-12~1vocab~1format-assertion',
    );
  });

  it('ignores an unknown optional vocabulary and accepts required supported ones', async () => {
    const schema = tool({
      $id: 'https://example.com/with-vocabulary',
      $vocabulary: {
        'https://json-schema.org/draft/2020-12/vocab/core': true,
        'https://json-schema.org/draft/2020-12/vocab/validation': true,
        'https://example.com/vocab/units': false,
      },
      properties: { a: { type: 'string' } },
    });
    const compiled = await compileToolSchema(schema, input);
    expect(compiled.validate({ a: 1 }).valid).toBe(false);
    // The evaluator never saw $vocabulary, so no process-wide dialect was left behind.
    expect(hasDialect('https://example.com/with-vocabulary')).toBe(false);
  });

  it('refuses $vocabulary inside a subschema as invalid', async () => {
    const schema = tool({
      properties: { a: { $vocabulary: { 'https://json-schema.org/draft/2020-12/vocab/core': true } } },
    });
    await expectRejected(schema, 'invalid-schema', '/properties/a/$vocabulary');
  });
});

describe('unsupported-keyword', () => {
  it.each([
    ['dependencies', { a: ['b'] }],
    ['additionalItems', false],
    ['$recursiveRef', '#'],
    ['$recursiveAnchor', true],
    ['divisibleBy', 2],
    ['disallow', 'string'],
    ['extends', { type: 'string' }],
    ['requires', 'a'],
    ['nullable', true],
    ['propertyDependencies', {}],
    ['requireAllExcept', []],
    ['itemPattern', []],
    ['conditional', []],
  ])('refuses the foreign assertion keyword %s wherever a subschema holds it', async (keyword, value) => {
    await expectRejected(
      tool({ [keyword]: value }),
      'unsupported-keyword',
      `/${keyword.replaceAll('/', '~1')}`,
    );
    const nested = tool({ properties: { a: { allOf: [{ [keyword]: value }] } } });
    await expectRejected(nested, 'unsupported-keyword', `/properties/a/allOf/0/${keyword}`);
  });

  it.each([
    ['items', [{ type: 'string' }]],
    ['required', true],
    ['exclusiveMinimum', true],
    ['exclusiveMaximum', false],
    ['type', ['string', { type: 'integer' }]],
  ])('refuses the legacy form of %s', async (keyword, value) => {
    await expectRejected(
      tool({ $defs: { d: { [keyword]: value } } }),
      'unsupported-keyword',
      `/$defs/d/${keyword}`,
    );
  });

  it('walks the legacy definitions container like $defs', async () => {
    await expectRejected(
      tool({ definitions: { d: { additionalItems: false } } }),
      'unsupported-keyword',
      '/definitions/d/additionalItems',
    );
  });

  it('keeps unknown annotation keywords, whose values are data and not walked', async () => {
    const schema = tool({
      'x-ui': { widget: 'textarea' },
      displayHints: { dependencies: 'not a keyword here', pattern: '(' },
      properties: { a: { type: 'string', 'x-order': 1, examples: [{ dependencies: 1 }] } },
      const: { items: [1] },
    });
    await expect(compileToolSchema(schema, input)).resolves.toBeDefined();
  });

  it('does not mistake property names for keywords', async () => {
    const schema = tool({ properties: { dependencies: { type: 'string' }, nullable: { type: 'boolean' } } });
    const compiled = await compileToolSchema(schema, input);
    expect(compiled.validate({ dependencies: 'x', nullable: true }).valid).toBe(true);
  });
});

describe('invalid-regex', () => {
  it('refuses a pattern that is not a regular expression', async () => {
    await expectRejected(
      tool({ properties: { a: { pattern: '(' } } }),
      'invalid-regex',
      '/properties/a/pattern',
    );
  });

  it('refuses a patternProperties key that is not a regular expression', async () => {
    await expectRejected(
      tool({ patternProperties: { 'a/[': {} } }),
      'invalid-regex',
      '/patternProperties/a~1[',
    );
  });

  it('uses Unicode (u flag) semantics: a bad identity escape is refused, \\p{...} works', async () => {
    await expectRejected(
      tool({ properties: { a: { pattern: '\\a' } } }),
      'invalid-regex',
      '/properties/a/pattern',
    );
    const compiled = await compileToolSchema(tool({ properties: { a: { pattern: '^\\p{Lu}.$' } } }), input);
    expect(compiled.validate({ a: 'É😀' }).valid).toBe(true);
    expect(compiled.validate({ a: 'é😀' }).valid).toBe(false);
  });
});

describe('invalid-schema', () => {
  it('refuses a schema the 2020-12 meta-schema rejects, naming the location', async () => {
    await expectRejected(
      tool({ properties: { a: { type: 'strin' } } }),
      'invalid-schema',
      '/properties/a/type',
    );
    await expectRejected(
      tool({ properties: { a: { minLength: -1 } } }),
      'invalid-schema',
      '/properties/a/minLength',
    );
    await expectRejected(tool({ required: 'a' }), 'invalid-schema', '/required');
  });

  it('refuses two resources with one identifier', async () => {
    const schema = tool({
      $defs: { a: { $id: 'https://example.com/x' }, b: { $id: 'https://example.com/x' } },
    });
    await expectRejected(schema, 'invalid-schema', '/$defs/b/$id');
  });

  it('refuses a schema with no RFC 8785 canonical form (a lone surrogate)', async () => {
    await expectRejected(tool({ description: '\uD800' }), 'invalid-schema', '');
  });

  it('reports without quoting the schema', async () => {
    const rejection = await rejectionOf(tool({ properties: { a: { type: 'SECRET-VALUE' } } }));
    expect(rejection.message).not.toContain('SECRET-VALUE');
  });
});

describe('references', () => {
  it('refuses a reference to another document', async () => {
    await expectRejected(tool({ $ref: 'https://example.com/other.json' }), 'external-reference', '/$ref');
    await expectRejected(
      tool({ properties: { a: { $ref: 'other.json' } } }),
      'external-reference',
      '/properties/a/$ref',
    );
    await expectRejected(
      tool({ $dynamicRef: 'https://example.com/x#items' }),
      'external-reference',
      '/$dynamicRef',
    );
  });

  it('refuses the meta-schema too: it is another document, even though the evaluator holds it', async () => {
    await expectRejected(
      tool({ properties: { s: { $ref: DIALECT_2020_12 } } }),
      'external-reference',
      '/properties/s/$ref',
    );
  });

  it('allows another document only through an explicit allowlist of in-memory documents', async () => {
    const uri = 'https://example.com/shared/positive.json';
    const documents = await registerExternalDocuments(
      [[uri, { type: 'integer', minimum: 1 }]],
      DIALECT_2020_12,
    );
    try {
      const compiled = await compileToolSchema(tool({ properties: { n: { $ref: uri } } }), {
        direction: 'input',
        externalDocuments: documents,
      });
      expect(compiled.validate({ n: 2 }).valid).toBe(true);
      expect(compiled.validate({ n: 0 }).valid).toBe(false);
      await expectRejected(
        tool({ properties: { n: { $ref: uri } } }),
        'external-reference',
        '/properties/n/$ref',
      );
    } finally {
      await documents.release();
    }
  });

  it('refuses references to a missing anchor, a missing subschema, or data', async () => {
    await expectRejected(tool({ $ref: '#nowhere' }), 'unresolvable-reference', '/$ref');
    await expectRejected(tool({ $ref: '#/$defs/missing' }), 'unresolvable-reference', '/$ref');
    await expectRejected(
      tool({ const: { type: 'string' }, properties: { a: { $ref: '#/const' } } }),
      'unresolvable-reference',
      '/properties/a/$ref',
    );
    // Reaching into an unknown keyword would compile members no rule checked.
    await expectRejected(
      tool({ 'x-hidden': { dependencies: {} }, $ref: '#/x-hidden' }),
      'unresolvable-reference',
      '/$ref',
    );
  });

  it('resolves same-document $ref by pointer and by $anchor, and legacy definitions', async () => {
    const schema = tool({
      properties: {
        byPointer: { $ref: '#/$defs/positive' },
        byAnchor: { $ref: '#word' },
        legacy: { $ref: '#/definitions/flag' },
      },
      $defs: {
        positive: { type: 'integer', minimum: 1 },
        word: { $anchor: 'word', type: 'string', pattern: '^\\w+$' },
      },
      definitions: { flag: { type: 'boolean' } },
    });
    const compiled = await compileToolSchema(schema, input);
    expect(compiled.validate({ byPointer: 3, byAnchor: 'ok', legacy: true }).valid).toBe(true);
    expect(compiled.validate({ byPointer: 0 }).valid).toBe(false);
    expect(compiled.validate({ byAnchor: 'two words' }).valid).toBe(false);
    expect(compiled.validate({ legacy: 'yes' }).valid).toBe(false);
  });

  it('resolves references into embedded resources by their $id', async () => {
    const schema = tool({
      $id: 'https://example.com/tools/root.json',
      properties: {
        a: { $ref: 'parts/id.json' },
        b: { $ref: 'https://example.com/tools/parts/id.json#/$defs/digits' },
      },
      $defs: {
        part: {
          $id: 'parts/id.json',
          type: 'string',
          $defs: { digits: { type: 'string', pattern: '^[0-9]+$' } },
        },
      },
    });
    const compiled = await compileToolSchema(schema, input);
    expect(compiled.validate({ a: 'x', b: '42' }).valid).toBe(true);
    expect(compiled.validate({ b: 'x' }).valid).toBe(false);
  });

  it('resolves $dynamicRef through the dynamic scope, not statically', async () => {
    // The list's items are "anything" on their own; the root's $dynamicAnchor narrows them to strings.
    const list = {
      $id: 'list',
      type: 'array',
      items: { $dynamicRef: '#items' },
      $defs: { items: { $dynamicAnchor: 'items' } },
    };
    const root = { $id: 'https://example.com/dynamic/root', properties: { tags: { $ref: 'list' } } };
    const narrowed = await compileToolSchema(
      tool({ ...root, $defs: { list, strings: { $dynamicAnchor: 'items', type: 'string' } } }),
      input,
    );
    expect(narrowed.validate({ tags: ['a', 'b'] }).valid).toBe(true);
    expect(narrowed.validate({ tags: ['a', 1] }).valid).toBe(false);
    const open = await compileToolSchema(tool({ ...root, $defs: { list } }), input);
    expect(open.validate({ tags: ['a', 1] }).valid).toBe(true);
  });
});

describe('reserved-identifier', () => {
  it('refuses identifiers the evaluator already holds, at the root or embedded', async () => {
    await expectRejected(tool({ $id: DIALECT_2020_12 }), 'reserved-identifier', '/$id');
    const embedded = tool({ $defs: { core: { $id: 'https://json-schema.org/draft/2020-12/meta/core' } } });
    await expectRejected(embedded, 'reserved-identifier', '/$defs/core/$id');
  });
});

describe('schema-too-complex', () => {
  it('applies the configured limits', async () => {
    const deep = tool({ properties: { a: { properties: { b: { properties: { c: {} } } } } } });
    await expectRejected(deep, 'schema-too-complex', '/properties/a/properties/b/properties/c', {
      direction: 'input',
      limits: { maxDepth: 2 },
    });
    await expectRejected(tool({ allOf: [{}, {}, {}] }), 'schema-too-complex', '/allOf/2', {
      direction: 'input',
      limits: { maxSubschemas: 3 },
    });
    await expectRejected(
      tool({ properties: { a: { pattern: 'a'.repeat(20) } } }),
      'schema-too-complex',
      '/properties/a/pattern',
      {
        direction: 'input',
        limits: { maxPatternLength: 10 },
      },
    );
  });

  it('walks hostile nesting without exhausting the stack', async () => {
    let schema: JsonObject = {};
    for (let i = 0; i < 20_000; i++) schema = { not: schema };
    const rejection = await rejectionOf(tool({ properties: { a: schema } }));
    expect(rejection.rule).toBe('schema-too-complex');
    expect(rejection.path.startsWith('/properties/a/not/not/')).toBe(true);
  });
});

describe('format', () => {
  it('is annotation-only', async () => {
    const compiled = await compileToolSchema({ format: 'email' }, output);
    expect(compiled.validate('not an email').valid).toBe(true);
    const dated = await compileToolSchema(
      tool({ properties: { when: { type: 'string', format: 'date-time' } } }),
      input,
    );
    expect(dated.validate({ when: 'yesterday' }).valid).toBe(true);
  });
});

describe('compiled form', () => {
  it('is the same for the same canonical schema, whatever its member order', async () => {
    const a = await compileToolSchema(
      { type: 'object', required: ['x'], properties: { x: { type: 'string' } } },
      input,
    );
    const b = await compileToolSchema(
      { properties: { x: { type: 'string' } }, required: ['x'], type: 'object' },
      input,
    );
    expect(b.serializedEvaluator).toBe(a.serializedEvaluator);
    expect(b.schemaHash).toEqual(a.schemaHash);
  });

  it('carries the #schemas schema hash of the canonical bytes', async () => {
    // The spec's own example schema and hash (#schemas).
    const schema = {
      additionalProperties: false,
      properties: { city: { type: 'string' } },
      required: ['city'],
      type: 'object',
    };
    const compiled = await compileToolSchema(schema, input);
    expect(compiled.schemaHash).toEqual({
      algo: 'sha-256',
      value: 'XxGP62PwgOW9NLxx8ysunvuijMhSd0y4j1SSRTAbt7c=',
    });
    expect(compiled.validate({ city: 'Paris' }).valid).toBe(true);
    expect(compiled.validate({ city: 'Paris', country: 'FR' }).valid).toBe(false);
  });
});

describe('one compilation per canonical hash (compile-memo.ts)', () => {
  it('gives the same compiled schema for the same canonical bytes, in any member order', async () => {
    const first = await compileToolSchema(tool({ properties: { a: { type: 'string' } } }), input);
    const again = await compileToolSchema({ properties: { a: { type: 'string' } }, type: 'object' }, input);
    expect(again).toBe(first);
  });

  it('compiles anew for a changed byte, another direction or other limits', async () => {
    const schema = tool({ properties: { a: { type: 'string', maxLength: 3 } } });
    const first = await compileToolSchema(schema, input);
    const changed = await compileToolSchema(
      tool({ properties: { a: { type: 'string', maxLength: 4 } } }),
      input,
    );
    expect(changed).not.toBe(first);
    expect(changed.validate({ a: 'abcd' }).valid).toBe(true);
    expect(first.validate({ a: 'abcd' }).valid).toBe(false);
    expect(await compileToolSchema(schema, output)).not.toBe(first);
    expect(await compileToolSchema(schema, { ...input, limits: { maxDepth: 63 } })).not.toBe(first);
  });

  it('decides a reserved identifier again once the allowlist holds it', async () => {
    const uri = 'https://example.com/memo/reserved.json';
    const schema = tool({ $id: uri, properties: { a: { type: 'string' } } });
    await compileToolSchema(schema, input);
    const documents = await registerExternalDocuments([[uri, { type: 'string' }]], DIALECT_2020_12);
    try {
      expect(await rejectionOf(schema, input)).toMatchObject({ rule: 'reserved-identifier' });
    } finally {
      await documents.release();
    }
    await expect(compileToolSchema(schema, input)).resolves.toBeDefined();
  });
});
