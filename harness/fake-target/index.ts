// The scriptable fake target (docs/caller.md): a component on the federation's target domain
// that plays the remote endpoints a caller under test invokes, and records what it sends.
export {
  DEFAULT_LATE_RETRY,
  FakeTarget,
  Gate,
  startFakeTarget,
  type EventToSend,
  type FakeTargetOptions,
  type LateRetryPolicy,
  type Reaction,
  type RuleHandle,
  type SentEvent,
} from './fake-target.ts';
export {
  StanzaLog,
  StanzaStream,
  StanzaWaitTimeout,
  type RecordedStanza,
  type StanzaKind,
  type StanzaMatch,
} from './stanza-log.ts';
export { completedPayloadOfSize } from './event-payloads.ts';
export type { FakeTask } from './task-book.ts';
export {
  DEFAULT_REPLAY_SECONDS,
  ENDPOINT_FEATURES,
  compileWorld,
  simpleManifest,
  type FakeEndpoint,
  type FakeTargetWorld,
  type FeatureChoice,
} from './target-world.ts';
