/** The SUT adapter: the config describing the gateway under test, and starting it (docs/sut.md). */
export { expandLaunch, type ExpandedFile, type ExpandedLaunch } from './expand-launch.ts';
export {
  componentFor,
  launchSut,
  SutMismatchError,
  type SutInstance,
  type SutLaunchOptions,
} from './launch.ts';
export {
  documentedRateLimitsOf,
  type DocumentedRateLimit,
  type DocumentedRateLimits,
} from './documented-rate-limits.ts';
export { PLACEHOLDER_NAMES, type LaunchFacts, type PlaceholderName } from './placeholders.ts';
export { PROFILE_IDS, PROFILE_TITLES, withImpliedProfiles, type ProfileId } from '../../protocol/profiles.ts';
export {
  discoInfoProbe,
  SutNotReadyError,
  waitForSutReady,
  type ProbeAnswer,
  type SutProbe,
} from './readiness.ts';
export {
  CALLER_PLACEHOLDERS,
  DEFAULT_COMPONENT_DOMAIN,
  DEFAULT_TIMEOUTS,
  GENERATED_SECRET,
  formatViolation,
  loadSutConfig,
  loadSutFile,
  parseSutConfig,
  parseSutFile,
  SutConfigError,
  type CallerDeclaration,
  type CallerSutConfig,
  type FixtureProvisioning,
  type GatewayToolCallerDeclaration,
  type LaunchCommand,
  type McpCallerDeclaration,
  type SutConfig,
  type SutFile,
  type SutConfigViolation,
  type SutLaunch,
  type RateLimitRules,
  type SutLimits,
  type SutTimeouts,
} from './sut-config.ts';
