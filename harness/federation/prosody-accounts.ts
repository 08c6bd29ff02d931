// Prosody accounts written straight into its data directory (what `prosodyctl register` would
// write, without a Lua process per account). Format of Prosody 0.12's internal_hashed provider:
// <data_path>/<host>/accounts/<user>.dat, a Lua chunk returning the SCRAM-SHA-1 credentials with
// hex StoredKey/ServerKey; host and user are encoded by util.datamanager (every non-alphanumeric
// byte becomes %xx, so "example.com" is "example%2ecom").
import { createHash, createHmac, pbkdf2, pbkdf2Sync, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { assertUsername } from './account-credentials.ts';
import { luaString } from './lua-string.ts';

/**
 * SCRAM iterations of every account the harness writes (and Prosody's default_iteration_count):
 * 4096, the count RFC 5802's example and RFC 7677 name as the floor, which standard clients
 * (aiosasl, nbxmpp, slixmpp) require. The harness's own clients derive the key with Node's native
 * PBKDF2 (harness/driver/scram-sha-1.ts), so a login costs milliseconds, not a JavaScript loop.
 */
export const SCRAM_ITERATION_COUNT = 4096;

export interface ScramSha1Keys {
  /** Hex, lower case, as Prosody stores them. */
  readonly storedKey: string;
  readonly serverKey: string;
}

export interface ScramSha1Credentials extends ScramSha1Keys {
  readonly salt: string;
  readonly iterationCount: number;
}

/** RFC 5802 key derivation (our passwords are ASCII, which SASLprep leaves unchanged). */
export function scramSha1Keys(
  password: string,
  salt: string | Uint8Array,
  iterationCount: number,
): ScramSha1Keys {
  return keysOf(pbkdf2Sync(password, salt, iterationCount, 20, 'sha1'));
}

/**
 * scramSha1Keys off the event loop: a run writes a dozen accounts before the gateway it starts
 * alongside the servers can be launched, and 4096 PBKDF2 rounds each, in one thread, held that
 * launch back by about 25 ms (2-core machine).
 */
export async function scramSha1KeysAsync(
  password: string,
  salt: string | Uint8Array,
  iterationCount: number,
): Promise<ScramSha1Keys> {
  return keysOf(await promisify(pbkdf2)(password, salt, iterationCount, 20, 'sha1'));
}

function keysOf(salted: Buffer): ScramSha1Keys {
  const clientKey = createHmac('sha1', salted).update('Client Key').digest();
  return {
    storedKey: createHash('sha1').update(clientKey).digest('hex'),
    serverKey: createHmac('sha1', salted).update('Server Key').digest('hex'),
  };
}

/** util.datamanager's path component encoding. */
export function encodeDataPathComponent(value: string): string {
  return value.replace(/[^A-Za-z0-9]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

export function accountFilePath(dataPath: string, host: string, username: string): string {
  return join(
    dataPath,
    encodeDataPathComponent(host),
    'accounts',
    `${encodeDataPathComponent(username)}.dat`,
  );
}

export function renderAccountFile(credentials: ScramSha1Credentials): string {
  return [
    'return {',
    `\t["iteration_count"] = ${credentials.iterationCount};`,
    `\t["salt"] = ${luaString(credentials.salt)};`,
    `\t["server_key"] = ${luaString(credentials.serverKey)};`,
    `\t["stored_key"] = ${luaString(credentials.storedKey)};`,
    '};',
    '',
  ].join('\n');
}

/**
 * Writes (or replaces) an account. The rename makes the file appear whole, so a running server
 * never reads half of it; Prosody 0.12 reads account files on every login, no restart needed.
 */
export async function writeProsodyAccount(
  dataPath: string,
  host: string,
  username: string,
  password: string,
  iterationCount: number,
): Promise<void> {
  assertUsername(username);
  const path = accountFilePath(dataPath, host, username);
  await mkdir(join(dataPath, encodeDataPathComponent(host), 'accounts'), { recursive: true, mode: 0o750 });
  const temporary = `${path}.${randomUUID()}.tmp`;
  // Prosody's own salts are UUID strings too.
  const salt = randomUUID();
  const credentials = { salt, iterationCount, ...(await scramSha1KeysAsync(password, salt, iterationCount)) };
  await writeFile(temporary, renderAccountFile(credentials), { mode: 0o640 });
  await rename(temporary, path);
}
