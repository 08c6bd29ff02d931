// Which Prosody image the container provider runs. Users with a registry get the official image;
// machines without one run the image that `harness/containers/build-image` builds from Debian's
// packages. The generated configuration works in both (it is passed on the command line, Prosody
// runs as root in the container with `run_as_root`, and logs to the console).
import { imageExists, type DockerEndpoint } from './docker-api.ts';

export const OFFICIAL_PROSODY_IMAGE = 'prosody/prosody:0.12';
export const LOCAL_PROSODY_IMAGE = 'local/prosody:0.12';
/** Environment variable naming the image (an option given in code wins over it). */
export const PROSODY_IMAGE_ENV = 'AGENTCONF_PROSODY_IMAGE';

export const BUILD_IMAGE_HINT =
  'harness/containers/build-image   # as root; builds local/prosody:0.12 from Debian packages';

export interface ImageFacts {
  readonly option: string | undefined;
  readonly env: string | undefined;
  readonly officialPresent: boolean;
  readonly localPresent: boolean;
}

export interface ImageChoice {
  readonly image: string;
  /** Why this one, for the run's report. */
  readonly reason: string;
}

/**
 * Option, then environment, then the official image if the engine has it, then the locally built
 * one if the engine has it, and otherwise the official image (pulled on first use).
 */
export function chooseProsodyImage(facts: ImageFacts): ImageChoice {
  if (facts.option !== undefined && facts.option !== '') return { image: facts.option, reason: 'option' };
  if (facts.env !== undefined && facts.env !== '') return { image: facts.env, reason: PROSODY_IMAGE_ENV };
  if (facts.officialPresent) return { image: OFFICIAL_PROSODY_IMAGE, reason: 'official image, present' };
  if (facts.localPresent) return { image: LOCAL_PROSODY_IMAGE, reason: 'locally built image, present' };
  return { image: OFFICIAL_PROSODY_IMAGE, reason: 'official image, to be pulled' };
}

export async function resolveProsodyImage(
  endpoint: DockerEndpoint,
  option: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<ImageChoice & { readonly present: boolean }> {
  const envImage = env[PROSODY_IMAGE_ENV];
  const explicit = (option ?? '') !== '' || (envImage ?? '') !== '';
  const [officialPresent, localPresent] = explicit
    ? [false, false]
    : await Promise.all([
        imageExists(endpoint, OFFICIAL_PROSODY_IMAGE),
        imageExists(endpoint, LOCAL_PROSODY_IMAGE),
      ]);
  const choice = chooseProsodyImage({ option, env: envImage, officialPresent, localPresent });
  const present = explicit ? await imageExists(endpoint, choice.image) : officialPresent || localPresent;
  return { ...choice, present };
}

/** Why an image could not be had, and what to do about it. */
export function missingImageMessage(image: string, cause: string): string {
  const build =
    image === LOCAL_PROSODY_IMAGE
      ? `Build it:\n  ${BUILD_IMAGE_HINT}`
      : `Without a registry, build the Debian-based image and use it:\n  ${BUILD_IMAGE_HINT}\n  export ${PROSODY_IMAGE_ENV}=${LOCAL_PROSODY_IMAGE}   # or leave it unset: a present local image is used when the official one is absent`;
  return `The Prosody image ${image} is not available (${cause}). ${build}`;
}
