import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readXml } from '../protocol/xml/read-xml.ts';
import { writeNotRunStatement } from './not-run-statement.ts';

describe('writeNotRunStatement', () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('leaves a JUnit file a CI job can read, naming why nothing ran', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentconf-not-run-'));
    made.push(dir);
    const reason = 'the gateway exited with code 1 before connecting: <conflict/> & "more"\u0001';
    const written = writeNotRunStatement(dir, {
      runId: 'run-1',
      startedAt: '2026-12-04T00:00:00.000Z',
      suiteVersion: '0.1.0',
      specRevision: '0.0.5',
      gateway: 'example gateway',
      outcome: 'could-not-start',
      reason,
      logs: [join(dir, 'logs', 'gateway.log')],
    });
    expect(written.map((path) => path.slice(dir.length + 1))).toEqual([
      'conformance.md',
      'not-run.json',
      'junit.xml',
    ]);
    const junit = readXml(readFileSync(join(dir, 'junit.xml'), 'utf8'));
    expect(junit.root.name).toBe('testsuites');
    expect(junit.root.attributes.find((attribute) => attribute.name === 'errors')?.value).toBe('1');
    const error = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(error).toContain("<error type='could-not-start' message='NOT RUN: the run could not start'>");
    expect(error).toContain('&lt;conflict/&gt; &amp; "more"\\u{1}');
    expect(readFileSync(join(dir, 'conformance.md'), 'utf8')).toContain(
      '[logs/gateway.log](logs/gateway.log)',
    );
  });
});
