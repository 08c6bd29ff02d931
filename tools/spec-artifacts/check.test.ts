import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalDocument, canonicalJson } from '../../protocol/json/canonical.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { REPO_ROOT, SPEC_PATH, sharedAvailable } from '../../protocol/test-support/shared-paths.ts';
import { checkArtifacts, checkArtifactTexts } from './check.ts';
import { exampleArtifact, type Finding } from './finding.ts';
import type { KnownSpecDefect } from './known-defects.ts';
import { readCommittedArtifacts, SPEC_ARTIFACTS, XSD_AGENT_TASK_PATH } from './spec-artifacts.ts';

const committed = readCommittedArtifacts(REPO_ROOT);
const failures = (findings: readonly Finding[]): Finding[] =>
  findings.filter((finding) => finding.severity === 'fail');
const brief = (findings: readonly Finding[]): string[] =>
  findings.map((finding) => `${finding.rule} | ${finding.artifact} | ${finding.subject}`);

const HASHES = `xmlns='urn:xmpp:hashes:2'`;
const API = `xmlns='urn:xmpp:agent-api:0'`;
const TASK = `xmlns='urn:xmpp:agent-task:0'`;
const TASK_ID = 'task-0123456789abcdefghijkl';

const manifest = {
  manifestSpecVersion: '0',
  agent: { jid: 'echo@agents.example', name: 'echo', version: '1', description: 'Echoes.' },
  tools: [{ name: 'echo', inputSchema: { type: 'object' } }],
};
const hashOf = (value: JsonValue): string => canonicalDocument(value).hash.value;
const MANIFEST_HASH = hashOf(manifest);
const SCHEMA_HASH = hashOf(manifest.tools[0]?.inputSchema ?? null);
const hash = (value: string, algo = 'sha-256'): string => `<hash ${HASHES} algo='${algo}'>${value}</hash>`;

type SyntheticExamples = Readonly<Record<string, string>>;

/** Coherent examples exercising every rule; tests break one thing at a time. */
const GOOD_EXAMPLES: SyntheticExamples = {
  'Full manifest': JSON.stringify(manifest, null, 2),
  Register: `
<iq type='set' id='r1'>
  <register ${API}><manifest media-type='application/json'>${JSON.stringify(manifest)}</manifest></register>
</iq>
<iq type='result' id='r1'>
  <registered ${API} jid='echo@agents.example' version='1'>${hash(MANIFEST_HASH)}</registered>
</iq>`,
  Serve: `
<iq type='result' id='m1'>
  <manifest ${API} media-type='application/json' version='1'>
    ${hash(MANIFEST_HASH)}
    <json>${canonicalJson(manifest)}</json>
  </manifest>
</iq>`,
  Schema: `
<iq type='result' id='s1'>
  <schema ${API} direction='input' media-type='application/schema+json' tool='echo' version='1'>
    <manifest-hash>${hash(MANIFEST_HASH)}</manifest-hash>
    <schema-hash>${hash(SCHEMA_HASH)}</schema-hash>
    <json>{"type":"object"}</json>
  </schema>
</iq>`,
  Invoke: `
<iq type='set' id='i1'>
  <invoke ${TASK} api-version='1' request-id='req-0123456789abcdefghijkl' tool='echo'>
    <manifest-hash>${hash(MANIFEST_HASH)}</manifest-hash>
    <arguments media-type='application/json'>{"text":"hi"}</arguments>
  </invoke>
</iq>`,
  Forms: `
<iq type='result' id='d1'>
  <query xmlns='http://jabber.org/protocol/disco#info'>
    <x xmlns='jabber:x:data' type='result'>
      <field type='hidden' var='FORM_TYPE'><value>urn:xmpp:agent-endpoint-info:0</value></field>
      <field var='description'><value>Echoes.</value></field>
      <field var='version'><value>1</value></field>
      <field var='manifest_hash_algo'><value>sha-256</value></field>
      <field var='manifest_hash_value'><value>${MANIFEST_HASH}</value></field>
    </x>
    <x xmlns='jabber:x:data' type='result'>
      <field type='hidden' var='FORM_TYPE'><value>urn:xmpp:agent-tool-info:0</value></field>
      <field var='name'><value>echo</value></field>
      <field var='api_version'><value>1</value></field>
      <field var='input_schema_hash_algo'><value>sha-256</value></field>
      <field var='input_schema_hash_value'><value>${SCHEMA_HASH}</value></field>
    </x>
  </query>
</iq>`,
  Completed: `
<message type='normal'>
  <event ${TASK} event-id='evt-0123456789abcdefghijkl' revision='2' task-id='${TASK_ID}' type='completed'>
    {"result":{"content":[]},"summary":"done"}
  </event>
</message>
<iq type='result' id='t1'>
  <task-result ${TASK} media-type='application/json' revision='2' state='completed' task-id='${TASK_ID}'>{"summary":"done","result":{"content":[]}}</task-result>
</iq>`,
};

