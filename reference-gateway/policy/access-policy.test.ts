import { describe, expect, it } from 'vitest';
import { compileAccessPolicy, type Principal } from './access-policy.ts';
import type { Grant, PolicyRules } from './policy-rules.ts';
import { NO_ACCESS } from './policy-rules.ts';

function principal(bareJid: string): Principal {
  return { bareJid, domain: bareJid.slice(bareJid.indexOf('@') + 1) };
}

const bob = principal('bob@server.example');
const alice = principal('alice@example.com');
const carol = principal('carol@example.com');
const mallory = principal('mallory@hostile.example');

const WEATHER = 'weather@agents.example';
const CALENDAR = 'calendar@agents.example';
const VAULT = 'vault@agents.example';
const TRANSLATOR = 'translator@agents.example';

function grant(partial: Partial<Grant> & Pick<Grant, 'subjectKind' | 'subject' | 'action'>): Grant {
  return { endpoint: null, tool: null, ...partial };
}

function rules(overrides: Partial<PolicyRules>): PolicyRules {
  return { ...NO_ACCESS, localDomains: ['server.example'], ...overrides };
}

describe('deny by default (#security)', () => {
  it('gives nobody anything without configuration', () => {
    const policy = compileAccessPolicy(NO_ACCESS);
    for (const requester of [bob, alice, mallory]) {
      expect(policy.canSee(requester, WEATHER)).toBe(false);
      expect(policy.canInvoke(requester, WEATHER, 'forecast.get')).toBe(false);
    }
  });

  it('local defaults reach local senders only, never remote ones', () => {
    const policy = compileAccessPolicy(rules({ localDefaults: { see: true, invoke: true } }));
    expect(policy.isLocal(bob)).toBe(true);
    expect(policy.canSee(bob, WEATHER)).toBe(true);
    expect(policy.canInvoke(bob, WEATHER, 'forecast.get')).toBe(true);
    expect(policy.isLocal(alice)).toBe(false);
    expect(policy.canSee(alice, WEATHER)).toBe(false);
    expect(policy.canInvoke(alice, WEATHER, 'forecast.get')).toBe(false);
  });

  it('local defaults can be off', () => {
    const policy = compileAccessPolicy(rules({ localDefaults: { see: false, invoke: false } }));
    expect(policy.canSee(bob, WEATHER)).toBe(false);
  });
});

describe('grants per domain and per principal', () => {
  const policy = compileAccessPolicy(
    rules({
      grants: [
        grant({ subjectKind: 'domain', subject: 'example.com', action: 'see', endpoint: WEATHER }),
        grant({ subjectKind: 'principal', subject: 'alice@example.com', action: 'see', endpoint: CALENDAR }),
        grant({
          subjectKind: 'domain',
          subject: 'example.com',
          action: 'invoke',
          endpoint: WEATHER,
          tool: 'forecast.get',
        }),
        grant({
          subjectKind: 'principal',
          subject: 'alice@example.com',
          action: 'invoke',
          endpoint: TRANSLATOR,
        }),
      ],
    }),
  );

  it('a domain grant covers every principal of the domain', () => {
    expect(policy.canSee(alice, WEATHER)).toBe(true);
    expect(policy.canSee(carol, WEATHER)).toBe(true);
    expect(policy.canSee(mallory, WEATHER)).toBe(false);
  });

  it('a principal grant covers that principal only', () => {
    expect(policy.canSee(alice, CALENDAR)).toBe(true);
    expect(policy.canSee(carol, CALENDAR)).toBe(false);
  });

  it('a tool grant covers that exact tool only (no normalization)', () => {
    expect(policy.canInvoke(carol, WEATHER, 'forecast.get')).toBe(true);
    expect(policy.canInvoke(carol, WEATHER, 'alerts.list')).toBe(false);
    expect(policy.canInvoke(carol, WEATHER, 'Forecast.get')).toBe(false);
  });

  it('visibility and invocation are independent (#rules, interp-26)', () => {
    // Invoke without see.
    expect(policy.canInvoke(alice, TRANSLATOR, 'translate')).toBe(true);
    expect(policy.canSee(alice, TRANSLATOR)).toBe(false);
    // See without invoke.
    expect(policy.canSee(alice, CALENDAR)).toBe(true);
    expect(policy.canInvoke(alice, CALENDAR, 'events.list')).toBe(false);
  });
});

describe('hidden and restricted endpoints', () => {
  const policy = compileAccessPolicy(
    rules({
      localDefaults: { see: true, invoke: true },
      grants: [
        grant({ subjectKind: 'domain', subject: 'example.com', action: 'see' }),
        grant({ subjectKind: 'domain', subject: 'example.com', action: 'invoke' }),
        grant({ subjectKind: 'principal', subject: 'alice@example.com', action: 'see', endpoint: VAULT }),
        grant({
          subjectKind: 'principal',
          subject: 'alice@example.com',
          action: 'invoke',
          endpoint: TRANSLATOR,
          tool: 'translate',
        }),
      ],
      endpointPolicies: [
        { endpoint: VAULT, hidden: true, restrictedInvocation: false },
        { endpoint: TRANSLATOR, hidden: false, restrictedInvocation: true },
      ],
    }),
  );

  it('a hidden endpoint is visible only through grants naming it', () => {
    expect(policy.canSee(alice, VAULT)).toBe(true);
    expect(policy.canSee(carol, VAULT)).toBe(false); // a "*" grant does not reach it
    expect(policy.canSee(bob, VAULT)).toBe(false); // nor do local defaults
    expect(policy.canSee(carol, WEATHER)).toBe(true);
  });

  it('hiding does not restrict invocation, and restriction does not hide', () => {
    expect(policy.canInvoke(bob, VAULT, 'records.count')).toBe(true);
    expect(policy.canSee(bob, TRANSLATOR)).toBe(true);
    expect(policy.canInvoke(bob, TRANSLATOR, 'translate')).toBe(false);
    expect(policy.canInvoke(carol, TRANSLATOR, 'translate')).toBe(false);
    expect(policy.canInvoke(alice, TRANSLATOR, 'translate')).toBe(true);
  });

  it('several overrides of one endpoint combine with OR', () => {
    const combined = compileAccessPolicy(
      rules({
        localDefaults: { see: true, invoke: true },
        endpointPolicies: [
          { endpoint: WEATHER, hidden: true, restrictedInvocation: false },
          { endpoint: WEATHER, hidden: false, restrictedInvocation: true },
        ],
      }),
    );
    expect(combined.canSee(bob, WEATHER)).toBe(false);
    expect(combined.canInvoke(bob, WEATHER, 'forecast.get')).toBe(false);
  });
});
