// A process that starts a federation, reports what it started, then ends the way argv[2] says —
// so that tests can check that no server outlives it, however it ends. It keeps running until the
// test has looked at the servers: SIGUSR2 triggers the ending ('throw' and 'reject'), or the test
// sends the fatal signal itself ('wait').
//   throw  : an uncaught exception
//   reject : an unhandled promise rejection
//   wait   : nothing; the test sends it a signal
import { nativeProvider } from '../native-provider.ts';

const ending = process.argv[2] ?? 'wait';
const federation = await nativeProvider.start();
const servers = [federation.servers.a, federation.servers.b];
// The handler is in place before the report goes out: the test signals as soon as it reads the
// report, and a SIGUSR2 arriving before the handler would kill this process by default instead.
const alive = setInterval(() => undefined, 60_000);
process.once('SIGUSR2', () => {
  clearInterval(alive);
  if (ending === 'throw') throw new Error('deliberate uncaught exception');
  if (ending === 'reject') void Promise.reject(new Error('deliberate unhandled rejection'));
});
process.stdout.write(
  `${JSON.stringify({
    pids: servers.map((server) => server.pid),
    runDir: federation.runDir,
    proxy: federation.links.s2sAToB.listen,
  })}\n`,
);
