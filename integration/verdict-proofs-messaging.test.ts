// Issue 16, Done when: a gateway that delivers to a blocked recipient (it leaves XEP-0191 to
// server routing) and one that turns a chat answer into a task each fail the Human Messaging
// profile. Each is a --grep run over #messaging (a subset can prove a failure, never a pass).
import { describe, expect, it } from 'vitest';
import { ASSUMES_SERVER_BLOCKING, CHAT_REPLY_AS_TASK } from './variants/messaging-variants.ts';
import { caseOf, describeRun, verdictOf } from './variants/run-agentconf.ts';
import { useVariantRun } from './variants/use-variant-run.ts';

describe('a gateway that assumes server routing enforces XEP-0191', () => {
  const run = useVariantRun(ASSUMES_SERVER_BLOCKING, { grep: ['messaging'] });

  it('FAILS both blocking cases, and Human Messaging', () => {
    for (const id of ['messaging.blocked-endpoint-online', 'messaging.blocked-domain-offline']) {
      const result = caseOf(run(), id);
      expect(result.outcome, `${id}\n${describeRun(run())}`).toBe('failed');
    }
    expect(verdictOf(run(), 'human-messaging').verdict).toBe('failed');
  });
});

describe('a gateway that answers chat with a task', () => {
  const run = useVariantRun(CHAT_REPLY_AS_TASK, { grep: ['messaging.chat-answer-stays-chat'] });

  it('FAILS messaging.chat-answer-stays-chat, and Human Messaging', () => {
    expect(caseOf(run(), 'messaging.chat-answer-stays-chat').outcome, describeRun(run())).toBe('failed');
    expect(verdictOf(run(), 'human-messaging').verdict).toBe('failed');
  });
});
