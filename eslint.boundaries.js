// The project's layers, bottom up; an import (type-only ones included) may only point down or
// stay inside its own layer. harness/ and reference-gateway/ sit side by side on protocol/ so
// that the judge never reads the judged's code and the other way round. reference-caller/ (the
// XMPP caller engine both reference implementations call with) is judged code too: the judged
// may share it, the judge (harness/, suites/) may not read it.
import boundaries from 'eslint-plugin-boundaries';

/** What the CLI reads: every layer of the product below it. */
const PRODUCT = [
  'runner',
  'suites',
  'harness',
  'reference-gateway',
  'reference-bridge',
  'reference-caller',
  'protocol',
];

/** Layer → the layers below it that it may import. */
export const LAYERS = {
  protocol: [],
  harness: ['protocol'],
  // The transport-neutral XMPP caller (catalog pinning, admission, event intake, task tracking):
  // what the reference bridge and the reference gateway's call-out runtime both call with.
  'reference-caller': ['protocol'],
  'reference-gateway': ['reference-caller', 'protocol'],
  // The reference MCP bridge (an MCP server calling XMPP agents): a caller under test, so it sits
  // beside the gateway and the harness and reads neither.
  'reference-bridge': ['reference-caller', 'protocol'],
  suites: ['harness', 'protocol'],
  runner: ['suites', 'harness', 'protocol'],
  cli: PRODUCT,
  bin: ['cli', 'protocol'],
  // Developer tools beside the product (the spec/artifact check): they read the wire model and
  // nothing imports them.
  tools: ['protocol'],
  bench: ['cli', ...PRODUCT],
  // The mutant catalog and its runner: patched copies of the gateway judged by agentconf runs.
  mutants: ['integration', 'cli', ...PRODUCT],
  // Tests that start a federation and a gateway together, and run cases against it.
  integration: ['cli', ...PRODUCT],
};

export const boundariesConfig = {
  files: ['**/*.ts', '**/*.js'],
  plugins: { boundaries },
  settings: {
    'boundaries/elements': Object.keys(LAYERS).map((layer) => ({
      type: layer,
      pattern: `${layer}/**`,
      partialMatch: false,
    })),
    'boundaries/include': Object.keys(LAYERS).map((layer) => `${layer}/**`),
  },
  rules: {
    'boundaries/dependencies': [
      'error',
      {
        default: 'disallow',
        policies: Object.entries(LAYERS).map(([layer, below]) => ({
          from: { element: { type: layer } },
          allow: { to: { element: { types: { anyOf: [layer, ...below] } } } },
        })),
      },
    ],
  },
};
