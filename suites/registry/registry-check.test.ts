import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, SPEC_PATH, sharedAvailable } from '../../protocol/test-support/shared-paths.ts';
import { runRegistryCheckCli } from './registry-check-cli.ts';
import { checkPassed, checkRegistry } from './registry-check.ts';
import { committedRegistry, REGISTRY_PATH } from './registry.ts';
import { extractSentences, sentenceFingerprint } from './spec-sentences.ts';

function run(argv: readonly string[]): { code: number; stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  const code = runRegistryCheckCli(argv, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  });
  return { code, stdout, stderr };
}

const scratch = mkdtempSync(join(tmpdir(), 'agentconf-registry-check-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function write(name: string, text: string): string {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

/** A small spec and a registry that covers it exactly. */
const TINY_SPEC = `<?xml version='1.0' encoding='UTF-8'?>
<xep>
<header><revision><version>0.0.5</version></revision></header>
<section1 topic='List' anchor='list-agents'>
  <p>Listing MUST support &xep0059; paging.</p>
  <example caption='x'><![CDATA[<iq type='get'/>]]></example>
</section1>
<section1 topic='Appendix' anchor='impl'>
  <p>This section is informative. Bridges MUST map things.</p>
</section1>
</xep>
`;

function tinyRegistry(sentences: readonly { anchor: string; text: string }[]): string {
  return JSON.stringify({
    spec: { title: 'T', version: '0.0.5' },
    fingerprint: 'sha-256, 12 hex digits',
    fixtures: { none: 'no fixture is used here at all' },
    requirements: sentences.map(({ anchor, text }, index) => ({
      id: `${anchor}.entry-${index}`,
      anchor,
      level: 'MUST',
      profiles: ['core-directory'],
      role: 'gateway',
      summary: 'A requirement written for the check tests.',
      testability: 'black-box',
      sources: [{ anchor, sentence: sentenceFingerprint(text) }],
    })),
  });
}

describe('registry:check on a small spec', () => {
  const spec = write('tiny.xml', TINY_SPEC);
  const registry = write(
    'tiny.json',
    tinyRegistry([{ anchor: 'list-agents', text: 'Listing MUST support XEP-0059 paging.' }]),
  );

  it('lets only an informativeSource entry cite a sentence of an informative section', () => {
    const informative = { anchor: 'impl', text: 'Bridges MUST map things.' };
    const entries = JSON.parse(
      tinyRegistry([{ anchor: 'list-agents', text: 'Listing MUST support XEP-0059 paging.' }, informative]),
    ) as { requirements: Record<string, unknown>[] };
    const plain = run(['--spec', spec, '--registry', write('plain.json', JSON.stringify(entries))]);
    expect(plain.stdout).toContain('STALE impl.entry-1 cites #impl');
    expect(plain.code).toBe(1);
    const marked = entries.requirements[1] ?? {};
    Object.assign(marked, {
      profiles: [],
      role: 'caller',
      assessments: ['mcp-bridge'],
      informativeSource: true,
    });
    const allowed = run(['--spec', spec, '--registry', write('marked.json', JSON.stringify(entries))]);
    expect(allowed.stdout).toContain(
      '1 in informative sections not required, 1 of them registered for an assessment',
    );
    expect(allowed.code).toBe(0);
  });

  it('passes when every normative sentence is registered, counting informative ones apart', () => {
    const { code, stdout } = run(['--spec', spec, '--registry', registry]);
    expect(stdout).toBe(
      'registry:check spec v0.0.5: 1 normative keyword sentences, all registered; 1 in informative sections not required, 0 of them registered for an assessment (#impl); ' +
        '1 requirements (MUST 1, SHOULD 0, MAY 0; black-box 1, needs-fixture 0, not-testable 0)\n',
    );
    expect(code).toBe(0);
  });

  it('fails on an added normative sentence, naming anchor, line, locator and sentence', () => {
    const added = write(
      'added.xml',
      TINY_SPEC.replace('paging.</p>', 'paging.\n  Items SHOULD carry names.</p>'),
    );
    const { code, stdout } = run(['--spec', added, '--registry', registry]);
    expect(code).toBe(1);
    expect(stdout).toContain(
      `UNREGISTERED #list-agents line 6 [SHOULD] {"anchor": "list-agents", "sentence": "${sentenceFingerprint('Items SHOULD carry names.')}"}\n    Items SHOULD carry names.\n`,
    );
    expect(stdout).toContain('1 unregistered, 0 stale citation(s)');
  });

  it('ignores keywords added to examples and informative sections', () => {
    const added = write(
      'examples.xml',
      TINY_SPEC.replace("<iq type='get'/>", "<iq type='get'/><!-- clients MUST NOT -->").replace(
        'map things.',
        'map things. Caches MUST NOT leak.',
      ),
    );
    expect(run(['--spec', added, '--registry', registry]).code).toBe(0);
  });

  it('reports a reworded sentence as unregistered, and its citation as stale with the candidate', () => {
    const reworded = write('reworded.xml', TINY_SPEC.replace('paging.', 'pages.'));
    const { code, stdout } = run(['--spec', reworded, '--registry', registry]);
    expect(code).toBe(1);
    expect(stdout).toContain('UNREGISTERED #list-agents line 5 [MUST]');
    expect(stdout).toContain(
      `STALE list-agents.entry-0 cites #list-agents ${sentenceFingerprint('Listing MUST support XEP-0059 paging.')}, which matches no normative sentence\n` +
        `    reworded? line 5 ${sentenceFingerprint('Listing MUST support XEP-0059 pages.')}: Listing MUST support XEP-0059 pages.\n`,
    );
  });

  it('fails on a stale entry even when every sentence is registered', () => {
    const stale = write(
      'stale.json',
      tinyRegistry([
        { anchor: 'list-agents', text: 'Listing MUST support XEP-0059 paging.' },
        { anchor: 'list-agents', text: 'A sentence the spec never had MUST fail.' },
        { anchor: 'impl', text: 'Bridges MUST map things.' },
      ]),
    );
    const { code, stdout } = run(['--spec', spec, '--registry', stale]);
    expect(code).toBe(1);
    expect(stdout).toContain('STALE list-agents.entry-1 cites #list-agents');
    // Informative sentences are not registrable: citing one is stale too.
    expect(stdout).toContain('STALE impl.entry-2 cites #impl');
    expect(stdout).toContain('0 unregistered, 2 stale citation(s)');
  });

  it('lists every keyword sentence with its locator', () => {
    const { code, stdout } = run(['--spec', spec, '--list']);
    expect(code).toBe(0);
    expect(stdout.split('\n')).toEqual([
      `list-agents\t${sentenceFingerprint('Listing MUST support XEP-0059 paging.')}\t5\tnormative\tMUST\tListing MUST support XEP-0059 paging.`,
      `impl\t${sentenceFingerprint('Bridges MUST map things.')}\t9\tinformative\tMUST\tBridges MUST map things.`,
      '',
    ]);
  });

  it('exits 2 on usage errors and unreadable or malformed inputs', () => {
    expect(run([])).toMatchObject({ code: 2, stderr: expect.stringContaining('missing --spec') as unknown });
    expect(run(['--spec', spec, '--bogus'])).toMatchObject({ code: 2 });
    expect(run(['--help'])).toMatchObject({ code: 0, stdout: expect.stringContaining('usage') as unknown });
    expect(run(['--spec', join(scratch, 'absent.xml')])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('cannot read spec') as unknown,
    });
    expect(run(['--spec', write('bad.xml', '<xep><p>MUST</xep>')])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('not well-formed') as unknown,
    });
    expect(run(['--spec', spec, '--registry', join(scratch, 'absent.json')])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('cannot load the registry') as unknown,
    });
    expect(run(['--spec', spec, '--registry', write('bad.json', '{"spec": 1}')])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('problem(s) in the requirement registry') as unknown,
    });
  });

  it('runs as the npm script entry point and sets the exit status', async () => {
    const entry = promisify(execFile)(
      process.execPath,
      ['bin/run-ts.js', 'suites/registry/registry-check-cli.ts', '--spec', spec, '--registry', registry],
      { cwd: REPO_ROOT },
    );
    await expect(entry).resolves.toMatchObject({
      stdout: expect.stringContaining('all registered') as unknown,
    });
    const failing = promisify(execFile)(
      process.execPath,
      [
        'bin/run-ts.js',
        'suites/registry/registry-check-cli.ts',
        '--spec',
        write('entry.xml', TINY_SPEC.replace('paging.', 'pages.')),
        '--registry',
        registry,
      ],
      { cwd: REPO_ROOT },
    );
    await expect(failing).rejects.toMatchObject({ code: 1 });
  });
});

