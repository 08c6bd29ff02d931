import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SPEC_PATH, sharedAvailable } from '../../protocol/test-support/shared-paths.ts';
import { codeBlocksCaptioned, extractSpec } from './extract.ts';
import { XmlSyntaxError } from '../../protocol/xml/xml-syntax-error.ts';

const SPEC_SHAPE = `<?xml version='1.0' encoding='UTF-8'?>
<!DOCTYPE xep SYSTEM 'xep.dtd' [
  <!ENTITY % ents SYSTEM 'xep.ent'>
%ents;
]>
<xep>
<header>&LEGALNOTICE;<revision><version>0.0.5</version></revision><revision><version>0.0.4</version></revision></header>
<section1 topic='One' anchor='one'>
  <p>Uses &xep0030; and &lt;tags&gt;.</p>
  <example caption='Top-level example'><![CDATA[
<iq type='get'/>
]]></example>
  <section2 topic='Two' anchor='two'>
    <code caption='A &amp; B'><![CDATA[{"a":1}]]></code>
    <example caption='Nested'><![CDATA[<message/>]]></example>
  </section2>
</section1>
<code caption='Outside'><![CDATA[x]]></code>
</xep>
`;

describe('extractSpec', () => {
  it('reads XEP XML with an unresolvable DOCTYPE and entities, keeping CDATA exact', () => {
    const spec = extractSpec(SPEC_SHAPE);
    expect(spec.version).toBe('0.0.5');
    expect(spec.examples).toEqual([
      { caption: 'Top-level example', text: "\n<iq type='get'/>\n", anchor: 'one', line: 10 },
      { caption: 'Nested', text: '<message/>', anchor: 'two', line: 15 },
    ]);
    expect(spec.codeBlocks).toEqual([
      { caption: 'A & B', text: '{"a":1}', anchor: 'two', line: 14 },
      { caption: 'Outside', text: 'x', anchor: null, line: 18 },
    ]);
    expect(codeBlocksCaptioned(spec, 'A & B')).toHaveLength(1);
    expect(codeBlocksCaptioned(spec, 'missing')).toHaveLength(0);
  });

  it('still refuses a spec that is not well-formed', () => {
    expect(() => extractSpec(SPEC_SHAPE.replace('</section2>', ''))).toThrow(XmlSyntaxError);
  });

  describe.skipIf(!sharedAvailable(SPEC_PATH, 'extraction from the real spec'))('on the real spec', () => {
    it('finds the six normative blocks and all 24 examples with their section anchors', () => {
      const spec = extractSpec(readFileSync(SPEC_PATH, 'utf8'));
      expect(spec.codeBlocks.map((block) => [block.caption, block.anchor])).toEqual([
        ['Normative agent manifest JSON Schema', 'manifest'],
        ['Normative task event payload JSON Schema', 'event-json-schemas'],
        ['Endpoint information form registration', 'registrar-formtypes'],
        ['Tool information form registration', 'registrar-formtypes'],
        ['Schema for urn:xmpp:agent-api:0', 'schema-agent-api'],
        ['Schema for urn:xmpp:agent-task:0', 'schema-agent-task'],
      ]);
      expect(spec.examples).toHaveLength(24);
      expect(
        spec.examples.find((example) => example.caption === 'Caller invokes a remote tool'),
      ).toMatchObject({
        anchor: 'invocation',
      });
      const xsd = codeBlocksCaptioned(spec, 'Schema for urn:xmpp:agent-api:0')[0];
      expect(xsd?.text.startsWith("<?xml version='1.0' encoding='UTF-8'?>\n<xs:schema")).toBe(true);
    });
  });
});
