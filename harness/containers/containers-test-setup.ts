// Global setup of `npm run test:containers` (vitest.containers.config.ts): a Docker engine that
// answers (as root, dockerd is started when none does, and stopped again at the end) and a Prosody
// image (local/prosody:0.12 is built from Debian packages when the engine has none and no image was
// named with AGENTCONF_PROSODY_IMAGE, which is then pulled by the provider if need be).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { ensureDockerEngine, findDockerEngine, stopStartedDockerEngine } from './docker-engine.ts';
import { LOCAL_PROSODY_IMAGE, PROSODY_IMAGE_ENV, resolveProsodyImage } from './prosody-image.ts';

const run = promisify(execFile);
const BUILD_IMAGE = fileURLToPath(new URL('./build-image', import.meta.url));

let startedHere = false;

function say(line: string): void {
  process.stdout.write(`[test:containers] ${line}\n`);
}

export async function setup(): Promise<void> {
  const began = performance.now();
  const running = await findDockerEngine();
  const engine = running ?? (await ensureDockerEngine({ start: true }));
  startedHere = running === undefined;
  say(
    `Docker ${engine.version}${startedHere ? `, dockerd started in ${Math.round(performance.now() - began)} ms` : ''}`,
  );

  const image = await resolveProsodyImage(undefined);
  const named = (process.env[PROSODY_IMAGE_ENV] ?? '') !== '';
  if (!image.present && !named) {
    const building = performance.now();
    say(`no Prosody image in the engine: building ${LOCAL_PROSODY_IMAGE} (harness/containers/build-image)`);
    await run(BUILD_IMAGE, [LOCAL_PROSODY_IMAGE], { maxBuffer: 64 * 1024 * 1024 });
    say(`${LOCAL_PROSODY_IMAGE} built in ${((performance.now() - building) / 1000).toFixed(1)} s`);
  } else {
    say(`Prosody image ${image.image} (${image.reason})`);
  }
}

export async function teardown(): Promise<void> {
  if (startedHere) {
    await stopStartedDockerEngine();
    say('stopped the dockerd started for this run');
  }
}
