/**
 * Payload rules the lifecycle schema cannot express (#event-json-schemas, #errors):
 * - every `date-time` member is an XEP-0082 date-time with a mandatory offset, written with
 *   uppercase T and Z (interp-31); JSON Schema `format` is only an annotation;
 * - a failure code is reserved or namespace-qualified.
 * `percent` finiteness and range, and `inputSchema` being an object, are schema-enforced.
 */
import { DateTimeError, parseDateTime, type DateTimeRule } from '../datetime.ts';
import { isJsonObject, type JsonValue } from '../json/json-value.ts';
import type { Violation } from '../manifest/schema-violations.ts';
import type { EventType } from '../task-states.ts';
import { failureCodeViolation, type FailureCodeViolation } from './failure-code.ts';

/** The members the schema marks `format: date-time`, per event type. */
const DATE_TIME_MEMBERS: Readonly<Partial<Record<EventType, readonly string[]>>> = {
  status: ['updatedAt'],
  input_required: ['createdAt', 'expiresAt'],
};

const DATE_TIME_MESSAGES: Readonly<Record<DateTimeRule, string>> = {
  syntax: 'must be an XEP-0082 date-time (YYYY-MM-DDThh:mm:ss[.f], uppercase T)',
  'offset-missing': 'must carry a UTC offset (Z or ±hh:mm)',
  'month-range': 'has a month outside 01-12',
  'day-range': 'has a day that does not exist in its month',
  'hour-range': 'has an hour above 23',
  'minute-range': 'has a minute above 59',
  'second-range': 'has a second above 59 (leap seconds are not accepted)',
  'offset-range': 'has a UTC offset outside ±23:59',
};

const FAILURE_CODE_MESSAGES: Readonly<Record<FailureCodeViolation, string>> = {
  unqualified: 'a failure code must be a reserved code or namespace-qualified (qualifier:name)',
  'empty-segment': 'a namespace-qualified failure code must not have an empty colon-separated part',
};

function dateTimeViolations(type: EventType, payload: JsonValue): Violation[] {
  if (!isJsonObject(payload)) return [];
  const violations: Violation[] = [];
  for (const member of DATE_TIME_MEMBERS[type] ?? []) {
    const value = payload[member];
    if (typeof value !== 'string') continue;
    try {
      parseDateTime(value);
    } catch (error) {
      if (!(error instanceof DateTimeError)) throw error;
      violations.push({
        rule: `datetime:${error.rule}`,
        path: `/${member}`,
        message: DATE_TIME_MESSAGES[error.rule],
      });
    }
  }
  return violations;
}

function failureCodeViolations(type: EventType, payload: JsonValue): Violation[] {
  if (type !== 'failed' || !isJsonObject(payload)) return [];
  const error = payload['error'];
  if (!isJsonObject(error)) return [];
  const code = error['code'];
  if (typeof code !== 'string') return [];
  const violation = failureCodeViolation(code);
  if (violation === undefined) return [];
  return [
    { rule: `failure-code:${violation}`, path: '/error/code', message: FAILURE_CODE_MESSAGES[violation] },
  ];
}

export function eventRuleViolations(type: EventType, payload: JsonValue): Violation[] {
  return [...dateTimeViolations(type, payload), ...failureCodeViolations(type, payload)];
}
