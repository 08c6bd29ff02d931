// Issue 14, item 7: the spec's minimal manifest checked live against its literal hash
// (K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=). It is weather@agents.example 1.4.0, the slot the
// reference world gives the spec's full example (interp-01), so against that world
// canonical-json.spec-minimal-manifest can only check that the occupied version stays immutable.
// Here the reference gateway runs a copy of the reference world without weather 1.4.0: the case
// registers the minimal manifest as the spec prints it, activates it, and reads the literal back
// from <registered/>, registration-status, the endpoint form and the served manifest.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/test-support/run-cli.ts';
import { REPO_ROOT } from '../harness/repo-root.ts';
import type { RunResult } from '../runner/run-result.ts';
import { SPEC_MINIMAL_MANIFEST_HASH } from '../suites/sections/canonical-json/hash-vectors.ts';
import { RUN_TIMEOUT_MS } from './variants/use-variant-run.ts';

interface WorldFile {
  endpoints: { jid: string; versions: { file?: string }[]; active?: string }[];
  [member: string]: unknown;
}

const CASE_ID = 'canonical-json.spec-minimal-manifest';

/** The reference world with weather@agents.example at 2.0.0 only, manifest paths made absolute. */
function worldWithoutWeather140(folder: string): string {
  const source = join(REPO_ROOT, 'fixtures', 'worlds', 'reference.json');
  const world = JSON.parse(readFileSync(source, 'utf8')) as WorldFile;
  for (const endpoint of world.endpoints) {
    for (const version of endpoint.versions) {
      if (version.file !== undefined) version.file = resolve(dirname(source), version.file);
    }
    if (endpoint.jid === 'weather@agents.example') {
      endpoint.versions = endpoint.versions.filter((version) => version.file?.endsWith('weather-2.0.0.json'));
      endpoint.active = '2.0.0';
    }
  }
  const path = join(folder, 'world-without-weather-1.4.0.json');
  writeFileSync(path, `${JSON.stringify(world, null, 2)}\n`);
  return path;
}

describe("the spec's minimal manifest where weather@agents.example 1.4.0 is free", () => {
  let folder: string;
  let result: RunResult | undefined;
  let output = '';

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'agentconf-minimal-'));
    const out = join(folder, 'out');
    const world = worldWithoutWeather140(folder);
    const run = await runCli([
      'run',
      '--provider',
      'native',
      '--world',
      world,
      '--grep',
      CASE_ID,
      '--out',
      out,
    ]);
    output = `${run.stdout}\n${run.stderr}`;
    result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as RunResult;
  }, RUN_TIMEOUT_MS);

  afterAll(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  it('registers it under the literal K2/… and serves it under that hash', () => {
    const outcome = result?.cases.find((entry) => entry.case.id === CASE_ID);
    expect(outcome?.outcome, output).toBe('passed');
    const transcript = outcome?.attempts.at(-1)?.transcriptText ?? '';
    // The literal came back from the gateway, not only from the suite: in <registered/>, the
    // endpoint form and the manifest result.
    const received = transcript.split('\n').filter((line) => line.includes('RECV'));
    expect(
      received.some((line) => line.includes('<registered') && line.includes(SPEC_MINIMAL_MANIFEST_HASH)),
    ).toBe(true);
    expect(
      received.some(
        (line) => line.includes('manifest_hash_value') && line.includes(SPEC_MINIMAL_MANIFEST_HASH),
      ),
    ).toBe(true);
    expect(
      received.some((line) => line.includes('<manifest ') && line.includes(SPEC_MINIMAL_MANIFEST_HASH)),
    ).toBe(true);
  });
});
