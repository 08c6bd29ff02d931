/**
 * The conformance tools' ledger read out of band (docs/sut.md, `conformanceTools`): for a SUT
 * whose conformance tools run as `agentconf conformance-tools` over stdio, the harness reads the
 * ledger file it handed over as {conformanceLedger}, so "the tool ran at most once" is never
 * taken from the gateway under test. A 'native' SUT has no such file: the suites read the
 * ledger through its `counter` tool.
 */
import { readLedgerFile } from '../conformance-tools/ledger.ts';
import { CONFORMANCE_LEDGER_FILE, type LaunchFacts } from './placeholders.ts';
import { join } from 'node:path';
import type { SutConfig } from './sut-config.ts';

/** How often `key` was counted, or undefined when the SUT's ledger can only be read through it. */
export type LedgerReader = (key: string) => number;

/** The ledger file the harness hands over as {conformanceLedger}. */
export function conformanceLedgerFile(facts: Pick<LaunchFacts, 'dataDir' | 'conformanceLedger'>): string {
  return facts.conformanceLedger ?? join(facts.dataDir, CONFORMANCE_LEDGER_FILE);
}

export function outOfBandLedger(
  config: Pick<SutConfig, 'conformanceTools'>,
  facts: Pick<LaunchFacts, 'dataDir' | 'conformanceLedger'>,
): LedgerReader | undefined {
  if (config.conformanceTools !== 'mcp-stdio') return undefined;
  const file = conformanceLedgerFile(facts);
  return (key) => readLedgerFile(file).get(key) ?? 0;
}
