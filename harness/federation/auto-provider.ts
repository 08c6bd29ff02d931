// Which provider runs the federation: `auto` (the default) is `container` when a Docker engine
// answers, else `native`; `native`, `container` and `external` are taken as asked. The selection
// says what it chose and why, so that a run can print it. Choosing loads nothing heavy: the
// container provider (and testcontainers with it) is imported only when a federation starts.
import type { DockerEngine } from '../containers/docker-engine.ts';
import type { ExternalFederationConfig } from './external-provider.ts';
import type { ContainerFederationOptions } from './container-provider.ts';
import type { Federation, ServerProvider } from './server-provider.ts';

export const PROVIDER_CHOICES = ['auto', 'native', 'container', 'external'] as const;
export type ProviderChoice = (typeof PROVIDER_CHOICES)[number];
export type ProviderName = Exclude<ProviderChoice, 'auto'>;

export interface ProviderSelection {
  readonly name: ProviderName;
  readonly provider: ServerProvider;
  /** One line for the run's output, e.g. "auto: Docker 20.10.24 answers at unix:///var/run/docker.sock". */
  readonly reason: string;
}

export interface SelectProviderOptions {
  /** Required for `external`. */
  readonly external?: ExternalFederationConfig;
  /** How `auto` looks for an engine (default: every usual socket, a short timeout each). */
  readonly findEngine?: () => Promise<DockerEngine | undefined>;
  /** Passed to the container provider (image, startEngine) on every start. */
  readonly container?: Pick<ContainerFederationOptions, 'image' | 'startEngine'>;
}

export function isProviderChoice(value: string): value is ProviderChoice {
  return (PROVIDER_CHOICES as readonly string[]).includes(value);
}

/** `auto`'s rule, on its own: the engine that answered (if any) decides. */
export function decideAuto(
  engine: (Pick<DockerEngine, 'version'> & { readonly where: string }) | undefined,
): { readonly name: 'native' | 'container'; readonly reason: string } {
  if (engine === undefined)
    return { name: 'native', reason: 'auto: no Docker engine answers, native Prosody processes' };
  return { name: 'container', reason: `auto: Docker ${engine.version} answers at ${engine.where}` };
}

/** The container provider, imported on first start. */
function lazyContainerProvider(defaults: SelectProviderOptions['container']): ServerProvider {
  return {
    name: 'container',
    async start(options = {}): Promise<Federation> {
      const { containerProvider } = await import('./container-provider.ts');
      return containerProvider.start({ ...defaults, ...options });
    },
  };
}

async function defaultFindEngine(): Promise<DockerEngine | undefined> {
  const { findDockerEngine } = await import('../containers/docker-engine.ts');
  return findDockerEngine(undefined, 1_500);
}

export async function selectProvider(
  choice: ProviderChoice,
  options: SelectProviderOptions = {},
): Promise<ProviderSelection> {
  switch (choice) {
    case 'native': {
      const { nativeProvider } = await import('./native-provider.ts');
      return { name: 'native', provider: nativeProvider, reason: 'native: asked for' };
    }
    case 'container':
      return {
        name: 'container',
        provider: lazyContainerProvider(options.container),
        reason: 'container: asked for',
      };
    case 'external': {
      if (options.external === undefined) {
        throw new Error(
          'the external provider needs a config: addresses, domains, accounts and the component secret',
        );
      }
      const { externalProvider } = await import('./external-provider.ts');
      return {
        name: 'external',
        provider: externalProvider(options.external),
        reason: 'external: asked for',
      };
    }
    case 'auto': {
      const engine = await (options.findEngine ?? defaultFindEngine)();
      let where = '';
      if (engine !== undefined) {
        const { describeEndpoint } = await import('../containers/docker-api.ts');
        where = describeEndpoint(engine.endpoint);
      }
      const decision = decideAuto(engine === undefined ? undefined : { version: engine.version, where });
      if (decision.name === 'container') {
        return {
          name: 'container',
          provider: lazyContainerProvider(options.container),
          reason: decision.reason,
        };
      }
      const { nativeProvider } = await import('./native-provider.ts');
      return { name: 'native', provider: nativeProvider, reason: decision.reason };
    }
  }
}
