/**
 * Persisted visibility and invocation grants and per-endpoint overrides (#security, #rules).
 * Each source (the config file, the fixture world) is replaced as a whole when it is loaded,
 * so a grant deleted from a file is gone after the next start: grants fail closed.
 */
import type { EndpointPolicy, Grant } from '../policy/policy-rules.ts';
import type { StatementCache } from './statement-cache.ts';
import type { PolicySource } from './store-records.ts';

interface GrantRow {
  subject_kind: Grant['subjectKind'];
  subject: string;
  action: Grant['action'];
  endpoint_jid: string | null;
  tool: string | null;
}

interface EndpointPolicyRow {
  endpoint_jid: string;
  hidden: number;
  restricted_invocation: number;
}

export interface StoredPolicy {
  readonly grants: readonly Grant[];
  readonly endpointPolicies: readonly EndpointPolicy[];
}

export class PolicyTables {
  readonly #sql: StatementCache;
  readonly #transaction: <T>(work: () => T) => T;

  constructor(sql: StatementCache, transaction: <T>(work: () => T) => T) {
    this.#sql = sql;
    this.#transaction = transaction;
  }

  /** Replaces everything `source` declared; returns whether anything changed. */
  replaceSource(source: PolicySource, policy: StoredPolicy): boolean {
    return this.#transaction(() => {
      const before = this.#snapshot(source);
      this.#sql.get('DELETE FROM policy_grants WHERE source = ?').run(source);
      this.#sql.get('DELETE FROM endpoint_policies WHERE source = ?').run(source);
      const insertGrant = this.#sql.get(
        `INSERT INTO policy_grants (source, subject_kind, subject, action, endpoint_jid, tool)
         VALUES (?, ?, ?, ?, ?, ?)`,
      );
      for (const grant of dedupe(policy.grants, grantKey)) {
        insertGrant.run(source, grant.subjectKind, grant.subject, grant.action, grant.endpoint, grant.tool);
      }
      const insertEndpoint = this.#sql.get(
        `INSERT INTO endpoint_policies (source, endpoint_jid, hidden, restricted_invocation)
         VALUES (?, ?, ?, ?)
         ON CONFLICT (source, endpoint_jid) DO UPDATE SET
           hidden = max(hidden, excluded.hidden),
           restricted_invocation = max(restricted_invocation, excluded.restricted_invocation)`,
      );
      for (const entry of policy.endpointPolicies) {
        insertEndpoint.run(source, entry.endpoint, Number(entry.hidden), Number(entry.restrictedInvocation));
      }
      return this.#snapshot(source) !== before;
    });
  }

  /** Every source's grants and overrides together: what the access policy is compiled from. */
  load(): StoredPolicy {
    const grants = (
      this.#sql
        .get(
          `SELECT subject_kind, subject, action, endpoint_jid, tool FROM policy_grants
           ORDER BY source, subject_kind, subject, action, endpoint_jid, tool`,
        )
        .all() as GrantRow[]
    ).map(grantOf);
    const endpointPolicies = (
      this.#sql
        .get(
          `SELECT endpoint_jid, hidden, restricted_invocation FROM endpoint_policies
           ORDER BY source, endpoint_jid`,
        )
        .all() as EndpointPolicyRow[]
    ).map(endpointPolicyOf);
    return { grants, endpointPolicies };
  }

  /** A comparable rendering of one source's rows, to report whether a replacement changed them. */
  #snapshot(source: PolicySource): string {
    const grants = this.#sql
      .get(
        `SELECT subject_kind, subject, action, endpoint_jid, tool FROM policy_grants WHERE source = ?
         ORDER BY subject_kind, subject, action, endpoint_jid, tool`,
      )
      .all(source);
    const endpoints = this.#sql
      .get(
        `SELECT endpoint_jid, hidden, restricted_invocation FROM endpoint_policies WHERE source = ?
         ORDER BY endpoint_jid`,
      )
      .all(source);
    return JSON.stringify([grants, endpoints]);
  }
}

function grantOf(row: GrantRow): Grant {
  return {
    subjectKind: row.subject_kind,
    subject: row.subject,
    action: row.action,
    endpoint: row.endpoint_jid,
    tool: row.tool,
  };
}

function endpointPolicyOf(row: EndpointPolicyRow): EndpointPolicy {
  return {
    endpoint: row.endpoint_jid,
    hidden: row.hidden === 1,
    restrictedInvocation: row.restricted_invocation === 1,
  };
}

function grantKey(grant: Grant): string {
  return JSON.stringify([grant.subjectKind, grant.subject, grant.action, grant.endpoint, grant.tool]);
}

function dedupe<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const item of items) if (!seen.has(key(item))) seen.set(key(item), item);
  return [...seen.values()];
}