describe.skipIf(!sharedAvailable(SPEC_PATH, 'registry:check against the real spec'))(
  'registry:check on the real spec',
  () => {
    const specText = (): string => readFileSync(SPEC_PATH, 'utf8');

    it('passes: every normative sentence registered, no stale citation', () => {
      const report = checkRegistry(extractSentences(specText()), committedRegistry());
      expect(report.unregistered.map((sentence) => `#${sentence.anchor} line ${sentence.line}`)).toEqual([]);
      expect(report.stale).toEqual([]);
      expect(checkPassed(report)).toBe(true);
      expect(report.specVersion).toBe(committedRegistry().specVersion);
    });

    it('finds all 377 keyword occurrences of v0.0.5 in prose', () => {
      const { sentences, keywordsInSkippedBlocks } = extractSentences(specText());
      expect(
        sentences.reduce((sum, sentence) => sum + sentence.keywords.length, 0) + keywordsInSkippedBlocks,
      ).toBe([...specText().matchAll(/\b(?:MUST|REQUIRED|SHALL|SHOULD|RECOMMENDED|MAY|OPTIONAL)\b/g)].length);
    });

    it('fails when a normative sentence is added to a copy of the spec', () => {
      const copy = write(
        'spec-copy.xml',
        specText().replace(
          'The gateway MUST apply its visibility policy before returning items.',
          'The gateway MUST apply its visibility policy before returning items. Each page SHOULD also carry a timestamp.',
        ),
      );
      const { code, stdout } = run(['--spec', copy, '--registry', REGISTRY_PATH]);
      expect(code).toBe(1);
      expect(stdout).toMatch(
        /^UNREGISTERED #list-agents line \d+ \[SHOULD\] .*\n {4}Each page SHOULD also carry a timestamp\.\n/,
      );
      expect(stdout).toContain('1 unregistered, 0 stale citation(s)');
    });

    it('fails when a registered sentence is reworded in a copy of the spec', () => {
      const copy = write(
        'spec-reworded.xml',
        specText().replace(
          'Directory listing MUST support &xep0059;.',
          'Directory listing MUST support &xep0059; paging.',
        ),
      );
      const { code, stdout } = run(['--spec', copy]);
      expect(code).toBe(1);
      expect(stdout).toContain('STALE list-agents.rsm-paging cites #list-agents');
      expect(stdout).toContain('reworded? line');
    });
  },
);
