/**
 * What the link-fault cases of #events, #invocation and #cancellation share (issue 14, item 4):
 * each goes through the harness's own fault proxies, so each is inapplicable to a gateway the
 * harness does not launch.
 */
import type { JsonValue } from '../../../protocol/json/json-value.ts';
import { type Invoke } from '../../../protocol/stanza/index.ts';
import type { CaseContext } from '../../framework/context.ts';
import { freshRequestId } from './task-session.ts';
import type { TaskTarget } from './task-target.ts';
import { harnessFederationOnly } from './harness-federation-only.ts';

export const HARNESS_FEDERATION_ONLY = harnessFederationOnly("the fault proxies on the gateway's links");

export function invokeOf(context: CaseContext, target: TaskTarget, args: JsonValue): Invoke {
  return {
    requestId: freshRequestId(context),
    tool: 'script',
    apiVersion: target.version,
    manifestHash: target.hash,
    argumentsJson: JSON.stringify(args),
  };
}
