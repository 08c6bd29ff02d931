// Which provider runs the federation: `auto` (the default) is `container` only when it can be —
// a Docker engine answers and has a Prosody image, or one can be built here — else `native`;
// `native`, `container` and `external` are taken as asked. The selection says what it chose and
// why, so that a run can print it. `auto` asks testcontainers' client for the engine (loading
// testcontainers: 0.2–1 s here, by load), unless no place it looks at exists (engine-places.ts);
// `native` and `external` load none of it, and the container provider is imported only when a
// federation starts.
import type { DockerEngine } from '../containers/docker-engine.ts';
import { LOCAL_PROSODY_IMAGE } from '../containers/prosody-image.ts';
import type { ExternalFederationConfig } from './external-provider.ts';
import type { ContainerFederationOptions } from './container-provider.ts';
import type { Federation, ServerProvider, ServerStack } from './server-provider.ts';

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
  /** How `auto` looks for an engine (default: where testcontainers looks, 1.5 s to answer). */
  readonly findEngine?: () => Promise<DockerEngine | undefined>;
  /** How `auto` asks the engine for a Prosody image (default: prosody-image.ts's choice). */
  readonly findImage?: (engine: DockerEngine) => Promise<AutoImage>;
  /** How `auto` tells whether build-image can run here (default: this machine's facts). */
  readonly canBuildImage?: (engine: DockerEngine) => Promise<{ possible: boolean; why: string }>;
  /** Passed to the container provider (image, startEngine) on every start. */
  readonly container?: Pick<ContainerFederationOptions, 'image' | 'startEngine'>;
  /** The servers' implementations the run asks for: ejabberd makes `auto` native (containers run Prosody only). */
  readonly servers?: ServerStack;
  /** A pair topology (interop runs): only the native provider builds one, so `auto` is native. */
  readonly pair?: boolean;
}

/** The Prosody image the engine would run, and whether it has it. */
export interface AutoImage {
  readonly image: string;
  readonly present: boolean;
}

/** What `auto` decides on. */
export interface AutoFacts {
  readonly engine?: { readonly version: string; readonly where: string };
  /** Asked only when an engine answers. */
  readonly image?: AutoImage;
  /** Asked only when the engine has no image. */
  readonly build?: { readonly possible: boolean; readonly why: string };
}

export function isProviderChoice(value: string): value is ProviderChoice {
  return (PROVIDER_CHOICES as readonly string[]).includes(value);
}

export interface AutoDecision {
  readonly name: 'native' | 'container';
  readonly reason: string;
  /** Containers, after building LOCAL_PROSODY_IMAGE. */
  readonly buildImage?: boolean;
}

/**
 * `auto`'s rule, on its own: containers only when an engine answers and has a Prosody image, or
 * one can be built here; otherwise native Prosody processes. The reason says which and why.
 */
export function decideAuto(facts: AutoFacts): AutoDecision {
  const { engine, image, build } = facts;
  if (engine === undefined)
    return { name: 'native', reason: 'auto: native Prosody processes (no Docker engine answers)' };
  const docker = `Docker ${engine.version} answers at ${engine.where}`;
  if (image?.present === true) {
    return { name: 'container', reason: `auto: containers (${docker} and has ${image.image})` };
  }
  const none = `it has no Prosody image${image === undefined ? '' : ` (${image.image})`}`;
  if (build?.possible === true) {
    return {
      name: 'container',
      reason: `auto: containers (${docker}; ${none}, so ${LOCAL_PROSODY_IMAGE} is built first, once: 1.5–3 min)`,
      buildImage: true,
    };
  }
  return {
    name: 'native',
    reason: `auto: native Prosody processes (${docker}, but ${none} and none can be built here: ${build?.why ?? 'unknown'})`,
  };
}

/** The container provider, imported on first start. */
function lazyContainerProvider(
  defaults: Pick<ContainerFederationOptions, 'image' | 'startEngine' | 'buildImage'> = {},
): ServerProvider {
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
  return findDockerEngine({ timeoutMs: 1_500 });
}

async function defaultFindImage(): Promise<AutoImage> {
  const { resolveProsodyImage } = await import('../containers/prosody-image.ts');
  const { image, present } = await resolveProsodyImage(undefined);
  return { image, present };
}

async function defaultCanBuildImage(engine: DockerEngine): Promise<{ possible: boolean; why: string }> {
  const { buildFactsHere, imageBuildable } = await import('../containers/prosody-image.ts');
  return imageBuildable(await buildFactsHere(engine));
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
      if (options.servers?.a === 'ejabberd' || options.servers?.b === 'ejabberd') {
        const { nativeProvider } = await import('./native-provider.ts');
        return {
          name: 'native',
          provider: nativeProvider,
          reason: 'auto: native processes (ejabberd runs natively only; the containers are Prosody images)',
        };
      }
      if (options.pair === true) {
        const { nativeProvider } = await import('./native-provider.ts');
        return {
          name: 'native',
          provider: nativeProvider,
          reason: 'auto: native processes (only the native provider builds the pair topology)',
        };
      }
      const engine = await (options.findEngine ?? defaultFindEngine)();
      let facts: AutoFacts = {};
      if (engine !== undefined) {
        const image = await (options.findImage ?? defaultFindImage)(engine);
        facts = {
          engine: { version: engine.version, where: engine.where },
          image,
          ...(image.present ? {} : { build: await (options.canBuildImage ?? defaultCanBuildImage)(engine) }),
        };
      }
      const decision = decideAuto(facts);
      if (decision.name === 'container') {
        return {
          name: 'container',
          provider: lazyContainerProvider({
            ...options.container,
            ...(decision.buildImage === true ? { buildImage: true } : {}),
          }),
          reason: decision.reason,
        };
      }
      const { nativeProvider } = await import('./native-provider.ts');
      return { name: 'native', provider: nativeProvider, reason: decision.reason };
    }
  }
}
