/**
 * The Docker engine for the container provider, from a shell (CI, a person):
 *   status  exit 0 and print the engine when one answers, exit 1 otherwise
 *   start   use the engine that answers, or (as root) install docker.io when missing and start
 *           dockerd with --iptables=false --ip-forward=false; exit 1 with the reason otherwise
 *   stop    stop the dockerd that `start` started (never another one)
 */
import {
  ensureDockerEngine,
  findDockerEngine,
  stopStartedDockerEngine,
  type DockerEngine,
} from './docker-engine.ts';

function describe(engine: DockerEngine): string {
  const origin = engine.startedByAgentconf ? 'started by agentconf' : 'not started by agentconf';
  return `Docker engine ${engine.version} (API ${engine.apiVersion}) at ${engine.where}, ${origin}`;
}

const command = process.argv[2] ?? 'status';
try {
  if (command === 'status') {
    const engine = await findDockerEngine();
    if (engine === undefined) {
      process.stdout.write('no Docker engine answers\n');
      process.exitCode = 1;
    } else {
      process.stdout.write(`${describe(engine)}\n`);
    }
  } else if (command === 'start') {
    const began = performance.now();
    const engine = await ensureDockerEngine({ start: true });
    process.stdout.write(`${describe(engine)} (${Math.round(performance.now() - began)} ms)\n`);
  } else if (command === 'stop') {
    const stopped = await stopStartedDockerEngine();
    process.stdout.write(
      stopped ? 'stopped the dockerd agentconf had started\n' : 'no dockerd of ours to stop\n',
    );
  } else {
    process.stderr.write('usage: docker-engine-cli.ts status|start|stop\n');
    process.exitCode = 2;
  }
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