function syntheticSpec(examples: SyntheticExamples, blocks: ReadonlyMap<string, string> = committed): string {
  const code = SPEC_ARTIFACTS.map(
    (artifact) =>
      `  <code caption='${artifact.caption}'><![CDATA[${blocks.get(artifact.path) ?? ''}]]></code>`,
  );
  const exampleBlocks = Object.entries(examples).map(
    ([caption, text]) => `  <example caption='${caption}'><![CDATA[${text}\n]]></example>`,
  );
  return [
    `<?xml version='1.0' encoding='UTF-8'?>`,
    `<!DOCTYPE xep SYSTEM 'xep.dtd' [ <!ENTITY % ents SYSTEM 'xep.ent'> %ents; ]>`,
    `<xep><header><revision><version>9.9</version></revision></header>`,
    `<section1 topic='Examples' anchor='examples'>`,
    `  <p>Prose with &xep0300; references.</p>`,
    ...exampleBlocks,
    `</section1>`,
    `<section1 topic='Artifacts' anchor='artifacts'>`,
    ...code,
    `</section1></xep>`,
    '',
  ].join('\n');
}

/** The real spec's defect baseline and vectors name its examples; synthetic specs have none. */
const SYNTHETIC = { knownDefects: [], hashVectors: [] } as const;

function check(examples: SyntheticExamples, blocks?: ReadonlyMap<string, string>): Promise<Finding[]> {
  return checkArtifactTexts(syntheticSpec(examples, blocks), committed, SYNTHETIC);
}

function withExample(caption: string, edit: (text: string) => string): SyntheticExamples {
  const text = GOOD_EXAMPLES[caption];
  if (text === undefined) throw new Error(`no example ${caption}`);
  const edited = edit(text);
  if (edited === text) throw new Error(`edit of ${caption} changed nothing`);
  return { ...GOOD_EXAMPLES, [caption]: edited };
}

