/**
 * Test-only variants of the reference gateway, built as patched copies of its source tree
 * (harness/sut/source-variant.ts): never a switch in its production code or config. Each comes
 * with its own SUT file, written into the copy at fixtures/sut/<name>.json and derived from
 * fixtures/sut/reference-gateway.json, so its launch ("cwd": "../..") starts the copy's gateway.
 *
 * PERMITTED variants change the gateway only in ways the spec allows: each must pass every
 * claimed profile. BROKEN variants change it in ways the spec forbids (or claim what they do not
 * implement): none may pass the profile named. README.md gives the reasons with their anchors.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../harness/repo-root.ts';
import { readPatchFile } from '../../harness/sut/patch-file.ts';
import { buildSourceVariant, type DiffPatch } from '../../harness/sut/source-variant.ts';

/** The reference gateway's SUT file as JSON, the shape the variants edit. */
export interface SutFile {
  name: string;
  launch: { command: string[]; files: { 'gateway.json': { limits: Record<string, unknown> } } };
  limits: Record<string, unknown>;
  [member: string]: unknown;
}

export interface GatewayVariant {
  /** Kebab-case. */
  readonly name: string;
  /** One line: what differs from the reference gateway. */
  readonly change: string;
  readonly patches: readonly DiffPatch[];
  readonly addFiles?: Readonly<Record<string, string>>;
  /** Edits the variant's copy of the reference SUT file (limits, launch command). */
  readonly sut?: (sut: SutFile) => void;
  /**
   * The reference SUT file in fixtures/sut/ the variant derives from (default
   * reference-gateway.json; reference-gateway-caller.json for a variant of the calling gateway).
   */
  readonly base?: string;
}

export interface BuiltVariant {
  readonly name: string;
  readonly root: string;
  /** The variant's SUT file inside its copy. */
  readonly sutFile: string;
  remove(): void;
}

/** The variant's change: integration/variants/patches/<name>.patch (harness/sut/patch-file.ts). */
export function variantPatches(name: string): DiffPatch[] {
  return readPatchFile(`integration/variants/patches/${name}.patch`);
}

