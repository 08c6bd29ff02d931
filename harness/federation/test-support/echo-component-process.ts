import type { ManagedProcess } from '../../faults/managed-process.ts';
import type { Federation } from '../server-provider.ts';
import { startTsProcess } from './run-ts-process.ts';

/**
 * The echo component as a child process, connected through the component link's proxy;
 * `notify` as in echo-component.ts.
 */
export async function startEchoComponentProcess(
  federation: Federation,
  options: { readonly notify?: boolean } = {},
): Promise<ManagedProcess> {
  const { component } = federation;
  const child = await startTsProcess(
    'echo component',
    new URL('./echo-component-main.ts', import.meta.url),
    [],
    {
      ECHO_HOST: component.host,
      ECHO_PORT: String(component.port),
      ECHO_DOMAIN: component.domain,
      ECHO_SECRET: component.secret,
      ECHO_NOTIFY: options.notify === true ? '1' : '0',
    },
  );
  await child.waitForOutput('online', 20_000);
  return child;
}
