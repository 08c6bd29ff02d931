/**
 * The gateway-tool interface of a caller under test (docs/caller.md, "A gateway whose own agents
 * call out"): the suite, as a fresh account on the gateway's own server, invokes the tool the SUT
 * file declares at its endpoint through the ordinary task protocol (#invocation, #events) with
 * `{target, tool, version?, arguments, timeoutSeconds?}`. The gateway then calls the fake target
 * as a caller; the conformance task's terminal event is its report: completed carries
 * structuredContent `{state, taskId, result}`. Cancelling the conformance task asks the gateway to
 * cancel the remote one; a relayed input request is an input_required event of the conformance
 * task, answered with <provide-input/>. Every stanza of the conformance task goes to the case's
 * transcript.
 */
import { randomBytes } from 'node:crypto';

import {
  createDriver,
  WaitTimeout,
  type Caller,
  type ReceivedTaskEvent,
  type Transcript,
} from '../../../harness/driver/index.ts';
import type { Federation } from '../../../harness/federation/server-provider.ts';
import type { GatewayToolCallerDeclaration } from '../../../harness/sut/sut-config.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import { FEATURE } from '../../../protocol/namespaces.ts';
import {
  buildCancel,
  buildDiscoInfoRequest,
  buildInvoke,
  buildManifestRequest,
  buildProvideInput,
  parseAccepted,
  parseDiscoInfo,
  parseManifest,
  type Manifest,
} from '../../../protocol/stanza/index.ts';
import { isTerminal, type TaskState } from '../../../protocol/task-states.ts';
import { encodeToolNode } from '../../../protocol/tool-node.ts';
import type { SeededRandom } from '../../framework/seeded-random.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import type { CallerCall, CallerUnderTest, CallRequest, RelayedInput } from './caller-under-test.ts';

const UNRESERVED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';
/** How often a wait re-reads the conformance task's events when nothing else woke it. */
const EVENT_POLL_MS = 250;

export interface GatewayCallerOptions {
  readonly federation: Federation;
  readonly declaration: GatewayToolCallerDeclaration;
  readonly transcript: Transcript;
  readonly random: SeededRandom;
  /** The wait for each of the gateway's IQ answers (the SUT file's replySeconds). */
  readonly replyMs: number;
  /** The suite's wait for a conformance task's outcome when a call names none. */
  readonly outcomeMs: number;
  /**
   * The account that invokes the tool: the SUT file's adminJid when it names one (a gateway may
   * grant the tool to it alone: calling arbitrary JIDs is a request-forgery risk), else a fresh
   * account on the gateway's own server.
   */
  readonly account?: string;
  /** The session's pins and timeoutSeconds, put into each call's input unless the call names others. */
  readonly pins?: Readonly<Record<string, string>>;
  readonly timeoutSeconds?: number;
}

