// The federation as tests will use it, from the native provider (local Prosody processes): the
// provider-independent proofs of test-support/federation-proofs.ts.
import { nativeProvider } from './native-provider.ts';
import { describeFederationProofs } from './test-support/federation-proofs.ts';

describeFederationProofs({
  title: 'native federation',
  // The first run on a machine may install Prosody from Debian.
  start: () => nativeProvider.start({ hostile: true }),
  startTimeoutMs: 300_000,
  killBeforeRestart: false,
});