/** Builds the variant's source copy with its SUT file; remove() deletes it. */
export function buildGatewayVariant(variant: GatewayVariant): BuiltVariant {
  const sut = JSON.parse(
    readFileSync(join(REPO_ROOT, 'fixtures', 'sut', variant.base ?? 'reference-gateway.json'), 'utf8'),
  ) as SutFile;
  sut.name = `reference gateway variant ${variant.name}`;
  variant.sut?.(sut);
  const sutPath = join('fixtures', 'sut', `${variant.name}.json`);
  const built = buildSourceVariant(REPO_ROOT, {
    name: variant.name,
    patches: variant.patches,
    addFiles: { ...variant.addFiles, [sutPath]: `${JSON.stringify(sut, null, 2)}\n` },
  });
  return {
    name: variant.name,
    root: built.root,
    sutFile: join(built.root, sutPath),
    remove: () => {
      built.remove();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Permitted variants

/**
 * a. Every IQ error carries the request payload before <error/> (#errors: MAY be included; the
 * SHOULD to omit attacker-controlled JSON is errors.no-payload-echo), except a
 * resource-constraint, whose rejected JSON MUST NOT be reflected (#json-encoding).
 */
export const ECHO_IN_ERRORS: GatewayVariant = {
  name: 'echo-in-errors',
  change: 'IQ errors include the original request payload (resource-constraint excepted)',
  patches: variantPatches('echo-in-errors'),
};

/**
 * b. Task, event and input-request IDs: a fixed deployment prefix, the kind, the creation time
 * in base 36 milliseconds, then exactly 128 CSPRNG bits (#invocation: 22-128 characters of the
 * grammar, at least 128 bits of unpredictability; nothing forbids a prefix or a time field beside
 * them).
 */
export const PREFIXED_IDS: GatewayVariant = {
  name: 'prefixed-ids',
  change: "identifiers are 'gw-node-0001.' + kind prefix + base-36 milliseconds + '-' + 128 random bits",
  patches: variantPatches('prefixed-ids'),
};

/** A preload that runs the gateway process's wall clock `offsetMs` off the harness's. */
function clockShift(offsetMs: number): string {
  return `// Variant preload: this process's wall clock runs ${String(offsetMs)} ms off the real one
// (Date.now and new Date() alike; timers are relative and unaffected).
const OFFSET_MS = ${String(offsetMs)};
const RealDate = Date;
const shiftedNow = () => RealDate.now() + OFFSET_MS;
function ShiftedDate(...args) {
  if (new.target === undefined) return new RealDate(shiftedNow()).toString();
  return args.length === 0 ? new RealDate(shiftedNow()) : new RealDate(...args);
}
ShiftedDate.prototype = RealDate.prototype;
ShiftedDate.now = shiftedNow;
ShiftedDate.parse = RealDate.parse;
ShiftedDate.UTC = RealDate.UTC;
globalThis.Date = ShiftedDate;
`;
}

/** c. The gateway's clock `offsetMs` off the driver's: clocks of federated hosts are never equal. */
function shiftedClock(name: string, offsetMs: number): GatewayVariant {
  return {
    name,
    change: `the gateway's wall clock runs ${offsetMs > 0 ? `${String(offsetMs)} ms ahead` : `${String(-offsetMs)} ms behind`}`,
    patches: [],
    addFiles: { 'clock-shift.mjs': clockShift(offsetMs) },
    sut: (sut) => {
      const [program, ...rest] = sut.launch.command;
      if (program !== 'node') throw new Error('the reference SUT no longer starts node');
      sut.launch.command = [program, '--import', './clock-shift.mjs', ...rest];
    },
  };
}
export const CLOCK_AHEAD = shiftedClock('clock-ahead-2s', 2_000);
export const CLOCK_BEHIND = shiftedClock('clock-behind-2s', -2_000);

/** d. Pages of at most 2 items whatever <max/> asks (XEP-0059: the responder may return fewer). */
export const PAGE_MAX_2: GatewayVariant = {
  name: 'page-max-2',
  change: 'limits.rsmPageMax 2 (documented in the SUT file)',
  patches: [],
  sut: (sut) => {
    sut.launch.files['gateway.json'].limits['rsmPageMax'] = 2;
    sut.limits['rsmPageMax'] = 2;
  },
};

/**
 * e. service-unavailable typed `wait` where the outage is transient (interp-42): the task engine
 * refusing work while it is closed (shutdown, store closed), and a registered schema that fails
 * to load at admission (a local fault).
 */
export const TRANSIENT_OUTAGE_WAIT: GatewayVariant = {
  name: 'transient-outage-wait',
  change: "service-unavailable type 'wait' for the engine's transient outages",
  patches: variantPatches('transient-outage-wait'),
};

/**
 * f. Progress rate-limited by coalescing (#security: gateways MUST rate-limit progress events):
 * at most one committed progress update per task every 250 ms; an update inside the interval is
 * held (a newer one replaces it) and committed when the interval ends, unless anything else was
 * committed first (a state transition): then it is dropped. A dropped update is never committed,
 * so it takes no revision (#events: each *committed* progress update increases it by one).
 */
export const PROGRESS_COALESCING: GatewayVariant = {
  name: 'progress-coalescing',
  change: 'progress rate-limited: held updates coalesce, and are dropped when a transition comes first',
  patches: variantPatches('progress-coalescing'),
};

/** The namespace of variant g's retry hint, an application-specific condition of a deployment's own. */
export const RETRY_HINT_NS = 'urn:example:agent-gateway:limits:0';

/**
 * g. The other paths four cases accept, in one gateway (one full run):
 * - restricted XML on the component stream closed with <bad-format/> instead of <restricted-xml/>
 *   (RFC 6120 §11.1: a stream error that SHOULD be <restricted-xml/>; some existing
 *   implementations send <bad-format/> instead): security.restricted-xml-on-component-link;
 * - events the link did not take while its stream was down are dropped, not re-sent after the
 *   reconnection (#events: best-effort notifications, "Delivery can lose an event";
 *   #task-message-routing: correctness MUST NOT depend on notification delivery): task-state
 *   and task-result recover them, as task-recovery.server-restart asks;
 * - every resource-constraint carries a bounded, fixed <text/> and a retry hint as an
 *   application-specific condition (RFC 6120 §8.3.2; #errors: any diagnostic bounded and safe,
 *   no rejected JSON reflected): rules.task-capacity, security.rate-limit-enforced;
 * - every bucket of the prober stricter than the SUT file documents (burst 4 at 10/s against
 *   10 at 40/s: the documented bucket is a ceiling, #security only says MUST rate-limit):
 *   security.rate-limit-enforced, the model rate-limit cases, and invocation.model-capacity,
 *   whose refusals within capacity must then be told from the stricter rate.
 */
export const LINK_AND_LIMIT_ALTERNATIVES: GatewayVariant = {
  name: 'link-and-limit-alternatives',
  change:
    'bad-format for restricted XML, undelivered events dropped at reconnection, resource-constraint with text and retry hint, stricter prober rate limits',
  patches: variantPatches('link-and-limit-alternatives'),
  sut: (sut) => {
    const limits = sut.launch.files['gateway.json'].limits as {
      principalRateLimits: Record<string, Record<string, unknown>>;
    };
    const prober = limits.principalRateLimits['prober@server.example'];
    for (const operation of ['discovery', 'metadata', 'invocation', 'registration']) {
      if (prober?.[operation] === undefined)
        throw new Error(`the reference SUT no longer limits the prober's ${operation}`);
      prober[operation] = { burst: 4, perSecond: 10 };
    }
  },
};

/**
 * h. An empty search lists nothing (#search: a query without criteria MAY list every visible
 * endpoint; interp-18 allows nothing, or a refusal): the order and paging cases take a result set
 * from a nick the endpoints they provision share.
 */
export const EMPTY_SEARCH_LISTS_NOTHING: GatewayVariant = {
  name: 'empty-search-lists-nothing',
  change: 'a search without criteria matches nothing',
  patches: variantPatches('empty-search-lists-nothing'),
};

/**
 * i. Tasks served a minute past their retain-until (#events: state and result stay queryable
 * until retain-until, a minimum, not a deadline to forget them by).
 */
export const SERVES_PAST_RETAIN_UNTIL: GatewayVariant = {
  name: 'serves-past-retain-until',
  change: 'terminal tasks stay queryable, and are purged, a minute after their retain-until',
  patches: variantPatches('serves-past-retain-until'),
};

/**
 * j. Stanzas read as the component stream's reader built them, each CDATA section a text node of
 * its own, instead of re-read from the gateway's serialization (one text node per run): how
 * character data reaches the codecs is the gateway's business, as long as they concatenate it
 * (#json-encoding). Broken counterpart: the mutant stream-tree-last-text-node.
 */
export const STREAM_TREE_READ: GatewayVariant = {
  name: 'stream-tree-read',
  change: "stanzas go to the codecs as the component stream's reader built them, not re-read",
  patches: variantPatches('stream-tree-read'),
};

export const PERMITTED_VARIANTS: readonly GatewayVariant[] = [
  ECHO_IN_ERRORS,
  PREFIXED_IDS,
  CLOCK_AHEAD,
  CLOCK_BEHIND,
  PAGE_MAX_2,
  TRANSIENT_OUTAGE_WAIT,
  PROGRESS_COALESCING,
  LINK_AND_LIMIT_ALTERNATIVES,
  EMPTY_SEARCH_LISTS_NOTHING,
  SERVES_PAST_RETAIN_UNTIL,
  STREAM_TREE_READ,
];

// ---------------------------------------------------------------------------------------------
// Broken variants

/** 2. Progress, cancellation and input switched off and not advertised; the SUT still claims Interactive Tasks. */
export const NO_INTERACTIVE_FEATURES: GatewayVariant = {
  name: 'no-interactive-features',
  change: 'the task engine implements and advertises none of #progress, #cancel, #input',
  patches: variantPatches('no-interactive-features'),
};

/**
 * 3. Every IQ answered twice: the reply, then a service-unavailable error, the way a component
 * whose library fallback responder also answers handled IQs does (@xmpp/component's IQ callee).
 */
export const ANSWERS_TWICE: GatewayVariant = {
  name: 'answers-twice',
  change: 'every IQ reply is followed by a second reply, a service-unavailable error',
  patches: variantPatches('answers-twice'),
};

/**
 * 4. Every registration and administration request answered service-unavailable (no provisioning
 * row in the IQ table), while #admin and #self-register are still advertised: the shape of a
 * gateway built on another revision of the protocol.
 */
export const REFUSES_REGISTRATION: GatewayVariant = {
  name: 'refuses-registration',
  change: 'every registration/administration IQ is answered service-unavailable',
  patches: variantPatches('refuses-registration'),
};

/**
 * 5. bad-request typed 'cancel' (RFC 6120 and interp-42 give it 'modify'): a type the suite
 * only warns about, so the run passes without --strict and fails with it.
 */
export const BAD_REQUEST_CANCEL: GatewayVariant = {
  name: 'bad-request-cancel',
  change: "bad-request errors carry type 'cancel' instead of 'modify'",
  patches: variantPatches('bad-request-cancel'),
};

/** Before issue 13 item 8: a search form with a field the gateway does not know is refused. */
export const REFUSES_UNKNOWN_FORM_FIELDS: GatewayVariant = {
  name: 'refuses-unknown-form-fields',
  change: 'a search form submission carrying a field the gateway does not understand gets bad-request',
  patches: variantPatches('refuses-unknown-form-fields'),
};

// ---------------------------------------------------------------------------------------------
// Crash and link faults (issue 14, items 3 and 4: integration/verdict-proofs-crash.test.ts)

/**
 * <accepted/> before the commit (#invocation: the task and its replay record are durable before
 * acceptance is sent): each admission group runs in an open transaction, every admission is
 * answered at once, and the COMMIT follows in the next turn of the event loop, right after the
 * answers were written. A kill between the two loses a task the caller may have been told about.
 */
export const ACCEPTED_BEFORE_COMMIT: GatewayVariant = {
  name: 'accepted-before-commit',
  change:
    '<accepted/> is written before the admission transaction commits (the COMMIT follows in the next event-loop turn)',
  patches: variantPatches('accepted-before-commit'),
};

/**
 * A re-sent event with a new event ID (#events: an identical replay keeps its event ID, revision,
 * type and payload): events sent again from the store — after the component link comes back,
 * or after a bounce — each get a fresh event ID.
 */
export const RESENT_EVENT_NEW_ID: GatewayVariant = {
  name: 'resent-event-new-id',
  change: 'events sent again (after a reconnection or a bounce) carry a fresh event ID',
  patches: variantPatches('resent-event-new-id'),
};

// ---------------------------------------------------------------------------------------------
// Bad input (issue 14, item 5: integration/verdict-proofs-bad-input.test.ts)

/**
 * Every IQ error carries the request payload, a limit rejection too: the echo-in-errors variant
 * (permitted) without its one exception, so a resource-constraint reflects the rejected JSON
 * (#json-encoding: the response MUST NOT reflect it).
 */
export const ECHO_IN_LIMIT_ERRORS: GatewayVariant = {
  name: 'echo-in-limit-errors',
  change: 'IQ errors include the original request payload, resource-constraint included',
  patches: variantPatches('echo-in-limit-errors'),
};

/**
 * Tool schemas evaluated in the gateway's own thread, without the validation budget (#security:
 * regular-expression and schema evaluation MUST be resource-bounded): a backtracking pattern
 * stops the event loop, and with it every answer.
 */
export const UNBOUNDED_SCHEMA_EVALUATION: GatewayVariant = {
  name: 'unbounded-schema-evaluation',
  change: 'arguments and input validated in-thread with no time budget',
  patches: variantPatches('unbounded-schema-evaluation'),
};

// ---------------------------------------------------------------------------------------------
// Races with histories (issue 14, item 1: integration/verdict-proofs-races.test.ts)

/**
 * A duplicate invocation in flight runs the tool again (#invocation: an identical request MUST
 * NOT execute twice): the replay is answered with the original <accepted/>, but the answer path
 * also hands the task to dispatch again, and dispatch starts the runtime for a task that already
 * has an execution record. No event shows it (the second run's output is refused as settled);
 * only the tool's ledger does.
 */
export const DOUBLE_EXECUTION: GatewayVariant = {
  name: 'double-execution',
  change: 'an identical invocation answered from the replay record while its task runs starts the tool again',
  patches: variantPatches('double-execution'),
};

/**
 * A late cancellation overwrites the terminal state (#cancellation: a cancellation after
 * settlement gets conflict; a terminal settlement is immutable): a cancel reaching a settled task
 * with no accepted cancellation commits `cancelled` on top of it, at the next revision, and is
 * answered <cancel-accepted/>.
 */
export const LATE_CANCEL_OVERWRITES: GatewayVariant = {
  name: 'late-cancel-overwrites',
  change: 'a cancellation of a settled task (none accepted before) commits cancelled over the terminal state',
  patches: variantPatches('late-cancel-overwrites'),
};
