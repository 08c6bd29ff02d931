/** The records the store reads and writes; plain data, no database types leak out. */
import type { CanonicalHash } from '../../protocol/json/canonical.ts';

/** Text time stamps are ISO 8601 instants in UTC (`Date.prototype.toISOString`). */
export type IsoInstant = string;

/** One immutable registered manifest version (#registration-flow). */
/** A version's identity without its bytes: what a pin compares (hash) and names (jid, version). */
export interface VersionPin {
  readonly jid: string;
  readonly version: string;
  readonly hash: CanonicalHash;
}

export interface StoredVersion {
  /** Normalized endpoint bare JID. */
  readonly jid: string;
  readonly version: string;
  /** The RFC 8785 bytes that were hashed: what <json/> serves (#manifest-retrieval). */
  readonly canonicalJson: Buffer;
  readonly hash: CanonicalHash;
  readonly createdAt: IsoInstant;
}

export interface NewVersion {
  readonly jid: string;
  readonly version: string;
  readonly canonicalJson: Buffer;
  readonly hash: CanonicalHash;
}

/** What a removed version leaves behind, forever (#registration-flow). */
export interface VersionTombstone {
  readonly jid: string;
  readonly version: string;
  readonly hash: CanonicalHash;
  readonly removedAt: IsoInstant;
}

/** Who declared a grant or an endpoint policy; each source is replaced as a whole. */
export type PolicySource = 'config' | 'world';
