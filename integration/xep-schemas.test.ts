// The schema audit behind every integration file (test-support/payload-conformance.ts and
// xep-schemas.ts), without a federation: what it accepts, what it must reject, and that a
// changed XEP schema makes a relaxation fail loudly instead of validating less.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseXml } from '../protocol/stanza/index.ts';
import { sharedAvailable } from '../protocol/test-support/shared-paths.ts';
import { PayloadConformance, splitByNamespace } from './test-support/payload-conformance.ts';
import {
  XEPS_DIR,
  XEP_SCHEMA_SOURCES,
  XepSchemaError,
  extractXepSchemas,
} from './test-support/xep-schemas.ts';

const available = sharedAvailable(XEPS_DIR, 'XEP schema audit self-test');

const RSM = 'http://jabber.org/protocol/rsm';
const ITEMS = 'http://jabber.org/protocol/disco#items';

describe('splitByNamespace', () => {
  it('#schema separates each namespace into its own standalone element, extensions included', () => {
    const payload = parseXml(
      `<query xmlns='${ITEMS}' node='n'><item jid='a@b.example'/>` +
        `<set xmlns='${RSM}'><count>1</count></set></query>`,
    );
    expect(splitByNamespace(payload)).toEqual([
      { namespace: ITEMS, xml: `<query node='n' xmlns='${ITEMS}'><item jid='a@b.example'/></query>` },
      { namespace: RSM, xml: `<set xmlns='${RSM}'><count>1</count></set>` },
    ]);
  });
});

describe.skipIf(!available)('XEP schema audit', () => {
  const conformance = available ? new PayloadConformance() : undefined;
  const validate = async (xml: string): Promise<string[]> =>
    ((await conformance?.validate([{ source: 'test', payload: parseXml(xml) }])) ?? []).flatMap(
      (problem) => problem.errors,
    );

  it('#schema accepts what the XEPs themselves send: RSM children in example order, title before instructions, a subset of search fields', async () => {
    expect(
      await validate(
        `<query xmlns='${ITEMS}'><item jid='calendar@agents.example' name='C'/>` +
          `<set xmlns='${RSM}'><first index='0'>calendar@agents.example</first><last>calendar@agents.example</last><count>4</count></set></query>`,
      ),
    ).toEqual([]);
    expect(
      await validate(
        `<query xmlns='jabber:iq:search'><instructions>i</instructions><nick/>` +
          `<x xmlns='jabber:x:data' type='form'><title>t</title><instructions>i</instructions>` +
          `<field var='FORM_TYPE' type='hidden'><value>jabber:iq:search</value></field><field var='nick' type='text-single'/></x></query>`,
      ),
    ).toEqual([]);
    expect(
      await validate(`<query xmlns='jabber:iq:search'><item jid='a@b.example'><nick>A</nick></item></query>`),
    ).toEqual([]);
  });

  it('#schema rejects what the XEP schemas forbid, and payloads in namespaces without a schema', async () => {
    const rejected = [
      `<query xmlns='${ITEMS}'><item name='no jid'/></query>`,
      `<query xmlns='${ITEMS}'><set xmlns='${RSM}'><count>4</count><count>4</count></set></query>`,
      `<query xmlns='${ITEMS}'><set xmlns='${RSM}'><count>four</count></set></query>`,
      `<query xmlns='jabber:iq:search'><bogus/></query>`,
      `<x xmlns='jabber:x:data' type='result'><title>one</title><title>two</title></x>`,
      `<x xmlns='jabber:x:data' type='result'><field var='f' type='no-such-type'/></x>`,
      `<query xmlns='http://jabber.org/protocol/disco#info'><feature var='only a feature'/></query>`,
      `<unknown xmlns='urn:example:unknown'/>`,
      `<manifest xmlns='urn:xmpp:agent-api:0'/>`,
    ];
    const problems = await conformance?.validate(
      rejected.map((xml) => ({ source: xml, payload: parseXml(xml) })),
    );
    expect(new Set(problems?.map((problem) => problem.source))).toEqual(new Set(rejected));
  });

  it('#schema a relaxation that no longer matches its XEP fails loudly', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentconf-xeps-'));
    try {
      for (const source of XEP_SCHEMA_SOURCES)
        copyFileSync(join(XEPS_DIR, source.xep), join(dir, source.xep));
      expect(extractXepSchemas(dir).size).toBe(XEP_SCHEMA_SOURCES.length);
      const rsm = join(dir, 'xep-0059.xml');
      writeFileSync(rsm, readFileSync(rsm, 'utf8').replace('<xs:sequence>', '<xs:choice>'));
      expect(() => extractXepSchemas(dir)).toThrow(XepSchemaError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
