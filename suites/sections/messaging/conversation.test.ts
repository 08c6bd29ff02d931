// The blocking cases need a recipient server that leaves XEP-0191 on the component's messages to
// the sender and answers the block-state query; they decide nothing on any other, and assume
// nothing of a server the harness does not run.
import { describe, expect, it } from 'vitest';

import type { CaseContext, RemoteServerFacts } from '../../framework/context.ts';
import { MissingFixture } from '../../framework/verdicts.ts';
import { requireSenderEnforcedRecipient } from './conversation.ts';

function check(remoteServer: RemoteServerFacts): unknown {
  try {
    requireSenderEnforcedRecipient({ remoteServer } as unknown as CaseContext);
    return 'runs';
  } catch (error) {
    return error;
  }
}

describe('requireSenderEnforcedRecipient', () => {
  it("lets the case run on the harness's Prosody and on an external server declared to behave so", () => {
    expect(check({ implementation: 'prosody', leavesBlockingToSender: true, external: false })).toBe('runs');
    expect(check({ implementation: 'prosody', leavesBlockingToSender: true, external: true })).toBe('runs');
  });

  it('cannot tell on ejabberd, naming it and the server that decides', () => {
    const outcome = check({ implementation: 'ejabberd', leavesBlockingToSender: false, external: false });
    expect(outcome).toBeInstanceOf(MissingFixture);
    expect((outcome as Error).message).toMatch(/runs ejabberd.*--server-a prosody/);
  });

  it('cannot tell on an external server that declares nothing, whatever implementation it names', () => {
    const outcome = check({ implementation: 'prosody', leavesBlockingToSender: false, external: true });
    expect(outcome).toBeInstanceOf(MissingFixture);
    expect((outcome as Error).message).toMatch(
      /external server whose connection file does not declare "leavesBlockingToSender": true/,
    );
  });
});
