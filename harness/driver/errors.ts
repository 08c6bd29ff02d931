/**
 * What a caller's requests and waits reject with. Each carries the XML involved, so that an
 * assertion failure can say what was sent and what came back without reading the transcript.
 */
import type { Element } from '@xmpp/xml';

import type { DefinedCondition, StanzaError, StanzaErrorType } from '../../protocol/stanza/index.ts';

export interface IqRequestInfo {
  /** The caller's full JID. */
  readonly caller: string;
  readonly requestId: string;
  readonly to: string;
  readonly requestXml: string;
}

/** An IQ was answered with type='error' (RFC 6120 §8.3). */
export class StanzaErrorReply extends Error implements IqRequestInfo {
  override readonly name = 'StanzaErrorReply';
  readonly caller: string;
  readonly requestId: string;
  readonly to: string;
  readonly requestXml: string;
  /** The reply exactly as received. */
  readonly replyXml: string;
  /** The reply's 'from'. */
  readonly from: string | undefined;
  readonly error: StanzaError;
  /** The request payload, when the responder echoed it. */
  readonly echoedPayload: Element | undefined;

  constructor(
    request: IqRequestInfo,
    reply: { xml: string; from: string | undefined },
    error: StanzaError,
    echoedPayload?: Element,
  ) {
    const text = error.text === undefined ? '' : ` "${error.text.text}"`;
    super(
      `${request.caller}: iq ${request.requestId} to ${request.to} failed: ${error.type}/${error.condition}${text}\n  reply: ${reply.xml}`,
    );
    this.caller = request.caller;
    this.requestId = request.requestId;
    this.to = request.to;
    this.requestXml = request.requestXml;
    this.replyXml = reply.xml;
    this.from = reply.from;
    this.error = error;
    this.echoedPayload = echoedPayload;
  }

  get condition(): DefinedCondition {
    return this.error.condition;
  }

  get type(): StanzaErrorType {
    return this.error.type;
  }

  /** The human-readable <text/>, if any. */
  get text(): string | undefined {
    return this.error.text?.text;
  }

  get by(): string | undefined {
    return this.error.by;
  }

  get applicationCondition(): Element | undefined {
    return this.error.applicationCondition;
  }
}

/** No reply within the deadline. A reply that comes later is marked as late in the transcript. */
export class IqTimeout extends Error implements IqRequestInfo {
  override readonly name = 'IqTimeout';
  readonly caller: string;
  readonly requestId: string;
  readonly to: string;
  readonly requestXml: string;

  constructor(
    request: IqRequestInfo,
    readonly timeoutMs: number,
  ) {
    super(`${request.caller}: no reply to iq ${request.requestId} (to ${request.to}) within ${timeoutMs} ms`);
    this.caller = request.caller;
    this.requestId = request.requestId;
    this.to = request.to;
    this.requestXml = request.requestXml;
  }
}

/** The reply does not follow RFC 6120 §8.2.3 / §8.3 (e.g. an error without a defined condition). */
export class MalformedReply extends Error implements IqRequestInfo {
  override readonly name = 'MalformedReply';
  readonly caller: string;
  readonly requestId: string;
  readonly to: string;
  readonly requestXml: string;

  constructor(
    request: IqRequestInfo,
    readonly replyXml: string,
    readonly problem: Error,
  ) {
    super(
      `${request.caller}: malformed reply to iq ${request.requestId}: ${problem.message}\n  reply: ${replyXml}`,
      {
        cause: problem,
      },
    );
    this.caller = request.caller;
    this.requestId = request.requestId;
    this.to = request.to;
    this.requestXml = request.requestXml;
  }
}

/** waitForStanza or an event wait reached its deadline. */
export class WaitTimeout extends Error {
  override readonly name = 'WaitTimeout';
  constructor(
    readonly caller: string,
    /** What was waited for, in words. */
    readonly awaited: string,
    readonly timeoutMs: number,
    detail = '',
  ) {
    super(`${caller}: no ${awaited} within ${timeoutMs} ms${detail === '' ? '' : `; ${detail}`}`);
  }
}

/** The caller's connection ended (closed by the test, or lost) while a request or wait was open. */
export class CallerDisconnected extends Error {
  override readonly name = 'CallerDisconnected';
  constructor(
    readonly caller: string,
    readonly reason: string,
  ) {
    super(`${caller}: ${reason}`);
  }
}

/** Logging in failed: authentication, TLS, connection or deadline. Names the JID. */
export class LoginFailed extends Error {
  override readonly name = 'LoginFailed';
  constructor(
    readonly jid: string,
    readonly service: string,
    /** The SASL condition (e.g. not-authorized) when the server refused the credentials. */
    readonly condition: string | undefined,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`login as ${jid} at ${service} failed: ${detail}`, options);
  }
}
