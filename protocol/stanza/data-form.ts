/**
 * XEP-0004 data forms (jabber:x:data), with the XEP-0068 FORM_TYPE rule. The parser keeps what
 * a report needs to judge (field types as sent, every value, title and instructions) and
 * refuses what XEP-0004 forbids: a field without 'var' (unless fixed), two fields with one var,
 * several values in a single-valued field, options outside list fields, <reported/> after an
 * <item/>, and top-level fields beside <reported/>/<item/> (§3.4; interp-18). Elements
 * in other namespaces inside a form or field (e.g. XEP-0122 validation) are extensions and ignored.
 */
import { xml } from '@xmpp/xml';
import type { Element } from '@xmpp/xml';
import { NS } from '../namespaces.ts';
import { compact } from './compact.ts';
import { attributeOf, clarkNameOf, localNameOf, namespaceOf } from './element-access.ts';
import {
  checkAttributes,
  elementOnlyChildren,
  enumAttribute,
  expectElement,
  expectEmpty,
  lexOptionalAttribute,
  parseFailure,
  simpleContent,
} from './element-reader.ts';
import { legalText, validateBuilt } from './element-writer.ts';
import type { BuildTarget } from './element-writer.ts';
import { lexEnum } from './lexical.ts';

export const FORM_TYPES = ['form', 'submit', 'cancel', 'result'] as const;
export type FormType = (typeof FORM_TYPES)[number];

