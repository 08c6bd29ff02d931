/**
 * Per-tool rules the manifest schema cannot express (#manifest, #namespaces):
 * - tool names are XML-legal with no lone surrogates (interp-22) and unique within
 *   the manifest, compared code point by code point with no normalization;
 * - extension member names are URIs (the schema only checks a scheme-like prefix);
 * - `urn:xmpp:agent-api:0` timeouts are consistent.
 */
import { toolNameViolation, type ToolNameViolation } from '../identifiers.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../json/json-value.ts';
import { NS_AGENT_API } from '../namespaces.ts';
import { EXTENSION_MEMBER_PATTERN } from './manifest-types.ts';
import { parseUri, uriComparisonForm } from './rfc3986.ts';
import { childPointer, type Violation } from './schema-violations.ts';

const NAME_MESSAGES: Readonly<Record<ToolNameViolation, string>> = {
  empty: 'a tool name must not be empty',
  'lone-surrogate': 'a tool name must not contain a lone surrogate',
  'xml-illegal-character': 'a tool name must contain only characters legal in XML 1.0',
};

function nameViolations(tools: readonly JsonValue[]): Violation[] {
  const violations: Violation[] = [];
  // Exact string equality is code point equality for well-formed text: no normalization.
  const firstIndexByName = new Map<string, number>();
  for (const [index, tool] of tools.entries()) {
    if (!isJsonObject(tool)) continue;
    const name = tool['name'];
    if (typeof name !== 'string') continue;
    const path = `/tools/${index}/name`;
    const illegal = toolNameViolation(name);
    if (illegal !== undefined) {
      violations.push({ rule: `tool-name:${illegal}`, path, message: NAME_MESSAGES[illegal] });
    }
    const first = firstIndexByName.get(name);
    if (first === undefined) {
      firstIndexByName.set(name, index);
    } else {
      violations.push({
        rule: 'tool-name:duplicate',
        path,
        message: `tool names must be unique; tool ${first} has the same name`,
      });
    }
  }
  return violations;
}

/**
 * Extension names must be RFC 3986 URIs; fragments are allowed, since namespace URIs often
 * carry one (`…/disco#info`). Beyond syntax we reject aliases: two names of one tool that are
 * equivalent URIs (case of scheme, host or URN namespace ID; percent-encoding) but differ as
 * strings. Consumers look members up by exact string, so an alias such as
 * `urn:XMPP:agent-api:0` would smuggle XMPP declarations past the extension's schema.
 */
function extensionNameViolations(tool: JsonObject, toolPath: string): Violation[] {
  const violations: Violation[] = [];
  const nameByForm = new Map<string, string>([[NS_AGENT_API, NS_AGENT_API]]);
  for (const name of Object.keys(tool)) {
    if (!EXTENSION_MEMBER_PATTERN.test(name)) continue;
    const path = childPointer(toolPath, name);
    const parsed = parseUri(name);
    if (!parsed.ok) {
      violations.push({
        rule: 'extension-name:not-uri',
        path,
        message: `an extension member name must be a URI (RFC 3986 ${parsed.component}: ${parsed.rule})`,
      });
      continue;
    }
    const form = uriComparisonForm(parsed.uri);
    const other = nameByForm.get(form);
    if (other === undefined) {
      nameByForm.set(form, name);
    } else if (other !== name) {
      violations.push({
        rule: 'extension-name:alias',
        path,
        message: `an extension member name must not be an equivalent spelling of ${JSON.stringify(other)}`,
      });
    }
  }
  return violations;
}

/**
 * The spec leaves the timeouts' effect open (interp-32), but a default above the
 * maximum contradicts itself: applying the default would breach the declared maximum. Equal
 * values are fine. Reported at the default, the member that cannot be honoured.
 */
function timeoutViolations(tool: JsonObject, toolPath: string): Violation[] {
  const extension = tool[NS_AGENT_API];
  if (!isJsonObject(extension)) return [];
  const defaultSeconds = extension['defaultTimeoutSeconds'];
  const maximumSeconds = extension['maximumTimeoutSeconds'];
  if (typeof defaultSeconds !== 'number' || typeof maximumSeconds !== 'number') return [];
  if (defaultSeconds <= maximumSeconds) return [];
  return [
    {
      rule: 'timeout:default-exceeds-maximum',
      path: `${childPointer(toolPath, NS_AGENT_API)}/defaultTimeoutSeconds`,
      message: 'defaultTimeoutSeconds must not exceed maximumTimeoutSeconds',
    },
  ];
}

export function toolViolations(manifest: JsonValue): Violation[] {
  if (!isJsonObject(manifest)) return [];
  const tools = manifest['tools'];
  if (!Array.isArray(tools)) return [];
  const violations = nameViolations(tools);
  for (const [index, tool] of tools.entries()) {
    if (!isJsonObject(tool)) continue;
    const toolPath = `/tools/${index}`;
    violations.push(...extensionNameViolations(tool, toolPath), ...timeoutViolations(tool, toolPath));
  }
  return violations;
}
