/**
 * Grants and endpoint overrides as the config and the world file write them, turned into the
 * policy's records (policy/policy-rules.ts) with every JID and domain normalized, so the
 * decisions can compare strings exactly. Invalid entries become violations at their pointers.
 *
 * File form:   { "domain" | "principal", "see": ["*" | jid…], "invoke": ["*" | jid | {endpoint, tools}…] }
 * Record form: one Grant per (subject, action, endpoint, tool); "*" becomes endpoint null.
 */
import { JidError, normalizeBareJid, parseBareJid } from '../../protocol/jid/index.ts';
import type { EndpointPolicy, Grant, GrantSubjectKind } from '../policy/policy-rules.ts';
import type { ConfigViolation } from '../../protocol/json/config-file.ts';
import type { GrantDeclaration } from '../../protocol/fixture-world-file.ts';

export type { GrantDeclaration };

/** The shapes the JSON Schemas guarantee. */
export interface EndpointPolicyDeclaration {
  readonly jid: string;
  readonly hidden?: boolean;
  readonly restrictedInvocation?: boolean;
}

export const EVERY_ENDPOINT = '*';

/** Normalizes a JID, or records a violation at `path` and returns undefined. */
export function normalizedJid(text: string, path: string, violations: ConfigViolation[]): string | undefined {
  try {
    return normalizeBareJid(text);
  } catch (error) {
    if (!(error instanceof JidError)) throw error;
    violations.push({ path, message: `not a bare JID (${error.rule})` });
    return undefined;
  }
}

/** Normalizes a domain (a JID with neither localpart nor resource). */
export function normalizedDomain(
  text: string,
  path: string,
  violations: ConfigViolation[],
): string | undefined {
  try {
    if (parseBareJid(text).localpart !== undefined) {
      violations.push({ path, message: 'a domain has no localpart' });
      return undefined;
    }
    return normalizeBareJid(text);
  } catch (error) {
    if (!(error instanceof JidError)) throw error;
    violations.push({ path, message: `not a domain (${error.rule})` });
    return undefined;
  }
}

function subjectOf(
  declaration: GrantDeclaration,
  path: string,
  violations: ConfigViolation[],
): { kind: GrantSubjectKind; subject: string } | undefined {
  if (declaration.domain !== undefined) {
    const subject = normalizedDomain(declaration.domain, `${path}/domain`, violations);
    return subject === undefined ? undefined : { kind: 'domain', subject };
  }
  if (declaration.principal !== undefined) {
    const subject = normalizedJid(declaration.principal, `${path}/principal`, violations);
    return subject === undefined ? undefined : { kind: 'principal', subject };
  }
  return undefined;
}

function endpointOf(text: string, path: string, violations: ConfigViolation[]): string | null | undefined {
  return text === EVERY_ENDPOINT ? null : normalizedJid(text, path, violations);
}

/** The records of grant declarations at `path` (e.g. `/policy/grants`). */
export function grantsOf(
  declarations: readonly GrantDeclaration[],
  path: string,
  violations: ConfigViolation[],
): Grant[] {
  const grants: Grant[] = [];
  declarations.forEach((declaration, index) => {
    const at = `${path}/${index}`;
    const subject = subjectOf(declaration, at, violations);
    const base = subject === undefined ? undefined : { subjectKind: subject.kind, subject: subject.subject };
    (declaration.see ?? []).forEach((text, i) => {
      const endpoint = endpointOf(text, `${at}/see/${i}`, violations);
      if (base !== undefined && endpoint !== undefined)
        grants.push({ ...base, action: 'see', endpoint, tool: null });
    });
    (declaration.invoke ?? []).forEach((item, i) => {
      const itemPath = `${at}/invoke/${i}`;
      if (typeof item === 'string') {
        const endpoint = endpointOf(item, itemPath, violations);
        if (base !== undefined && endpoint !== undefined) {
          grants.push({ ...base, action: 'invoke', endpoint, tool: null });
        }
        return;
      }
      // Tool grants name one endpoint: "every endpoint's tool X" would follow names, not endpoints.
      const endpoint = normalizedJid(item.endpoint, `${itemPath}/endpoint`, violations);
      if (base === undefined || endpoint === undefined) return;
      for (const tool of item.tools) grants.push({ ...base, action: 'invoke', endpoint, tool });
    });
  });
  return grants;
}

export function endpointPolicyOf(
  declaration: EndpointPolicyDeclaration,
  path: string,
  violations: ConfigViolation[],
): EndpointPolicy | undefined {
  const endpoint = normalizedJid(declaration.jid, `${path}/jid`, violations);
  if (endpoint === undefined) return undefined;
  return {
    endpoint,
    hidden: declaration.hidden ?? false,
    restrictedInvocation: declaration.restrictedInvocation ?? false,
  };
}
