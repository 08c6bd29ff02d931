/**
 * Verdicts of earlier intakes of the fixture world's manifests, kept on disk between gateway
 * starts. A conformance run starts the gateway several times with the same world; validating it
 * (the normative schema, then compiling and meta-validating every tool schema) was most of the
 * gateway's start (200–400 ms of CPU on a 2-core machine, measured with the start's CPU profile).
 *
 * An entry says: this exact manifest text, under these limits, was accepted by this code, and
 * its canonical form hashed to H. The key is the SHA-256 of everything that decides the verdict:
 * the text's bytes (and whether it came as text or bytes), every limit, and the fingerprint of
 * the validating code (intake-fingerprint.ts). A hit still parses the text strictly and
 * canonicalizes it (a few milliseconds for the reference world), and is used only when the
 * canonical hash equals H; anything else, a missing or unreadable entry included, is a miss and
 * the full intake runs. Only acceptances are kept: a refusal must list its violations anyway.
 *
 * Where: the package's node_modules/.cache/agentconf/intake, beside the fixed validators' cache
 * (protocol/json/fixed-validator.ts). An optimisation only: when the folder cannot be written (a
 * read-only install), every start validates as before.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { normalizeBareJid } from '../../protocol/jid/index.ts';
import { canonicalDocument } from '../../protocol/json/canonical.ts';
import { isJsonObject } from '../../protocol/json/json-value.ts';
import type { Manifest } from '../../protocol/manifest/index.ts';
import {
  intakeManifest,
  manifestLimitFault,
  parseManifestText,
  type AcceptedManifest,
  type ManifestLimits,
} from './manifest-intake.ts';
import { succeed, type Outcome } from './registration-fault.ts';
import { runningIntakeFingerprint } from './intake-fingerprint.ts';

/** Bumped when the entries' meaning or layout changes. */
const FORMAT = 1;

/**
 * Every limit intakeManifest reads (all of ManifestLimits: one added there and not here fails to
 * compile). The gateway passes all its limits, and a change of one the intake does not read (a
 * rate limit) must not discard the entries.
 */
const READ_BY_INTAKE: Readonly<Record<keyof ManifestLimits, true>> = {
  manifestMaxBytes: true,
  schemaMaxBytes: true,
  jsonMaxDepth: true,
  jsonMaxStringLength: true,
  jsonMaxObjectMembers: true,
  jsonMaxArrayItems: true,
  toolsPerManifest: true,
};
export const INTAKE_LIMITS = (Object.keys(READ_BY_INTAKE) as (keyof ManifestLimits)[]).sort();

export const DEFAULT_INTAKE_CACHE_DIR = resolve(
  import.meta.dirname,
  '..',
  '..',
  'node_modules',
  '.cache',
  'agentconf',
  'intake',
);

export interface IntakeCacheOptions {
  readonly dir?: string;
  /** The validating code's fingerprint (tests); default: this package's. */
  readonly fingerprint?: string;
  /** The full intake (tests count its calls); default: intakeManifest. */
  readonly intake?: typeof intakeManifest;
  /** How long an entry is kept after it was written (tests); default: KEPT_MS. */
  readonly keptMs?: number;
}

/**
 * Every edit of the validating code makes new keys, so old entries are removed: at the first
 * write of a process (a write follows a miss, which is when a code change leaves entries
 * behind), those written longer ago than this. One still in use is only validated once more.
 */
const KEPT_MS = 7 * 24 * 60 * 60 * 1000;

export class IntakeCache {
  readonly dir: string;
  readonly #fingerprint: () => string;
  readonly #intake: typeof intakeManifest;
  readonly #keptMs: number;
  #pruned = false;

  constructor(options: IntakeCacheOptions = {}) {
    this.dir = options.dir ?? DEFAULT_INTAKE_CACHE_DIR;
    const { fingerprint } = options;
    this.#fingerprint = fingerprint === undefined ? runningIntakeFingerprint : () => fingerprint;
    this.#intake = options.intake ?? intakeManifest;
    this.#keptMs = options.keptMs ?? KEPT_MS;
  }

  /** The entry's key: everything that decides the intake of `text` under `limits`. */
  keyOf(text: string | Uint8Array, limits: ManifestLimits): string {
    const textHash = createHash('sha256').update(text).digest('hex');
    const limitValues = INTAKE_LIMITS.map((name) => limits[name]);
    return createHash('sha256')
      .update(
        JSON.stringify([
          FORMAT,
          this.#fingerprint(),
          typeof text === 'string' ? 'text' : 'bytes',
          textHash,
          limitValues,
        ]),
      )
      .digest('hex');
  }

  /** intakeManifest of `text`, from the cache when an earlier intake accepted it. */
  async intake(text: string | Uint8Array, limits: ManifestLimits): Promise<Outcome<AcceptedManifest>> {
    const key = this.keyOf(text, limits);
    const known = this.#known(text, limits, key);
    if (known !== undefined) return succeed(known);
    const outcome = await this.#intake(text, limits);
    if (outcome.ok) this.#remember(key, outcome.value.document.hash.value);
    return outcome;
  }

  /** The accepted manifest again, when the entry exists and the text still canonicalizes to its hash. */
  #known(text: string | Uint8Array, limits: ManifestLimits, key: string): AcceptedManifest | undefined {
    const hash = this.#read(key);
    if (hash === undefined) return undefined;
    const parsed = parseManifestText(text, limits);
    if (!parsed.ok || manifestLimitFault(parsed.value, limits) !== undefined) return undefined;
    const document = canonicalDocument(parsed.value);
    if (document.hash.value !== hash) return undefined;
    const agent = isJsonObject(parsed.value) ? parsed.value['agent'] : undefined;
    const jid = isJsonObject(agent) ? agent['jid'] : undefined;
    const version = isJsonObject(agent) ? agent['version'] : undefined;
    if (typeof jid !== 'string' || typeof version !== 'string') return undefined;
    // The value passed validateManifest when the entry was written: it is a Manifest.
    const manifest = parsed.value as unknown as Manifest;
    return { endpointJid: normalizeBareJid(jid), version, manifest, document };
  }

  #read(key: string): string | undefined {
    try {
      const entry = JSON.parse(readFileSync(join(this.dir, key), 'utf8')) as { hash?: unknown };
      return typeof entry.hash === 'string' ? entry.hash : undefined;
    } catch {
      return undefined;
    }
  }

  #remember(key: string, hash: string): void {
    this.#pruneOnce();
    const file = join(this.dir, key);
    // Written aside and renamed: a gateway starting beside this one never reads half an entry.
    const partial = `${file}.${String(process.pid)}.partial`;
    try {
      mkdirSync(this.dir, { recursive: true });
      writeFileSync(partial, JSON.stringify({ hash }));
      renameSync(partial, file);
    } catch {
      // Not writable: the next start validates again.
    }
  }

  #pruneOnce(): void {
    if (this.#pruned) return;
    this.#pruned = true;
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    const before = Date.now() - this.#keptMs;
    for (const name of names) {
      const file = join(this.dir, name);
      try {
        if (statSync(file).mtimeMs < before) rmSync(file, { force: true });
      } catch {
        // Removed meanwhile by another gateway pruning the same folder.
      }
    }
  }
}
