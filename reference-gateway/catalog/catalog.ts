/**
 * The read model the discovery, search and metadata responders work on. The store and the
 * policy implement it; the responders never see SQLite or grants, only what one requester
 * may see (#rules: one visibility decision governs search, items, endpoint info, manifest,
 * tool info and schemas).
 */
import type { CanonicalDocument } from '../../protocol/json/canonical.ts';
import type { Manifest, ManifestTool } from '../../protocol/manifest/index.ts';

/** The authenticated sender of a request, as the server stamped it. */
export interface Requester {
  readonly fullJid: string;
  /** Normalized bare JID: the authorization principal (#invocation). */
  readonly bareJid: string;
  readonly domain: string;
}

export interface ToolRecord {
  readonly name: string;
  readonly definition: ManifestTool;
  /** Canonical bytes and hash of `inputSchema` (#tool-info, #schemas). */
  readonly inputSchema: CanonicalDocument;
  readonly outputSchema: CanonicalDocument | undefined;
}

/** One immutable registered version (#registration-flow). */
export interface ManifestRecord {
  /** Normalized endpoint bare JID. */
  readonly jid: string;
  readonly version: string;
  readonly manifest: Manifest;
  /** The RFC 8785 bytes served in <json/> and their sha-256 (#manifest-retrieval). */
  readonly document: CanonicalDocument;
  /** Tools in UTF-8 octet order of their names (#list-tools). */
  readonly tools: readonly ToolRecord[];
}

/** An endpoint as the directory shows it: only endpoints with an active version are listed. */
export interface VisibleEndpoint {
  readonly jid: string;
  readonly active: ManifestRecord;
}

export interface Catalog {
  /** Every endpoint the requester may see, ordered by the UTF-8 octets of the bare JID. */
  visibleEndpoints(requester: Requester): readonly VisibleEndpoint[];
  /** The same decision for one endpoint; undefined when hidden, inactive or nonexistent. */
  visibleEndpoint(requester: Requester, jid: string): VisibleEndpoint | undefined;
  /**
   * An exact registered version of an endpoint the requester may see (#manifest-retrieval:
   * a recorded version stays addressable); undefined when hidden or unknown.
   */
  visibleVersion(requester: Requester, jid: string, version: string): ManifestRecord | undefined;
}