export interface GatewayCallerUnderTest extends CallerUnderTest {
  /** The suite's account that invokes the call-out tool. */
  readonly suiteJid: string;
  close(): Promise<void>;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function payloadOf(event: ReceivedTaskEvent): JsonValue {
  if (!event.valid) return null;
  try {
    return parseStrictJson(event.event.json);
  } catch {
    return null;
  }
}

/** The conformance task's report: completed → its structuredContent, anything else an error. */
function outcomeOf(event: ReceivedTaskEvent): JsonObject {
  if (!event.valid)
    throw new Error(`the conformance task's terminal message is malformed: ${event.stanza.xml}`);
  const payload = payloadOf(event);
  if (event.event.type !== 'completed') {
    throw new Error(`the conformance task ${event.event.type}: ${JSON.stringify(payload)}`);
  }
  const result = isJsonObject(payload) ? payload['result'] : undefined;
  const structured = isJsonObject(result) ? result['structuredContent'] : undefined;
  if (!isJsonObject(structured)) {
    throw new Error(
      `the conformance task completed without structuredContent {state, taskId, result}: ${event.stanza.xml}`,
    );
  }
  return structured;
}

/** Waits for the first event of `taskId` at or after `from` that `match` accepts; never consumes events. */
async function eventOf(
  caller: Caller,
  taskId: string,
  from: number,
  match: (event: ReceivedTaskEvent) => boolean,
  timeoutMs: number,
  what: string,
): Promise<{ event: ReceivedTaskEvent; index: number }> {
  const giveUpAt = performance.now() + timeoutMs;
  for (;;) {
    const seen = caller.events.all(taskId);
    const index = seen.findIndex((event, at) => at >= from && match(event));
    const found = seen[index];
    if (found !== undefined) return { event: found, index };
    const left = giveUpAt - performance.now();
    if (left <= 0)
      throw new CannotTell(
        `the gateway sent no ${what} for its conformance task ${taskId} within ${String(timeoutMs)} ms`,
      );
    await nextMessage(caller, left, `${what} for its conformance task ${taskId}`);
  }
}

/**
 * Waits up to EVENT_POLL_MS (at most `leftMs`) for the suite's next message. Once its connection
 * has ended (the case is over, or the link was lost) no event can come: that ends the wait at
 * once, since polling a closed caller would spin on promises it rejects at once and starve every
 * timer of the process (the case's own clean-up waited for the whole outcome deadline).
 */
async function nextMessage(caller: Caller, leftMs: number, what: string): Promise<void> {
  try {
    await caller.waitForStanza((stanza) => stanza.name === 'message', {
      timeoutMs: Math.min(leftMs, EVENT_POLL_MS),
      since: caller.inbound.length,
    });
  } catch (error) {
    if (error instanceof WaitTimeout) return;
    throw new CannotTell(
      `the suite's connection to the gateway ended while it waited for the ${what}: ${describe(error)}`,
    );
  }
}

function isTerminalEvent(event: ReceivedTaskEvent): boolean {
  return event.valid && isTerminal(event.event.type as TaskState);
}

export async function startGatewayCaller(options: GatewayCallerOptions): Promise<GatewayCallerUnderTest> {
  const { federation, declaration, transcript, random } = options;
  const account =
    options.account === undefined
      ? await federation.createAccount({
          username: `judge-${randomBytes(6).toString('hex')}`,
          domain: federation.domains.local,
        })
      : federation.account(options.account);
  const driver = createDriver(federation, { transcript, timeoutMs: options.replyMs });
  // A resource of its own: the run's callers may hold this account's other resources.
  const caller = await driver.connect(account.jid, `judge-${randomBytes(4).toString('hex')}`);
  transcript.note(
    `caller interface: gateway-tool: the suite (${account.jid}) invokes ${declaration.tool} at ${declaration.endpoint}`,
  );
  let manifest: Manifest;
  try {
    const exchange = await caller.exchangeIq(declaration.endpoint, 'get', buildManifestRequest({}));
    if (exchange.parsed.type !== 'result' || exchange.parsed.payload === undefined) {
      throw new Error(exchange.reply.xml);
    }
    manifest = parseManifest(exchange.parsed.payload);
  } catch (error) {
    await driver.closeAll();
    throw new CannotTell(
      `the gateway gave the suite no manifest of ${declaration.endpoint}, whose ${declaration.tool} the SUT file declares (docs/caller.md): ${describe(error)}`,
    );
  }
  let relays: Promise<boolean> | undefined;
  const relaysInput = (): Promise<boolean> => {
    // A tool that may ask its caller for input advertises the input feature on its node
    // (#tool-info, #interactive-input): that, not a guess, says whether the gateway relays input.
    relays ??= caller
      .exchangeIq(
        declaration.endpoint,
        'get',
        buildDiscoInfoRequest({ node: encodeToolNode(manifest.version, declaration.tool) }),
      )
      .then((exchange) =>
        exchange.parsed.type === 'result' && exchange.parsed.payload !== undefined
          ? parseDiscoInfo(exchange.parsed.payload).features.includes(FEATURE.taskInput)
          : false,
      );
    return relays;
  };

  async function call(request: CallRequest): Promise<CallerCall> {
    const version = request.version ?? options.pins?.[request.jid];
    const timeoutSeconds = request.timeoutSeconds ?? options.timeoutSeconds;
    const input: JsonObject = {
      target: request.jid,
      tool: request.tool,
      ...(version === undefined ? {} : { version }),
      arguments: request.arguments,
      ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
    };
    const requestId = random.string(UNRESERVED, 32);
    transcript.note(`the suite asks the gateway to call: ${JSON.stringify(input)}`);
    const exchange = await caller.exchangeIq(
      declaration.endpoint,
      'set',
      buildInvoke({
        requestId,
        tool: declaration.tool,
        apiVersion: manifest.version,
        manifestHash: manifest.hash,
        argumentsJson: JSON.stringify(input),
      }),
    );
    const accepted = exchange.parsed.type === 'result' ? exchange.parsed.payload : undefined;
    if (accepted === undefined) {
      throw new CannotTell(
        `the gateway did not admit the suite's invocation of ${declaration.tool}, so it could not be made to call: ${exchange.reply.xml}`,
      );
    }
    const { taskId } = parseAccepted(accepted);
    const revision = (): number =>
      Math.max(0, ...caller.events.all(taskId).map((event) => (event.valid ? event.event.revision : 0)));
    const done = eventOf(
      caller,
      taskId,
      0,
      isTerminalEvent,
      request.waitMs ?? options.outcomeMs,
      'terminal event',
    ).then(({ event }) => outcomeOf(event));
    done.catch(() => undefined);
    let inputsFrom = 0;
    return {
      done,
      cancel: (reason) => {
        const cancelling = caller.exchangeIq(
          declaration.endpoint,
          'set',
          buildCancel({ taskId, expectedRevision: revision(), ...(reason === undefined ? {} : { reason }) }),
        );
        cancelling.catch((error: unknown) => {
          transcript.note(`cancelling the conformance task failed: ${describe(error)}`);
        });
      },
      async nextInput(timeoutMs: number): Promise<RelayedInput> {
        if (!(await relaysInput())) {
          throw new CannotTell(
            `${declaration.tool} does not advertise ${FEATURE.taskInput}: the gateway relays no input`,
          );
        }
        const { event, index } = await eventOf(
          caller,
          taskId,
          inputsFrom,
          (candidate) => candidate.valid && candidate.event.type === 'input_required',
          timeoutMs,
          'input_required event',
        );
        inputsFrom = index + 1;
        const asked = payloadOf(event);
        const inputRequestId =
          isJsonObject(asked) && typeof asked['requestId'] === 'string' ? asked['requestId'] : '';
        return {
          json: JSON.stringify(asked),
          async answer(value: JsonValue) {
            await caller.exchangeIq(
              declaration.endpoint,
              'set',
              buildProvideInput({
                taskId,
                requestId: inputRequestId,
                expectedRevision: revision(),
                inputJson: JSON.stringify(value),
              }),
            );
          },
        };
      },
    };
  }

  const reported = (): string[] =>
    caller.inbound.filter((stanza) => stanza.from !== undefined).map((stanza) => stanza.xml);
  const progress = (): string[] =>
    caller.events
      .all()
      .filter((event) => event.valid && event.event.type === 'progress')
      .map((event) => event.stanza.xml);
  return {
    interface: 'gateway-tool',
    suiteJid: account.jid,
    relaysInput,
    call,
    reported,
    progressShowing: (text) => progress().filter((xml) => xml.includes(text)),
    async reportedProgress(text, timeoutMs) {
      const giveUpAt = performance.now() + timeoutMs;
      for (;;) {
        if (progress().some((xml) => xml.includes(text))) return true;
        const left = giveUpAt - performance.now();
        if (left <= 0) return false;
        await nextMessage(caller, left, `progress showing ${text}`);
      }
    },
    async close() {
      await driver.closeAll();
    },
  };
}
