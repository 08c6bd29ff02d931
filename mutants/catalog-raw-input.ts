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
      "the component stream is read by the XML library's own parser (ltx): DTDs and comments are skipped silently (a DTD swallows the stanzas after it), an undeclared entity throws out of the socket handler, and text after a CDATA section is lost",
    bugClass: 'input-validation',
    requirements: ['security.no-xxe', 'security.authorize-and-validate', 'json-encoding.cdata-independent'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['security.restricted-xml-on-component-link', 'json-encoding.cdata-split-arguments'],
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
      "the component stream is decoded one socket read at a time (the XML library's own reading): a character whose bytes straddle two reads becomes U+FFFD",
    bugClass: 'input-validation',
    requirements: ['json-encoding.utf8-xml-legal'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['json-encoding.multibyte-across-reads'],
  },
];
