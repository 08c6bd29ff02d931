// A process that starts a container federation, reports what it created, then ends the way
// argv[2] says (see federation-child.ts): so that tests can check that no container or network
// outlives it, however it ends.
//   throw : an uncaught exception (after SIGUSR2)
//   wait  : nothing; the test sends it a signal (SIGINT, SIGKILL, …)
import { containerProvider } from '../container-provider.ts';

const ending = process.argv[2] ?? 'wait';
const federation = await containerProvider.start();
process.stdout.write(
  `${JSON.stringify({
    runId: federation.runId,
    network: federation.networkName,
    runDir: federation.runDir,
  })}\n`,
);

const alive = setInterval(() => undefined, 60_000);
process.once('SIGUSR2', () => {
  clearInterval(alive);
  if (ending === 'throw') throw new Error('deliberate uncaught exception');
});