export const FIELD_TYPES = [
  'boolean',
  'fixed',
  'hidden',
  'jid-multi',
  'jid-single',
  'list-multi',
  'list-single',
  'text-multi',
  'text-private',
  'text-single',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Only these may carry more than one <value/> (XEP-0004 §3.2). */
const MULTI_VALUED: readonly FieldType[] = ['hidden', 'jid-multi', 'list-multi', 'text-multi'];
const LIST_TYPES: readonly FieldType[] = ['list-multi', 'list-single'];

export interface FormOption {
  readonly label?: string;
  readonly value: string;
}

export interface FormField {
  readonly var?: string;
  /** As sent; absent is legal in submit and result forms, and means text-single in a form. */
  readonly type?: FieldType;
  readonly label?: string;
  readonly desc?: string;
  readonly required: boolean;
  readonly values: readonly string[];
  readonly options: readonly FormOption[];
}

export interface DataForm {
  readonly type: FormType;
  readonly title?: string;
  readonly instructions: readonly string[];
  readonly fields: readonly FormField[];
  /** The multi-item "table header" of a result form. */
  readonly reported?: readonly FormField[];
  readonly items: readonly (readonly FormField[])[];
}

/** Builder input: collections default to empty and `required` to false. */
export interface FormFieldInput {
  readonly var?: string;
  readonly type?: FieldType;
  readonly label?: string;
  readonly desc?: string;
  readonly required?: boolean;
  readonly values?: readonly string[];
  readonly options?: readonly FormOption[];
}

export interface DataFormInput {
  readonly type: FormType;
  readonly title?: string;
  readonly instructions?: readonly string[];
  readonly fields?: readonly FormFieldInput[];
  readonly reported?: readonly FormFieldInput[];
  readonly items?: readonly (readonly FormFieldInput[])[];
}

function inForms(element: Element): boolean {
  return namespaceOf(element) === NS.dataForms;
}

/** Children in jabber:x:data; others are extensions and skipped. */
function formChildren(element: Element, allowed: readonly string[]): Element[] {
  const children = elementOnlyChildren(element).filter(inForms);
  for (const child of children) {
    if (!allowed.includes(localNameOf(child))) {
      throw parseFailure(element, 'unexpected-child', `<${clarkNameOf(child)}> is not allowed here`);
    }
  }
  return children;
}

function textElement(element: Element): string {
  checkAttributes(element, []);
  return simpleContent(element);
}

function parseOption(option: Element): FormOption {
  checkAttributes(option, ['label']);
  const values = formChildren(option, ['value']);
  const [value, extra] = values;
  if (value === undefined) throw parseFailure(option, 'missing-child', 'an option holds one <value/>');
  if (extra !== undefined) throw parseFailure(option, 'duplicate-child', 'an option holds one <value/>');
  return compact({ label: attributeOf(option, 'label'), value: textElement(value) });
}

function parseField(field: Element, formType: FormType): FormField {
  checkAttributes(field, ['var', 'type', 'label']);
  const type = lexOptionalAttribute(field, 'type', lexEnum(FIELD_TYPES));
  const name = attributeOf(field, 'var');
  if (name === undefined && type !== 'fixed') {
    throw parseFailure(
      field,
      'missing-attribute',
      "every field except type fixed needs 'var' (XEP-0004 §3.2)",
      'var',
    );
  }
  let desc: string | undefined;
  let required = false;
  const values: string[] = [];
  const options: FormOption[] = [];
  for (const child of formChildren(field, ['desc', 'required', 'value', 'option'])) {
    switch (localNameOf(child)) {
      case 'desc':
        if (desc !== undefined) throw parseFailure(field, 'duplicate-child', '<desc/> occurs more than once');
        desc = textElement(child);
        break;
      case 'required':
        if (required) throw parseFailure(field, 'duplicate-child', '<required/> occurs more than once');
        checkAttributes(child, []);
        expectEmpty(child);
        required = true;
        break;
      case 'value':
        values.push(textElement(child));
        break;
      default:
        options.push(parseOption(child));
    }
  }
  // A form's untyped field is text-single; in submit and result forms the type is left to context.
  const effectiveType = type ?? (formType === 'form' ? 'text-single' : undefined);
  if (effectiveType !== undefined && values.length > 1 && !MULTI_VALUED.includes(effectiveType)) {
    throw parseFailure(field, 'field-type-mismatch', `a ${effectiveType} field carries at most one <value/>`);
  }
  if (effectiveType !== undefined && options.length > 0 && !LIST_TYPES.includes(effectiveType)) {
    throw parseFailure(field, 'field-type-mismatch', `a ${effectiveType} field carries no <option/>`);
  }
  return compact({ var: name, type, label: attributeOf(field, 'label'), desc, required, values, options });
}

/** Fields of one container; a var may occur once (fixed fields without var are exempt). */
function parseFields(container: Element, fieldElements: readonly Element[], formType: FormType): FormField[] {
  const seen = new Set<string>();
  return fieldElements.map((element) => {
    const field = parseField(element, formType);
    if (field.var !== undefined) {
      if (seen.has(field.var)) {
        throw parseFailure(container, 'duplicate-field', `two fields have var ${JSON.stringify(field.var)}`);
      }
      seen.add(field.var);
    }
    return field;
  });
}

function parseTable(container: Element, formType: FormType): FormField[] {
  checkAttributes(container, []);
  const fields = formChildren(container, ['field']);
  if (fields.length === 0) {
    throw parseFailure(container, 'missing-child', 'at least one <field/> is required');
  }
  return parseFields(container, fields, formType);
}

export function parseDataForm(element: Element): DataForm {
  expectElement(element, 'x', NS.dataForms);
  checkAttributes(element, ['type']);
  const type = enumAttribute(element, 'type', FORM_TYPES);
  const children = formChildren(element, ['title', 'instructions', 'field', 'reported', 'item']);
  let title: string | undefined;
  const instructions: string[] = [];
  const fieldElements: Element[] = [];
  let reported: FormField[] | undefined;
  const items: FormField[][] = [];
  for (const child of children) {
    const local = localNameOf(child);
    if ((local === 'reported' || local === 'item') && type !== 'result') {
      throw parseFailure(element, 'unexpected-child', `<${local}/> belongs only in result forms`);
    }
    switch (local) {
      case 'title':
        if (title !== undefined) {
          throw parseFailure(element, 'duplicate-child', '<title/> occurs more than once');
        }
        title = textElement(child);
        break;
      case 'instructions':
        instructions.push(textElement(child));
        break;
      case 'field':
        fieldElements.push(child);
        break;
      case 'reported':
        if (reported !== undefined) {
          throw parseFailure(element, 'duplicate-child', '<reported/> occurs more than once');
        }
        reported = parseTable(child, type);
        break;
      default: {
        if (reported === undefined) {
          const later = children.some((other) => localNameOf(other) === 'reported');
          throw later
            ? parseFailure(element, 'child-order', '<reported/> must precede every <item/> (XEP-0004 §3.4)')
            : parseFailure(element, 'missing-child', '<item/> needs a preceding <reported/>');
        }
        const item = parseTable(child, type);
        const missing = reported.find((column) => !item.some((cell) => cell.var === column.var));
        if (missing !== undefined) {
          throw parseFailure(
            child,
            'missing-child',
            `the item lacks reported field ${JSON.stringify(missing.var)}`,
          );
        }
        items.push(item);
      }
    }
  }
  if (reported !== undefined && fieldElements.length > 0) {
    throw parseFailure(
      element,
      'unexpected-child',
      'a multi-item result form holds only <reported/> and <item/> fields',
    );
  }
  return compact({
    type,
    title,
    instructions,
    fields: parseFields(element, fieldElements, type),
    reported,
    items,
  });
}

const forms = (local: string): BuildTarget => ({ local, ns: NS.dataForms });

function buildField(field: FormFieldInput): Element {
  const target = forms('field');
  const text = (value: string | undefined, local: string): Element | undefined =>
    value === undefined ? undefined : xml(local, {}, legalText(forms(local), value));
  return xml(
    'field',
    {
      var: field.var === undefined ? undefined : legalText(target, field.var, 'var'),
      type: field.type,
      label: field.label === undefined ? undefined : legalText(target, field.label, 'label'),
    },
    text(field.desc, 'desc'),
    field.required === true ? xml('required') : undefined,
    (field.values ?? []).map((value) => xml('value', {}, legalText(forms('value'), value))),
    (field.options ?? []).map((option) =>
      xml(
        'option',
        { label: option.label === undefined ? undefined : legalText(forms('option'), option.label, 'label') },
        xml('value', {}, legalText(forms('value'), option.value)),
      ),
    ),
  );
}

export function buildDataForm(form: DataFormInput): Element {
  legalText(forms('x'), form.type, 'type');
  const element = xml(
    'x',
    { xmlns: NS.dataForms, type: form.type },
    form.title === undefined ? undefined : xml('title', {}, legalText(forms('title'), form.title)),
    (form.instructions ?? []).map((line) => xml('instructions', {}, legalText(forms('instructions'), line))),
    (form.fields ?? []).map(buildField),
    form.reported === undefined ? undefined : xml('reported', {}, form.reported.map(buildField)),
    (form.items ?? []).map((item) => xml('item', {}, item.map(buildField))),
  );
  return validateBuilt(element, parseDataForm);
}

export const FORM_TYPE_FIELD = 'FORM_TYPE';

/**
 * The form's FORM_TYPE per XEP-0068: in form and result forms only a hidden FORM_TYPE field
 * counts; in a submit form any FORM_TYPE field does. Undefined unless it has exactly one value.
 */
export function formTypeOf(form: DataForm): string | undefined {
  const field = form.fields.find((candidate) => candidate.var === FORM_TYPE_FIELD);
  if (field === undefined) return undefined;
  if (form.type !== 'submit' && field.type !== 'hidden') return undefined;
  const [value, extra] = field.values;
  return extra === undefined ? value : undefined;
}

export function fieldOf(fields: readonly FormField[], name: string): FormField | undefined {
  return fields.find((field) => field.var === name);
}

/** XEP-0004 boolean lexical forms: "1"/"true" and "0"/"false"; anything else is undefined. */
export function formBoolean(value: string): boolean | undefined {
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  return undefined;
}

/** The form a responder must emit for booleans such as cold_start_supported (#endpoint-info). */
export function formBooleanText(value: boolean): '1' | '0' {
  return value ? '1' : '0';
}
