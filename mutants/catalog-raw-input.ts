/**
 * Mutants for the raw component-link input and server-restart cases (issue 14, items 4 and 5):
 * each a bug those cases, and only cases that write raw bytes or restart the server, can see.
 * Included by catalog.ts.
 */
import type { MutantRecord } from './mutant.ts';

export const RAW_INPUT_MUTANTS: readonly MutantRecord[] = [
  {
    name: 'component-stream-library-parser',
    change:
      "the component link ignores its reader's restricted-XML verdict: no <restricted-xml/>, no close, and the stream stalls at the first comment, DTD, processing instruction or undeclared entity (every stanza after it is lost), as the XML library's own parser (ltx) once did",
    bugClass: 'input-validation',
    requirements: ['security.no-xxe', 'security.authorize-and-validate'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['security.restricted-xml-on-component-link'],
  },
  {
    name: 'no-reconnect-after-stream-loss',
    change:
      'once online, a lost component stream is never retried: the gateway stays offline after its server restarts',
    bugClass: 'link-fault',
    requirements: ['task-recovery.state-contents'],
    profile: 'task-execution',
    scenario: 'link-fault',
    grep: ['task-recovery.server-restart'],
  },
  {
    name: 'utf8-decoded-per-read',
    change:
      "the component link decodes the stream one socket read at a time (as the XML library's own reading did): a character whose bytes straddle two reads becomes U+FFFD",
    bugClass: 'input-validation',
    requirements: ['json-encoding.utf8-xml-legal'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['json-encoding.multibyte-across-reads'],
  },
  {
    name: 'stream-tree-last-text-node',
    change:
      "stanzas go to the codecs as the stream reader built them (each CDATA section its own text node), and an element's character data is its last text node: JSON split into text and CDATA sections loses its head",
    bugClass: 'input-validation',
    requirements: ['json-encoding.cdata-independent'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['json-encoding.cdata-split-arguments'],
  },
];
