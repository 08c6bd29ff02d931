/** Entry point of `npm run artifacts:check`; see artifacts-cli.ts. */
import { runArtifactsCli } from './artifacts-cli.ts';

process.exitCode = await runArtifactsCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
