// The echo component as a process of its own (so that tests can kill -9 it). Configured by
// environment: ECHO_HOST, ECHO_PORT, ECHO_DOMAIN, ECHO_SECRET, and ECHO_NOTIFY=1 for the `notify`
// option. Prints "online" once connected.
import { startEchoComponent } from './echo-component.ts';

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
}

await startEchoComponent({
  host: required('ECHO_HOST'),
  port: Number(required('ECHO_PORT')),
  domain: required('ECHO_DOMAIN'),
  secret: required('ECHO_SECRET'),
  notify: process.env['ECHO_NOTIFY'] === '1',
});
process.stdout.write('online\n');
