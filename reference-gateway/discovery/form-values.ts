/**
 * Small helpers for the XEP-0128 result forms (#endpoint-info, #tool-info), typed as the
 * XEP-0068 registrations declare (#registrar-formtypes).
 */
import { FORM_TYPE_FIELD, formBooleanText } from '../../protocol/stanza/index.ts';
import type { FormFieldInput } from '../../protocol/stanza/index.ts';

export function formTypeField(formType: string): FormFieldInput {
  return { var: FORM_TYPE_FIELD, type: 'hidden', values: [formType] };
}

export function textSingle(name: string, value: string): FormFieldInput {
  return { var: name, type: 'text-single', values: [value] };
}

/**
 * A text-multi field carries one line per <value/> (XEP-0004 §3.3); CRLF and CR become line
 * breaks first, so joining the values with LF gives the text back (interp-20).
 */
export function textMulti(name: string, value: string): FormFieldInput {
  return { var: name, type: 'text-multi', values: value.replace(/\r\n?/g, '\n').split('\n') };
}

/** Responders emit XEP-0004 booleans as 1 or 0 (#endpoint-info; interp-20). */
export function booleanField(name: string, value: boolean): FormFieldInput {
  return { var: name, type: 'boolean', values: [formBooleanText(value)] };
}