describe('checkArtifactTexts on a synthetic spec', () => {
  it('passes coherent examples and exercises every example rule', async () => {
    const findings = await check(GOOD_EXAMPLES);
    expect(brief(failures(findings))).toEqual([]);
    const rules = new Set(findings.map((finding) => finding.rule));
    for (const rule of [
      'spec-block',
      'artifact-match',
      'artifact-syntax',
      'example-xml',
      'example-json',
      'example-xsd',
      'hash-self',
      'manifest-identity',
      'manifest-pin',
      'schema-pin',
      'task-result-payload',
    ] as const) {
      expect(rules, rule).toContain(rule);
    }
    // register, registered, manifest, schema, invoke, event, task-result
    expect(findings.filter((finding) => finding.rule === 'example-xsd')).toHaveLength(7);
    expect(findings.filter((finding) => finding.rule === 'manifest-pin')).toHaveLength(5);
  });

  it('fails a <registered/> hash that is not the hash of the registered manifest', async () => {
    const wrong = hashOf({ other: true });
    const findings = await check(withExample('Register', (text) => text.replace(MANIFEST_HASH, wrong)));
    expect(brief(failures(findings))).toEqual([
      `hash-self | ${exampleArtifact('Register')} | <registered/> hash of <register/> manifest`,
      `manifest-pin | ${exampleArtifact('Register')} | <registered/> hash: unknown manifest`,
    ]);
    expect(failures(findings)[0]?.details).toContain(`but the canonical bytes hash to ${MANIFEST_HASH}`);
  });

  it('fails served JSON that is not the canonical text, even when the hash fits', async () => {
    const findings = await check(
      withExample('Serve', (text) =>
        text.replace(canonicalJson(manifest), JSON.stringify(manifest, null, 1)),
      ),
    );
    expect(brief(failures(findings))).toEqual([
      `hash-self | ${exampleArtifact('Serve')} | <manifest/> <json/> is canonical`,
    ]);
  });

  it('fails pins whose manifest lacks the tool, differs in version, or uses another algorithm', async () => {
    const findings = await check({
      ...withExample('Invoke', (text) => text.replace("tool='echo'", "tool='missing'")),
      Schema: GOOD_EXAMPLES['Schema']?.replace(`version='1'`, `version='2'`) ?? '',
      Activate: `<activate ${API} jid='echo@agents.example' version='1'>${hash(MANIFEST_HASH, 'sha-1')}</activate>`,
    });
    expect(brief(failures(findings))).toEqual([
      `manifest-pin | ${exampleArtifact('Schema')} | <schema/> manifest-hash: version 2`,
      `manifest-pin | ${exampleArtifact('Invoke')} | <invoke/> manifest-hash: tool missing`,
      `manifest-pin | ${exampleArtifact('Activate')} | <activate/> hash: algo`,
      `schema-pin | ${exampleArtifact('Schema')} | <schema/> schema-hash`,
    ]);
  });

  it('fails form fields that contradict the pinned manifest or its schemas', async () => {
    const findings = await check(
      withExample('Forms', (text) =>
        text
          .replace('<value>Echoes.</value>', '<value>Other.</value>')
          .replace(`<value>${SCHEMA_HASH}</value>`, `<value>${MANIFEST_HASH}</value>`),
      ),
    );
    expect(brief(failures(findings))).toEqual([
      `manifest-pin | ${exampleArtifact('Forms')} | urn:xmpp:agent-endpoint-info:0 manifest_hash_value: description`,
      `schema-pin | ${exampleArtifact('Forms')} | urn:xmpp:agent-tool-info:0 input_schema_hash_value`,
    ]);
  });

  it('fails two manifests for one (jid, version)', async () => {
    const findings = await check({
      ...GOOD_EXAMPLES,
      'Second manifest': JSON.stringify({ ...manifest, tools: [] }),
    });
    expect(brief(failures(findings))).toEqual(['manifest-identity | spec | echo@agents.example 1']);
    expect(failures(findings)[0]?.details).toContain('pinned nowhere');
  });

  it('fails a task-result that differs from the terminal event of the same revision', async () => {
    const findings = await check(withExample('Completed', (text) => text.replace('{"summary":"done",', '{')));
    expect(brief(failures(findings))).toEqual([
      `task-result-payload | ${exampleArtifact('Completed')} | task ${TASK_ID} revision 2`,
    ]);
  });

  it('fails malformed XML, XSD-invalid payloads and rejected JSON, pointing at spec lines', async () => {
    const findings = await check({
      ...withExample('Invoke', (text) => text.replace(" request-id='req-0123456789abcdefghijkl'", '')),
      Broken: '\n<iq>\n  <oops>\n</iq>',
      'Duplicate member': `<message><event ${TASK} event-id='evt-0123456789abcdefghijkl' revision='1' task-id='${TASK_ID}' type='progress'>\n{"percent":1,\n"percent":2}</event></message>`,
    });
    const failed = failures(findings);
    expect(brief(failed)).toEqual([
      `example-xml | ${exampleArtifact('Broken')} | xml`,
      `example-json | ${exampleArtifact('Duplicate member')} | event`,
      `example-xsd | ${exampleArtifact('Invoke')} | <invoke/> at example line 3`,
    ]);
    const spec = syntheticSpec(GOOD_EXAMPLES).split('\n');
    const invokeLine = spec.findIndex((line) => line.includes("<example caption='Invoke'")) + 3;
    expect(failed[2]?.specLine).toBe(invokeLine);
    expect(failed[2]?.details).toContain("'request-id' is required");
    expect(failed[1]?.details).toContain('duplicate-member');
    expect(failed[0]?.details).toContain('</iq> closes <oops>');
  });

  it('checks independent hash vectors and fails those that do not reproduce or cannot be found', async () => {
    const vector = {
      label: 'echo input schema',
      caption: 'Full manifest',
      site: 'example',
      pointer: '/tools/0/inputSchema',
    };
    const findings = await checkArtifactTexts(syntheticSpec(GOOD_EXAMPLES), committed, {
      ...SYNTHETIC,
      hashVectors: [
        { ...vector, expected: SCHEMA_HASH },
        { ...vector, label: 'wrong', expected: MANIFEST_HASH },
        { ...vector, label: 'absent', pointer: '/tools/1' },
      ].map((entry) => ({ expected: SCHEMA_HASH, ...entry })),
    });
    expect(findings.filter((finding) => finding.rule === 'hash-vector')).toMatchObject([
      { severity: 'ok', subject: 'echo input schema' },
      {
        severity: 'fail',
        subject: 'wrong',
        details: `hashes to ${SCHEMA_HASH}, vector expects ${MANIFEST_HASH}`,
      },
      { severity: 'fail', subject: 'absent', details: 'no JSON at example/tools/1 to check' },
    ]);
  });

  it('classifies known defects and fails stale ones', async () => {
    const knownDefects: KnownSpecDefect[] = [
      {
        position: 1,
        slug: 'ex-manifest-hash',
        rule: 'manifest-pin',
        artifact: exampleArtifact('Invoke'),
        subject: '<invoke/> manifest-hash: tool missing',
      },
      {
        position: 3,
        slug: 'ex-task-result-summary',
        rule: 'task-result-payload',
        artifact: 'spec',
        subject: 'gone',
      },
    ];
    const spec = syntheticSpec(
      withExample('Invoke', (text) => text.replace("tool='echo'", "tool='missing'")),
    );
    const findings = await checkArtifactTexts(spec, committed, { ...SYNTHETIC, knownDefects });
    expect(findings.filter((finding) => finding.severity === 'spec-defect')).toMatchObject([
      { rule: 'manifest-pin', position: 1 },
    ]);
    expect(brief(failures(findings))).toEqual(['stale-known-defect | spec | task-result-payload: gone']);
  });
});

