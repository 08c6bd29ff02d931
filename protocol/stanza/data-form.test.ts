import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NS } from '../namespaces.ts';
import { compact } from './compact.ts';
import {
  FIELD_TYPES,
  buildDataForm,
  fieldOf,
  formBoolean,
  formBooleanText,
  formTypeOf,
  parseDataForm,
} from './data-form.ts';
import type { DataForm, FieldType, FormField, FormType } from './data-form.ts';
import {
  expectBuildError,
  expectParseError,
  expectRoundTrip,
  titled,
} from './test-support/stanza-test-kit.ts';
import { parseXml } from '../xml/parse-xml.ts';

const X = `{${NS.dataForms}}x`;
const FIELD = `{${NS.dataForms}}field`;
const formXml = (type: string, content: string): string =>
  `<x xmlns='${NS.dataForms}' type='${type}'>${content}</x>`;

const MULTI: readonly FieldType[] = ['hidden', 'jid-multi', 'list-multi', 'text-multi'];
const text = fc.string({
  unit: fc.constantFrom('a', 'B', ' ', '\n', '\r', '\t', '<', '&', 'é', '😀', ']'),
  maxLength: 10,
});
const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

function fieldArbitrary(formType: FormType, name: string | undefined): fc.Arbitrary<FormField> {
  return fc
    .record({
      type:
        name === undefined
          ? fc.constant<FieldType | undefined>('fixed')
          : optional(fc.constantFrom(...FIELD_TYPES)),
      label: optional(text),
      desc: optional(text),
      required: fc.boolean(),
      values: fc.array(text, { maxLength: 3 }),
      options: fc.array(
        fc.record({ label: optional(text), value: text }).map((option) => compact(option)),
        { maxLength: 3 },
      ),
    })
    .map(({ type, values, options, ...rest }) => {
      const effective = type ?? (formType === 'form' ? 'text-single' : undefined);
      const multi = effective === undefined || MULTI.includes(effective);
      const list = effective === undefined || effective === 'list-single' || effective === 'list-multi';
      return compact({
        var: name,
        type,
        ...rest,
        values: multi ? values : values.slice(0, 1),
        options: list ? options : [],
      });
    });
}

const varNames = fc.uniqueArray(
  fc.constantFrom('FORM_TYPE', 'nick', 'jid', 'first', 'x-gender', 'a&b', 'with space'),
  {
    maxLength: 4,
  },
);

function fieldsArbitrary(formType: FormType, allowFixed: boolean): fc.Arbitrary<FormField[]> {
  return fc
    .tuple(varNames, fc.nat({ max: allowFixed ? 2 : 0 }))
    .chain(([names, fixed]) =>
      fc.tuple(
        ...names.map((name) => fieldArbitrary(formType, name)),
        ...Array.from({ length: fixed }, () => fieldArbitrary(formType, undefined)),
      ),
    );
}

const dataForm: fc.Arbitrary<DataForm> = fc
  .constantFrom<FormType>('form', 'submit', 'cancel', 'result')
  .chain((type) => {
    const header = fc.record({ title: optional(text), instructions: fc.array(text, { maxLength: 2 }) });
    const plain = fc
      .tuple(header, fieldsArbitrary(type, true))
      .map(([head, fields]) => compact({ type, ...head, fields, items: [] }));
    if (type !== 'result') return plain;
    const table = fc
      .tuple(header, fc.uniqueArray(fc.constantFrom('jid', 'nick', 'name'), { minLength: 1, maxLength: 3 }))
      .chain(([head, columns]) => {
        const row = fc.tuple(...columns.map((column) => fieldArbitrary(type, column)));
        return fc
          .tuple(
            fc.tuple(...columns.map((column) => fieldArbitrary(type, column))),
            fc.array(row, { maxLength: 3 }),
          )
          .map(([reported, items]) => compact({ type, ...head, fields: [], reported, items }));
      });
    return fc.oneof(plain, table);
  });

