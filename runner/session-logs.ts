/** The gateway's output and the servers' logs of a session, kept as files beside the reports. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Federation } from '../harness/federation/server-provider.ts';
import { stripTerminalEscapes } from '../harness/sut/process-output.ts';
import type { SutInstance } from '../harness/sut/launch.ts';

/**
 * Writes the launched gateway's output (gateway.log, once launched) and each server's log
 * (server-a.log, …) into `dir`, terminal escapes and the component secret removed; returns the
 * files written.
 */
export async function keepLogs(
  dir: string,
  federation: Federation,
  sut: SutInstance | undefined,
): Promise<string[]> {
  const files: [string, string][] = [];
  if (sut?.process !== undefined) files.push(['gateway.log', sut.process.output]);
  for (const server of Object.values(federation.servers)) {
    const text = await server.readLog().catch(() => '');
    if (text !== '') files.push([`server-${server.role}.log`, text]);
  }
  if (files.length > 0) await mkdir(dir, { recursive: true });
  const secret = federation.component.secret;
  const written: string[] = [];
  for (const [name, text] of files) {
    const path = join(dir, name);
    const clean = stripTerminalEscapes(text);
    await writeFile(path, secret === '' ? clean : clean.replaceAll(secret, '[component secret]'));
    written.push(path);
  }
  return written;
}

/** The logs of a start that failed, kept in `dir` before the teardown removes them; never throws. */
export async function keepLogsOfFailedStart(
  dir: string | undefined,
  federation: Federation,
  sut: SutInstance | undefined,
  log: (line: string) => void,
): Promise<string[]> {
  if (dir === undefined) return [];
  try {
    return await keepLogs(dir, federation, sut);
  } catch (error) {
    log(`the logs could not be kept: ${error instanceof Error ? error.message : String(error)}`);
    return [];
  }
}
