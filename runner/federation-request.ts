/**
 * The component link a SUT file fixes, as a federation start takes it: its port when fixed, its
 * secret unless the harness generates one. `agentconf run` and `agentconf federation up` ask alike,
 * so a gateway configured for one connects to the other.
 */
import type { FederationOptions } from '../harness/federation/server-provider.ts';
import { GENERATED_SECRET, type SutConfig } from '../harness/sut/sut-config.ts';

type ComponentRequest = NonNullable<FederationOptions['component']>;

export function componentLinkRequest(config: SutConfig): ComponentRequest {
  const { port, secret } = config.component;
  return {
    ...(port === undefined ? {} : { port }),
    ...(secret === GENERATED_SECRET ? {} : { secret }),
  };
}
