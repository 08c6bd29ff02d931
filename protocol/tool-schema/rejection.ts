/**
 * Why a tool schema cannot be registered (#schemas). One rule per failure class, so the gateway can
 * choose the IQ error without parsing prose: 'schema-too-complex' is a documented limit and maps to
 * <resource-constraint/> (#json-encoding); every other rule is a schema the target refuses.
 *
 * `message` is bounded and never quotes schema values. `path` is a JSON pointer into the submitted
 * schema for the registrant's diagnostics; it contains member names, so it is not for reflecting to
 * a remote requester (#json-encoding forbids echoing the rejected schema).
 */
export type ToolSchemaRule =
  | 'not-an-object'
  | 'object-root'
  | 'unsupported-dialect'
  | 'unsupported-vocabulary'
  | 'unsupported-keyword'
  | 'invalid-regex'
  | 'invalid-schema'
  | 'external-reference'
  | 'unresolvable-reference'
  | 'reserved-identifier'
  | 'schema-too-complex';

export class ToolSchemaRejection extends Error {
  override readonly name = 'ToolSchemaRejection';
  readonly rule: ToolSchemaRule;
  readonly path: string;

  constructor(rule: ToolSchemaRule, path: string, message: string) {
    super(message);
    this.rule = rule;
    this.path = path;
  }
}