describe('committed artifact rules', () => {
  it('fails a committed artifact that differs and names the first differing spec line', async () => {
    const xsd = committed.get(XSD_AGENT_TASK_PATH) ?? '';
    const altered = new Map(committed).set(XSD_AGENT_TASK_PATH, xsd.replace('{22,128}', '{22,64}'));
    const spec = syntheticSpec(GOOD_EXAMPLES);
    const findings = await checkArtifactTexts(spec, altered, SYNTHETIC);
    const [failure, ...rest] = failures(findings);
    expect(rest).toEqual([]);
    expect(failure).toMatchObject({ rule: 'artifact-match', artifact: XSD_AGENT_TASK_PATH });
    expect(failure?.details).toContain('{22,128}');
    const lines = spec.split('\n');
    expect(lines[(failure?.specLine ?? 0) - 1]).toContain('{22,128}');
  });

  it('passes whitespace-only differences and fails missing files', async () => {
    const reformatted = new Map(
      // No blank lines before an XML declaration: that would make the file itself ill-formed.
      [...committed].map(([path, text]) => [
        path,
        `${path.endsWith('.json') ? '\n\n' : ''}${text.replace(/\n/g, '  \r\n')}\r\n\r\n`,
      ]),
    );
    reformatted.delete('fixtures/forms/tool-info.form.xml');
    const findings = await checkArtifactTexts(syntheticSpec(GOOD_EXAMPLES), reformatted, SYNTHETIC);
    expect(brief(failures(findings))).toEqual(['artifact-match | fixtures/forms/tool-info.form.xml | file']);
  });

  it('fails a spec with a missing or duplicated block, and artifacts that are not well-formed', async () => {
    const blocks = new Map(committed);
    const manifestSchema = 'fixtures/schemas/manifest.schema.json';
    blocks.set(manifestSchema, `{"a":1,"a":2}`);
    const spec = syntheticSpec(GOOD_EXAMPLES, blocks).replace(
      `caption='Endpoint information form registration'`,
      `caption='Tool information form registration'`,
    );
    const findings = await checkArtifactTexts(spec, blocks, SYNTHETIC);
    expect(brief(failures(findings))).toEqual([
      `artifact-syntax | ${manifestSchema} | json-schema`,
      'spec-block | spec | Endpoint information form registration',
      'spec-block | spec | Tool information form registration',
    ]);
  });

  it('fails XSDs that do not compile, without crashing', async () => {
    const broken = new Map(committed);
    broken.set(
      XSD_AGENT_TASK_PATH,
      (committed.get(XSD_AGENT_TASK_PATH) ?? '').replace(`type='identifier'`, `type='nope'`),
    );
    const findings = await checkArtifactTexts(syntheticSpec(GOOD_EXAMPLES, broken), broken, SYNTHETIC);
    expect(brief(failures(findings))).toEqual([
      `artifact-syntax | xsd/agent-api.xsd + ${XSD_AGENT_TASK_PATH} | xsd`,
    ]);
    expect(failures(findings)[0]?.details).toContain('failed to compile');
  });

  it('fails a spec that is not well-formed XML', async () => {
    const findings = await checkArtifactTexts('<xep><section1></xep>', committed);
    expect(findings).toMatchObject([{ severity: 'fail', rule: 'spec-xml', specLine: 1 }]);
  });
});

