/**
 * What --out holds when a run never reached its cases (the gateway or the servers did not start,
 * or Ctrl-C came during start-up): conformance.md saying so and why, not-run.json for tools, and
 * junit.xml with one errored test case, because a CI job's JUnit step reads that file on every
 * exit code and must show why there are no results. Not conformance.json: that file's schema is
 * a verdict, and this is none. Written synchronously,
 * so it is complete even when the process ends right after (Ctrl-C during start-up).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { xmlAttribute, xmlText } from '../runner/reports/xml-text.ts';

export const NOT_RUN_FILE = 'not-run.json';

export interface NotRunStatement {
  readonly runId: string;
  readonly startedAt: string;
  readonly suiteVersion: string;
  readonly specRevision: string;
  /** The SUT file's name for the gateway. */
  readonly gateway: string;
  readonly outcome: 'could-not-start' | 'interrupted-during-start-up';
  /** Why, as printed on the terminal (may span lines: a gateway's last output). */
  readonly reason: string;
  /** The log files kept, absolute. */
  readonly logs: readonly string[];
}

const HEADLINES: Readonly<Record<NotRunStatement['outcome'], string>> = {
  'could-not-start': 'the run could not start',
  'interrupted-during-start-up': 'the run was interrupted during start-up',
};

function markdown(statement: NotRunStatement, dir: string): string {
  const fence = statement.reason.includes('```') ? '~~~~' : '```';
  return [
    `# Conformance statement: ${statement.gateway}`,
    '',
    `**NOT RUN**: ${HEADLINES[statement.outcome]}; no case was judged, so this is not a conformance verdict.`,
    '',
    '| | |',
    '|---|---|',
    `| Run | ${statement.runId} |`,
    `| Started | ${statement.startedAt} |`,
    `| Suite | agentconf ${statement.suiteVersion} for XMPP Agent Gateway ${statement.specRevision} |`,
    '',
    '## Why',
    '',
    fence,
    statement.reason,
    fence,
    '',
    '## Logs',
    '',
    ...(statement.logs.length === 0
      ? ['None were kept: the servers had not started, or the process ended first.']
      : statement.logs.map((log) => `- [${relative(dir, log)}](${relative(dir, log)})`)),
    '',
  ].join('\n');
}

/** One errored case, so that a JUnit reader shows the reason instead of "no tests found". */
function junit(statement: NotRunStatement): string {
  const name = xmlAttribute(`agentconf ${statement.suiteVersion}: ${statement.gateway}`);
  const message = xmlAttribute(`NOT RUN: ${HEADLINES[statement.outcome]}`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name='${name}' tests='1' failures='0' errors='1' time='0'>`,
    `<testsuite name='start-up' tests='1' failures='0' errors='1' skipped='0' time='0' timestamp='${xmlAttribute(statement.startedAt)}'>`,
    `<testcase classname='agentconf' name='start-up' time='0'>`,
    `<error type='${statement.outcome}' message='${message}'>${xmlText(statement.reason)}</error>`,
    '</testcase>',
    '</testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** Writes conformance.md, not-run.json and junit.xml into `dir` (made if missing); returns their paths. */
export function writeNotRunStatement(dir: string, statement: NotRunStatement): string[] {
  mkdirSync(dir, { recursive: true });
  const md = join(dir, 'conformance.md');
  const json = join(dir, NOT_RUN_FILE);
  writeFileSync(md, markdown(statement, dir));
  const logs = statement.logs.map((log) => relative(dir, log));
  writeFileSync(json, `${JSON.stringify({ ...statement, logs }, null, 2)}\n`);
  const xml = join(dir, 'junit.xml');
  writeFileSync(xml, junit(statement));
  return [md, json, xml];
}
