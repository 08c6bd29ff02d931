// Which Prosody image the container provider runs. Users with a registry get the official image;
// machines without one run the image that `harness/containers/build-image` builds from Debian's
// packages. The generated configuration works in both (it is passed on the command line, Prosody
// runs as root in the container with `run_as_root`, and logs to the console).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { findOnPath } from '../federation/debian-packages.ts';
import type { DockerEngine } from './docker-engine.ts';
import { dockerClient, loadTestcontainers } from './testcontainers-loader.ts';

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

/** Whether the engine has the image (by name:tag) locally. */
async function imageExists(image: string): Promise<boolean> {
  const [{ ImageName }, client] = await Promise.all([loadTestcontainers(), dockerClient()]);
  return client.image.exists(ImageName.fromString(image));
}

/** The choice on the engine testcontainers found, and whether the engine has that image. */
export async function resolveProsodyImage(
  option: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<ImageChoice & { readonly present: boolean }> {
  const envImage = env[PROSODY_IMAGE_ENV];
  const explicit = (option ?? '') !== '' || (envImage ?? '') !== '';
  const [officialPresent, localPresent] = explicit
    ? [false, false]
    : await Promise.all([imageExists(OFFICIAL_PROSODY_IMAGE), imageExists(LOCAL_PROSODY_IMAGE)]);
  const choice = chooseProsodyImage({ option, env: envImage, officialPresent, localPresent });
  const present = explicit ? await imageExists(choice.image) : officialPresent || localPresent;
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

/** The script that builds LOCAL_PROSODY_IMAGE from Debian packages (root, a local engine). */
export const BUILD_IMAGE_SCRIPT = fileURLToPath(new URL('./build-image', import.meta.url));

/** Builds LOCAL_PROSODY_IMAGE (80–160 s here); rejects with the script's output when it fails. */
export async function buildLocalProsodyImage(): Promise<void> {
  await promisify(execFile)(BUILD_IMAGE_SCRIPT, [LOCAL_PROSODY_IMAGE], { maxBuffer: 64 * 1024 * 1024 });
}

export interface BuildFacts {
  readonly linux: boolean;
  readonly root: boolean;
  /** The engine listens on a socket of this machine (the build imports into it with `docker`). */
  readonly localEngine: boolean;
  readonly docker: boolean;
  /** debootstrap is installed, or apt-get can install it. */
  readonly debootstrapOrApt: boolean;
}

/** Whether build-image can run here; `why` names what is missing when not. */
export function imageBuildable(facts: BuildFacts): { readonly possible: boolean; readonly why: string } {
  const missing = [
    ...(facts.linux ? [] : ['not Linux']),
    ...(facts.root ? [] : ['not root']),
    ...(facts.localEngine ? [] : ['the engine is not on this machine']),
    ...(facts.docker ? [] : ['no docker command']),
    ...(facts.debootstrapOrApt ? [] : ['neither debootstrap nor apt-get']),
  ];
  return missing.length === 0
    ? { possible: true, why: 'root, a local engine, docker and debootstrap (or apt-get)' }
    : { possible: false, why: missing.join(', ') };
}

/** The facts of this machine for imageBuildable. */
export async function buildFactsHere(engine: DockerEngine): Promise<BuildFacts> {
  const [docker, debootstrap, apt] = await Promise.all([
    findOnPath('docker'),
    findOnPath('debootstrap'),
    findOnPath('apt-get'),
  ]);
  return {
    linux: process.platform === 'linux',
    root: process.getuid?.() === 0,
    localEngine: engine.connection.socketPath !== undefined,
    docker: docker !== undefined,
    debootstrapOrApt: debootstrap !== undefined || apt !== undefined,
  };
}