describe.skipIf(!sharedAvailable(SPEC_PATH, 'artifact check against the real spec'))(
  'against the real spec',
  () => {
    // Read when the block runs, not when it is collected: collection happens even when skipped.
    let specText = '';
    beforeAll(() => {
      specText = readFileSync(SPEC_PATH, 'utf8');
    });
    const temporaryRoots: string[] = [];
    afterAll(() => {
      for (const root of temporaryRoots) rmSync(root, { recursive: true, force: true });
    });

    function temporaryRepo(edit: (path: string, text: string) => string = (_path, text) => text): string {
      const root = mkdtempSync(join(tmpdir(), 'agentconf-artifacts-'));
      temporaryRoots.push(root);
      for (const [path, text] of committed) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), edit(path, text));
      }
      return root;
    }

    it('passes, reporting exactly the known spec defects #1 and #3', async () => {
      const findings = await checkArtifacts(specText, REPO_ROOT);
      expect(brief(failures(findings))).toEqual([]);
      const defects = findings.filter((finding) => finding.severity === 'spec-defect');
      expect(defects.map((finding) => finding.position)).toEqual([1, 1, 1, 1, 1, 1, 3]);
      const vectors = findings.filter((finding) => finding.rule === 'hash-vector');
      expect(vectors.map((finding) => `${finding.severity} ${finding.details}`)).toEqual([
        'ok hashes to K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=',
        'ok hashes to K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=',
        'ok hashes to XxGP62PwgOW9NLxx8ysunvuijMhSd0y4j1SSRTAbt7c=',
        'ok hashes to fFqwrKetRrAKF1IPjZ8z2G6O6OKLd5RwO0DG0RtyDhg=',
        'ok hashes to XxGP62PwgOW9NLxx8ysunvuijMhSd0y4j1SSRTAbt7c=',
        'ok hashes to JK2ilcD8njJXVkTPU99lYYmhxbaGg3SKqalwaR1GOuA=',
      ]);
      expect(
        findings.filter((finding) => finding.rule === 'example-xsd' && finding.severity === 'ok'),
      ).toHaveLength(27);
    });

    it('passes a copy of the artifacts with other line ends, and fails one edited copy', async () => {
      const crlf = temporaryRepo((_path, text) => text.replace(/\n/g, '\r\n'));
      expect(failures(await checkArtifacts(specText, crlf))).toEqual([]);
      const edited = temporaryRepo((path, text) =>
        path === 'fixtures/schemas/event.schema.json'
          ? text.replace('"maxLength":4096', '"maxLength":4097')
          : text,
      );
      expect(brief(failures(await checkArtifacts(specText, edited)))).toEqual([
        'artifact-match | fixtures/schemas/event.schema.json | content',
      ]);
    });

    it('fails a spec copy whose XSD block was altered', async () => {
      const altered = specText.replace(
        `<xs:element minOccurs='0' name='deadline' type='xs:dateTime'/>`,
        `<xs:element minOccurs='1' name='deadline' type='xs:dateTime'/>`,
      );
      expect(altered).not.toBe(specText);
      expect(brief(failures(await checkArtifacts(altered, REPO_ROOT)))).toEqual([
        `artifact-match | ${XSD_AGENT_TASK_PATH} | content`,
      ]);
    });

    it('fails a spec copy whose example hash was altered', async () => {
      const served = `<hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=</hash>\n    <json>`;
      const altered = specText.replace(served, served.replace('K2/Ydwv', 'K3/Ydwv'));
      expect(altered).not.toBe(specText);
      const caption = exampleArtifact('Client retrieves the selected manifest');
      expect(brief(failures(await checkArtifacts(altered, REPO_ROOT)))).toEqual([
        `hash-self | ${caption} | <manifest/> hash of <json/>`,
        `manifest-pin | ${caption} | <manifest/> hash: unknown manifest`,
      ]);
    });

    it('reports a fixed defect as a stale baseline entry', async () => {
      const fixed = specText.replace(
        `"isError":false}}\n  </task-result>`,
        `"isError":false},\n     "summary":"Forecast ready"}\n  </task-result>`,
      );
      expect(fixed).not.toBe(specText);
      const findings = await checkArtifacts(fixed, REPO_ROOT);
      expect(brief(failures(findings))).toEqual([
        `stale-known-defect | ${exampleArtifact('Caller retrieves the retained terminal result')} | task-result-payload: task task-7f2a9c41d8804e96bb478af6453c0371 revision 4`,
      ]);
    });
  },
);
