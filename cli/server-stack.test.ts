// --server-a / --server-b: what each combination with --provider becomes, and the one-sentence
// refusal of every combination no provider here can run (before anything starts).
import { describe, expect, it } from 'vitest';

import { selectProvider } from '../harness/federation/auto-provider.ts';
import { UsageError } from './io.ts';
import { parseCommandArgs } from './options.ts';
import { RUN_SPEC } from './run-spec.ts';
import { requestedServerStack } from './server-stack.ts';

function stackOf(args: readonly string[]): ReturnType<typeof requestedServerStack> {
  return requestedServerStack(parseCommandArgs(RUN_SPEC, args).values);
}

function refusal(args: readonly string[]): string {
  try {
    stackOf(args);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`${args.join(' ')} was accepted`);
}

describe('the server stack of agentconf run', () => {
  it('asks for nothing without the options, so every provider runs its own (Prosody)', () => {
    expect(stackOf([])).toEqual({});
    expect(stackOf(['--provider', 'container', '--server-a', 'prosody'])).toEqual({ a: 'prosody' });
  });

  it('takes ejabberd as server A on the native and auto providers', () => {
    expect(stackOf(['--server-a', 'ejabberd'])).toEqual({ a: 'ejabberd' });
    expect(stackOf(['--provider', 'native', '--server-a', 'ejabberd', '--server-b', 'prosody'])).toEqual({
      a: 'ejabberd',
      b: 'prosody',
    });
  });

  it('refuses an unknown server by naming the ones it knows', () => {
    expect(() => parseCommandArgs(RUN_SPEC, ['--server-a', 'openfire'])).toThrow(
      new UsageError('--server-a takes one of prosody, ejabberd, not "openfire"'),
    );
    expect(() => parseCommandArgs(RUN_SPEC, ['--server-b', 'Prosody'])).toThrow(
      new UsageError('--server-b takes one of prosody, ejabberd, not "Prosody"'),
    );
  });

  it('refuses ejabberd in a container and says what runs it instead', () => {
    expect(refusal(['--provider', 'container', '--server-a', 'ejabberd'])).toBe(
      '--server-a ejabberd needs the native provider: the container provider runs Prosody images only; use --provider native (or auto, which then runs natively)',
    );
  });

  it('refuses ejabberd as server B and points at server A', () => {
    expect(refusal(['--server-b', 'ejabberd'])).toMatch(
      /^--server-b ejabberd is not supported: .*ejabberd can be server A \(--server-a ejabberd\)/,
    );
  });

  it('refuses choosing the servers of an external federation, whose connection file says what they are', () => {
    for (const option of ['--server-a', '--server-b']) {
      expect(refusal(['--provider', 'external', '--external', 'f.json', option, 'prosody'])).toMatch(
        new RegExp(`^${option} does not apply to --provider external: .*servers\\.a/\\.b\\.implementation`),
      );
    }
  });

  it('lets auto run ejabberd natively without asking Docker', async () => {
    const selection = await selectProvider('auto', {
      servers: { a: 'ejabberd' },
      findEngine: () => Promise.reject(new Error('auto asked for an engine')),
    });
    expect(selection.name).toBe('native');
    expect(selection.reason).toMatch(/^auto: native processes \(ejabberd runs natively only/);
  });
});
