// Names and passwords of the accounts the harness creates, whatever the server.
import { randomBytes } from 'node:crypto';

/** Local parts we create: already in nodeprep form, so that the file name is the one Prosody looks up. */
const USERNAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export function assertUsername(username: string): void {
  if (!USERNAME.test(username)) {
    throw new Error(`account name ${JSON.stringify(username)} must match ${String(USERNAME)}`);
  }
}

/** A password that needs no SASLprep and no escaping anywhere. */
export function generatePassword(): string {
  return randomBytes(12).toString('base64url');
}
