/**
 * "A <task-result/> element contains the same object as the corresponding terminal event
 * payload" (#event-json-schemas): across the examples, a task-result and a terminal event
 * of the same task, revision and state must be canonically equal (interp-03, interp-39).
 */
import { canonicallyEqual } from '../../protocol/json/canonical.ts';
import { NS_AGENT_TASK } from '../../protocol/namespaces.ts';
import type { JsonSite } from './example-documents.ts';
import { blockLocation, exampleArtifact, type Finding } from './finding.ts';
import { attributeValue } from '../../protocol/xml/xml-query.ts';

const TERMINAL_STATES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

interface TerminalIdentity {
  readonly taskId: string;
  readonly revision: string;
  readonly state: string;
}

/** Events name the state in 'type', task-results in 'state'. */
function terminalIdentity(site: JsonSite, stateAttribute: 'type' | 'state'): TerminalIdentity | undefined {
  const element = site.element;
  if (element?.namespace !== NS_AGENT_TASK) return undefined;
  const taskId = attributeValue(element, 'task-id');
  const revision = attributeValue(element, 'revision');
  const state = attributeValue(element, stateAttribute);
  if (taskId === undefined || revision === undefined || state === undefined || !TERMINAL_STATES.has(state)) {
    return undefined;
  }
  return { taskId, revision, state };
}

const same = (a: TerminalIdentity, b: TerminalIdentity): boolean =>
  a.taskId === b.taskId && a.revision === b.revision && a.state === b.state;

export function checkTaskResults(sites: readonly JsonSite[]): Finding[] {
  const events = sites.flatMap((site) => {
    const identity = site.site === 'event' ? terminalIdentity(site, 'type') : undefined;
    return identity === undefined ? [] : [{ site, identity }];
  });
  const findings: Finding[] = [];
  for (const result of sites) {
    const identity = result.site === 'task-result' ? terminalIdentity(result, 'state') : undefined;
    if (identity === undefined) continue;
    const counterparts = events.filter((event) => same(event.identity, identity));
    if (counterparts.length === 0) continue;
    const differing = counterparts.filter((event) => !canonicallyEqual(event.site.value, result.value));
    findings.push({
      severity: differing.length === 0 ? 'ok' : 'fail',
      rule: 'task-result-payload',
      artifact: exampleArtifact(result.example.caption),
      subject: `task ${identity.taskId} revision ${identity.revision}`,
      details:
        differing.length === 0
          ? `canonically equal to the ${identity.state} event`
          : `differs from the ${identity.state} event at the same revision in ${differing
              .map((event) => `"${event.site.example.caption}"`)
              .join(', ')}`,
      ...blockLocation(result.example, result.line),
    });
  }
  return findings;
}
