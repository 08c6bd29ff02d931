/**
 * The wire log of one test case: every stanza the callers sent and received, stream errors and
 * closes, connection events and the test's own notes, in the order this process saw them. A
 * failing case prints it (toText); reports attach it (toJSON). Callers of one case share one.
 * Both clocks are injectable so that a replayed case renders the same transcript.
 */

export type TranscriptDirection = 'sent' | 'received';

export type TranscriptKind =
  /** A stanza (iq, message, presence) as it crossed the wire. */
  | 'stanza'
  /** Text a test sent with sendRaw: possibly not a stanza, possibly not even XML. */
  | 'raw'
  /** A <stream:error/> (RFC 6120 §4.9), in either direction. */
  | 'stream-error'
  /** The stream's closing tag, in either direction. */
  | 'stream-close'
  /** A caller's connection changed state: online, closed, connection lost, login failed. */
  | 'status'
  /** Written by the test, e.g. which fault it injected. */
  | 'note';

export interface TranscriptEntry {
  /** 1-based position in the transcript. */
  readonly seq: number;
  /** Monotonic milliseconds since the transcript began (microsecond resolution). */
  readonly atMs: number;
  readonly kind: TranscriptKind;
  readonly direction?: TranscriptDirection;
  /** The caller's full JID; absent for notes of the test itself. */
  readonly jid?: string;
  /** The exact text on the wire. */
  readonly xml?: string;
  /** Status or note text, or a remark on a stanza (e.g. that it is a late reply). */
  readonly text?: string;
}

export type TranscriptRecord = Omit<TranscriptEntry, 'seq' | 'atMs'>;

export interface TranscriptJson {
  readonly title: string;
  /** Wall-clock time of the transcript's creation, ISO 8601. */
  readonly startedAt: string;
  readonly entries: readonly TranscriptEntry[];
}

/** A secret the transcript never holds: each occurrence is recorded as `label` instead. */
export interface Redaction {
  readonly secret: string;
  readonly label: string;
}

/** The forms a secret takes in stanza text: as is, and with XML's escapes. */
export function secretSpellings(secret: string): string[] {
  const escaped = secret
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll("'", '&apos;')
    .replaceAll('"', '&quot;');
  return escaped === secret ? [secret] : [secret, escaped];
}

function redacted(text: string, redactions: readonly Redaction[]): string {
  let result = text;
  for (const { secret, label } of redactions) {
    for (const form of secretSpellings(secret)) result = result.replaceAll(form, label);
  }
  return result;
}

export interface TranscriptOptions {
  /**
   * Secrets replaced before anything is recorded, so no rendering of the transcript (terminal,
   * report files) can carry them; a check that looks for a leak looks for the label.
   */
  readonly redactions?: readonly Redaction[];
  /** Monotonic clock in milliseconds (default performance.now). */
  readonly now?: () => number;
  /** Wall clock in milliseconds since the epoch, read once for startedAt (default Date.now). */
  readonly wallClock?: () => number;
}

export interface TranscriptTextOptions {
  /** XML longer than this is cut in the text rendering (default 4000; JSON keeps everything). */
  readonly maxXmlChars?: number;
}

const LABELS: Readonly<Record<TranscriptKind, string>> = {
  stanza: '',
  raw: 'raw ',
  'stream-error': 'stream-error ',
  'stream-close': 'stream-close ',
  status: 'status',
  note: 'note',
};

function arrow(entry: TranscriptEntry): string {
  if (entry.direction === 'sent') return 'SEND';
  if (entry.direction === 'received') return 'RECV';
  return '----';
}

function clip(xml: string, max: number): string {
  return xml.length <= max ? xml : `${xml.slice(0, max)}… (${xml.length - max} more chars)`;
}

export class Transcript {
  readonly title: string;
  readonly startedAt: string;
  readonly #now: () => number;
  readonly #origin: number;
  readonly #entries: TranscriptEntry[] = [];
  readonly #redactions: readonly Redaction[];

  constructor(title = 'transcript', options: TranscriptOptions = {}) {
    this.title = title;
    this.#redactions = (options.redactions ?? []).filter((redaction) => redaction.secret !== '');
    this.#now = options.now ?? (() => performance.now());
    this.#origin = this.#now();
    this.startedAt = new Date((options.wallClock ?? Date.now)()).toISOString();
  }

  get entries(): readonly TranscriptEntry[] {
    return this.#entries;
  }

  record(record: TranscriptRecord): TranscriptEntry {
    const atMs = Math.round((this.#now() - this.#origin) * 1000) / 1000;
    const clean =
      this.#redactions.length === 0
        ? record
        : {
            ...record,
            ...(record.xml === undefined ? {} : { xml: redacted(record.xml, this.#redactions) }),
            ...(record.text === undefined ? {} : { text: redacted(record.text, this.#redactions) }),
          };
    const entry: TranscriptEntry = { seq: this.#entries.length + 1, atMs, ...clean };
    this.#entries.push(entry);
    return entry;
  }

  /** A remark of the test itself, e.g. "freezing s2sAToB". */
  note(text: string): TranscriptEntry {
    return this.record({ kind: 'note', text });
  }

  /** One line per entry: time, JID, direction, kind, XML or text; remarks on a line of their own. */
  toText(options: TranscriptTextOptions = {}): string {
    const max = options.maxXmlChars ?? 4000;
    const jidWidth = Math.max(6, ...this.#entries.map((entry) => entry.jid?.length ?? 0));
    const lines = [`transcript "${this.title}" (${this.#entries.length} entries, began ${this.startedAt})`];
    for (const entry of this.#entries) {
      const time = `+${entry.atMs.toFixed(3)} ms`.padStart(14);
      const who = (entry.jid ?? '(test)').padEnd(jidWidth);
      const label = LABELS[entry.kind];
      if (entry.xml === undefined) {
        lines.push(`${time}  ${who}  ${arrow(entry)}  ${label} ${entry.text ?? ''}`.trimEnd());
        continue;
      }
      lines.push(`${time}  ${who}  ${arrow(entry)}  ${label}${clip(entry.xml, max)}`);
      if (entry.text !== undefined) lines.push(`${' '.repeat(16 + jidWidth)}  ^ ${entry.text}`);
    }
    return lines.join('\n');
  }

  toJSON(): TranscriptJson {
    return { title: this.title, startedAt: this.startedAt, entries: [...this.#entries] };
  }
}
