/**
 * The test driver (issue 3, item 3): callers on a federation that send IQs and raw stanzas,
 * await replies, stanzas and task events with deadlines, and record every stanza into a
 * per-test transcript.
 */
export { Driver, createDriver, type CallerSendOptions, type DriverOptions } from './driver.ts';
export {
  Caller,
  type BeforeSend,
  type CallerOptions,
  type CallerStatus,
  type IqExchange,
  type IqOptions,
  type SecondReply,
  type SendGate,
  type WaitOptions,
} from './caller.ts';
export {
  CallerDisconnected,
  IqTimeout,
  LoginFailed,
  MalformedReply,
  StanzaErrorReply,
  WaitTimeout,
  type IqRequestInfo,
} from './errors.ts';
export type { ReceivedStanza, StanzaName } from './received-stanza.ts';
export {
  TaskEventQueue,
  type EventWaitOptions,
  type MalformedTaskEvent,
  type ReceivedTaskEvent,
  type ValidTaskEvent,
} from './task-event-queue.ts';
export {
  secretSpellings,
  Transcript,
  type Redaction,
  type TranscriptDirection,
  type TranscriptEntry,
  type TranscriptJson,
  type TranscriptKind,
  type TranscriptOptions,
} from './transcript.ts';
export {
  openClientConnection,
  type ClientConnection,
  type ClientConnectionOptions,
  type WireTap,
} from './client-connection.ts';