describe('XEP-0004 data forms', () => {
  it('round-trip (property)', () => {
    fc.assert(fc.property(dataForm, (form) => void expectRoundTrip(buildDataForm, parseDataForm, form)));
  });

  it('parses the endpoint-info extension form, values kept as sent', () => {
    const form = parseDataForm(
      parseXml(
        formXml(
          'result',
          `<field type='hidden' var='FORM_TYPE'><value>urn:xmpp:agent-endpoint-info:0</value></field>
           <field var='description'><value>line one</value><value>line two</value></field>
           <field var='cold_start_supported'><value>1</value></field>`,
        ),
      ),
    );
    expect(formTypeOf(form)).toBe('urn:xmpp:agent-endpoint-info:0');
    expect(fieldOf(form.fields, 'description')?.values).toEqual(['line one', 'line two']);
    expect(fieldOf(form.fields, 'cold_start_supported')).toEqual({
      var: 'cold_start_supported',
      required: false,
      values: ['1'],
      options: [],
    });
  });

  it('applies the XEP-0068 FORM_TYPE rule: hidden in form and result forms, any type in submit forms', () => {
    const field = (type: string): string => `<field${type} var='FORM_TYPE'><value>urn:x</value></field>`;
    expect(formTypeOf(parseDataForm(parseXml(formXml('result', field('')))))).toBeUndefined();
    expect(
      formTypeOf(parseDataForm(parseXml(formXml('form', field(" type='text-single'"))))),
    ).toBeUndefined();
    expect(formTypeOf(parseDataForm(parseXml(formXml('submit', field('')))))).toBe('urn:x');
    expect(formTypeOf(parseDataForm(parseXml(formXml('result', field(" type='hidden'")))))).toBe('urn:x');
    expect(
      formTypeOf(
        parseDataForm(
          parseXml(
            formXml(
              'result',
              "<field type='hidden' var='FORM_TYPE'><value>a</value><value>b</value></field>",
            ),
          ),
        ),
      ),
    ).toBeUndefined();
    expect(formTypeOf(parseDataForm(parseXml(formXml('result', "<field var='x'/>"))))).toBeUndefined();
  });

  it('reads XEP-0004 booleans and writes 1/0', () => {
    expect([formBoolean('1'), formBoolean('true'), formBoolean('0'), formBoolean('false')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(formBoolean('yes')).toBeUndefined();
    expect(formBoolean(' 1')).toBeUndefined();
    expect([formBooleanText(true), formBooleanText(false)]).toEqual(['1', '0']);
  });

  it('skips elements of other namespaces inside forms and fields (e.g. XEP-0122 validation)', () => {
    const form = parseDataForm(
      parseXml(
        formXml(
          'form',
          "<field var='n' type='text-single'><validate xmlns='http://jabber.org/protocol/xdata-validate' datatype='xs:integer'/></field><ext xmlns='urn:x'/>",
        ),
      ),
    );
    expect(form.fields).toEqual([
      { var: 'n', type: 'text-single', required: false, values: [], options: [] },
    ]);
  });

  it.each(
    titled([
      [parseDataForm, formXml('bogus', ''), { rule: 'invalid-attribute', element: X, attribute: 'type' }],
      [
        parseDataForm,
        `<x xmlns='${NS.dataForms}'/>`,
        { rule: 'missing-attribute', element: X, attribute: 'type' },
      ],
      [
        parseDataForm,
        formXml('form', "<field type='text-single'/>"),
        { rule: 'missing-attribute', element: FIELD, attribute: 'var' },
      ],
      [
        parseDataForm,
        formXml('form', "<field var='a' type='number'/>"),
        { rule: 'invalid-attribute', element: FIELD, attribute: 'type' },
      ],
      [
        parseDataForm,
        formXml('submit', "<field var='a'/><field var='a'/>"),
        { rule: 'duplicate-field', element: X },
      ],
      [
        parseDataForm,
        formXml('form', "<field var='a'><value>1</value><value>2</value></field>"),
        { rule: 'field-type-mismatch', element: FIELD },
      ],
      [
        parseDataForm,
        formXml('result', "<field var='a' type='boolean'><value>1</value><value>0</value></field>"),
        { rule: 'field-type-mismatch', element: FIELD },
      ],
      [
        parseDataForm,
        formXml('form', "<field var='a' type='text-single'><option><value>x</value></option></field>"),
        { rule: 'field-type-mismatch', element: FIELD },
      ],
      [
        parseDataForm,
        formXml('form', "<field var='a' type='list-single'><option label='x'/></field>"),
        { rule: 'missing-child', element: `{${NS.dataForms}}option` },
      ],
      [
        parseDataForm,
        formXml('form', "<field var='a'><required>yes</required></field>"),
        { rule: 'unexpected-text', element: `{${NS.dataForms}}required` },
      ],
      [
        parseDataForm,
        formXml('form', "<field var='a'><desc>1</desc><desc>2</desc></field>"),
        { rule: 'duplicate-child', element: FIELD },
      ],
      [
        parseDataForm,
        formXml('form', '<title>a</title><title>b</title>'),
        { rule: 'duplicate-child', element: X },
      ],
      [
        parseDataForm,
        formXml('form', "<reported><field var='a'/></reported>"),
        { rule: 'unexpected-child', element: X },
      ],
      [
        parseDataForm,
        formXml('result', "<item><field var='a'/></item><reported><field var='a'/></reported>"),
        { rule: 'child-order', element: X },
      ],
      [
        parseDataForm,
        formXml(
          'result',
          "<reported><field var='a'/></reported><item><field var='a'/></item><reported><field var='a'/></reported>",
        ),
        { rule: 'duplicate-child', element: X },
      ],
      [
        parseDataForm,
        formXml('result', '<reported/>'),
        { rule: 'missing-child', element: `{${NS.dataForms}}reported` },
      ],
      [
        parseDataForm,
        formXml(
          'result',
          "<reported><field var='a'/><field var='b'/></reported><item><field var='a'/></item>",
        ),
        { rule: 'missing-child', element: `{${NS.dataForms}}item` },
      ],
      [
        parseDataForm,
        formXml(
          'result',
          "<field type='hidden' var='FORM_TYPE'><value>jabber:iq:search</value></field><reported><field var='a'/></reported>",
        ),
        { rule: 'unexpected-child', element: X },
      ],
      [
        parseDataForm,
        formXml('form', '<field/>'.replace('field', 'section')),
        { rule: 'unexpected-child', element: X },
      ],
      [
        parseDataForm,
        formXml('form', "<field var='a'><value><b/></value></field>"),
        { rule: 'unexpected-child', element: `{${NS.dataForms}}value` },
      ],
    ]),
  )('%s', (_title, parse, xmlText, expected) => {
    expectParseError(parse, xmlText, expected);
  });

  it('reports a missing <reported/> when there is none at all', () => {
    expectParseError(parseDataForm, formXml('result', "<item><field var='a'/></item>"), {
      rule: 'missing-child',
      element: X,
    });
  });

  it('refuses to build what XEP-0004 forbids', () => {
    expectBuildError(() => buildDataForm({ type: 'submit', fields: [{ var: 'a' }, { var: 'a' }] }), {
      rule: 'duplicate-field',
      element: X,
    });
    expectBuildError(() => buildDataForm({ type: 'form', fields: [{ var: 'a', values: ['1', '2'] }] }), {
      rule: 'field-type-mismatch',
      element: FIELD,
    });
    expectBuildError(
      () => buildDataForm({ type: 'result', fields: [{ var: 'a' }], reported: [{ var: 'b' }] }),
      {
        rule: 'unexpected-child',
        element: X,
      },
    );
    expectBuildError(() => buildDataForm({ type: 'form', fields: [{ var: 'a', values: ['\u0000'] }] }), {
      rule: 'illegal-xml-character',
      element: `{${NS.dataForms}}value`,
    });
  });
});
