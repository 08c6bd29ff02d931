import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../config/limits.ts';
import { RateLimiter } from '../policy/rate-limiter.ts';
import type { GatewayStore } from '../store/gateway-store.ts';
import { tempStoreDir, type TempStoreDir } from '../store/test-support/temp-store.ts';
import { Provisioning, type ProvisioningAuthority } from './provisioning.ts';
import type { Outcome } from './registration-fault.ts';
import { Registry } from './registry.ts';
import { manifestText, principal } from './test-support/manifests.ts';

const ADMIN = principal('admin@server.example');
const REMOTE_ADMIN = principal('admin@example.net');
const BOB = principal('bob@server.example');
const ALICE = principal('alice@example.com');
const WEATHER = 'weather@agents.example';

const AUTHORITY: ProvisioningAuthority = {
  admins: [ADMIN.bareJid, REMOTE_ADMIN.bareJid],
  localDomains: ['server.example'],
  selfRegistration: true,
  hostedDomains: ['agents.example'],
};

function reasonOf<T>(outcome: Outcome<T>): string {
  return outcome.ok ? 'ok' : `${outcome.fault.reason} ${outcome.fault.condition}/${outcome.fault.type}`;
}

function value<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) expect.fail(`refused: ${outcome.fault.reason}`);
  return outcome.value;
}

let dir: TempStoreDir;
let store: GatewayStore;
let provisioning: Provisioning;
beforeEach(() => {
  dir = tempStoreDir();
  store = dir.open();
  provisioning = new Provisioning(new Registry(store), AUTHORITY, DEFAULT_LIMITS);
});
afterEach(() => {
  dir.remove();
});

describe('administrative provisioning (#registration-flow)', () => {
  it('lets an admin register a virtual endpoint on the component domain', async () => {
    const result = value(await provisioning.register(ADMIN, manifestText()));
    expect(result.registered.jid).toBe(WEATHER);
  });

  it('trusts a configured admin on a remote domain (explicit configuration, not federation)', async () => {
    expect(reasonOf(await provisioning.register(REMOTE_ADMIN, manifestText()))).toBe('ok');
  });

  it('refuses to provision a JID outside the hosted domains', async () => {
    expect(reasonOf(await provisioning.register(ADMIN, manifestText({ jid: 'bot@example.org' })))).toBe(
      'domain-not-hosted not-allowed/cancel',
    );
  });

  it('runs the whole lifecycle', async () => {
    const { registered } = value(await provisioning.register(ADMIN, manifestText()));
    expect(value(provisioning.activate(ADMIN, registered))).toEqual({ jid: WEATHER, version: '1.0.0' });
    expect(value(provisioning.registrationStatus(ADMIN, { jid: WEATHER })).versions[0]?.active).toBe(true);
    expect(value(provisioning.deactivate(ADMIN, { jid: WEATHER }))).toEqual({ jid: WEATHER });
    expect(value(provisioning.removeVersion(ADMIN, { jid: WEATHER, version: '1.0.0' }))).toEqual({
      jid: WEATHER,
      version: '1.0.0',
    });
    value(await provisioning.register(ADMIN, manifestText()));
    expect(value(provisioning.removeEndpoint(ADMIN, { jid: WEATHER }))).toEqual({ jid: WEATHER });
  });

  it('normalizes the target JID of an operation, and answers bad-request for a malformed one', async () => {
    const { registered } = value(await provisioning.register(ADMIN, manifestText()));
    expect(value(provisioning.activate(ADMIN, { ...registered, jid: 'WEATHER@Agents.Example' })).jid).toBe(
      WEATHER,
    );
    expect(reasonOf(provisioning.registrationStatus(ADMIN, { jid: 'weather@agents.example/res' }))).toBe(
      'bad-jid bad-request/modify',
    );
  });

  it('answers resource-constraint to an admin whose manifest exceeds a parse limit', async () => {
    const small = new Provisioning(new Registry(store), AUTHORITY, {
      ...DEFAULT_LIMITS,
      manifestMaxBytes: 50,
    });
    expect(reasonOf(await small.register(ADMIN, manifestText()))).toBe('json-limit resource-constraint/wait');
  });
});

describe('non-admins and administrative operations (interp-24)', () => {
  it('answers forbidden whether or not the target exists, and before reading it', async () => {
    const { registered } = value(await provisioning.register(ADMIN, manifestText()));
    for (const sender of [BOB, ALICE]) {
      const answers = [WEATHER, 'nobody@agents.example', 'not a jid/'].flatMap((jid) => [
        provisioning.activate(sender, { ...registered, jid }),
        provisioning.deactivate(sender, { jid }),
        provisioning.registrationStatus(sender, { jid }),
        provisioning.removeVersion(sender, { jid, version: '1.0.0' }),
        provisioning.removeEndpoint(sender, { jid }),
      ]);
      expect(new Set(answers.map(reasonOf))).toEqual(new Set(['not-admin forbidden/auth']));
    }
    expect(store.registrations.versions(WEATHER)).toHaveLength(1);
  });
});

describe('self-registration (#registration-flow, #rules)', () => {
  it('registers a local account for its own bare JID, without activating it', async () => {
    const result = value(await provisioning.register(BOB, manifestText({ jid: 'bob@server.example' })));
    expect(result.registered.jid).toBe('bob@server.example');
    expect(store.registrations.activeVersion('bob@server.example')).toBeUndefined();
  });

  it('compares the normalized agent.jid with the sender (interp-25)', async () => {
    const result = value(await provisioning.register(BOB, manifestText({ jid: 'Bob@Server.Example' })));
    expect(result.registered.jid).toBe('bob@server.example');
  });

  it('refuses a manifest for another JID with forbidden', async () => {
    for (const jid of ['carol@server.example', WEATHER]) {
      expect(reasonOf(await provisioning.register(BOB, manifestText({ jid })))).toBe(
        'jid-mismatch forbidden/auth',
      );
    }
  });

  it('never grants it to a remote sender, not even for its own JID ("Federation alone MUST NOT")', async () => {
    expect(reasonOf(await provisioning.register(ALICE, manifestText({ jid: 'alice@example.com' })))).toBe(
      'not-local-sender forbidden/auth',
    );
  });

  it('answers service-unavailable to non-admins when self-registration is off (interp-07)', async () => {
    const off = new Provisioning(
      new Registry(store),
      { ...AUTHORITY, selfRegistration: false },
      DEFAULT_LIMITS,
    );
    expect(reasonOf(await off.register(BOB, manifestText({ jid: 'bob@server.example' })))).toBe(
      'self-registration-unavailable service-unavailable/cancel',
    );
    expect(reasonOf(await off.register(ADMIN, manifestText()))).toBe('ok');
    expect(off.maySelfRegister(BOB)).toBe(false);
  });

  it('never answers resource-constraint before the claim is authorized (interp-42)', async () => {
    const tools = [1, 2, 3].map((i) => ({ name: `t${i}`, inputSchema: { type: 'object' } }));
    const tight = new Provisioning(new Registry(store), AUTHORITY, {
      ...DEFAULT_LIMITS,
      manifestMaxBytes: 400,
      toolsPerManifest: 2,
    });
    // Over the parse limit: agent.jid cannot be read, so the claim cannot be authorized.
    const huge = manifestText({ jid: 'bob@server.example', title: 'x'.repeat(500) });
    expect(reasonOf(await tight.register(BOB, huge))).toBe('unverifiable-claim forbidden/auth');
    // Within the parse limit but over the tool limit: authorized first, then limited.
    expect(reasonOf(await tight.register(BOB, manifestText({ jid: 'bob@server.example', tools })))).toBe(
      'manifest-limit resource-constraint/wait',
    );
    expect(reasonOf(await tight.register(BOB, manifestText({ jid: 'carol@server.example', tools })))).toBe(
      'jid-mismatch forbidden/auth',
    );
  });

  it('answers not-acceptable for a missing or malformed agent.jid', async () => {
    const noJid = JSON.stringify({ manifestSpecVersion: '0', agent: { name: 'x', version: '1' }, tools: [] });
    expect(reasonOf(await provisioning.register(BOB, noJid))).toBe('manifest-invalid not-acceptable/modify');
    expect(
      reasonOf(await provisioning.register(BOB, manifestText({ jid: 'bob@server.example/phone' }))),
    ).toBe('manifest-invalid not-acceptable/modify');
  });

  it('lets an admin self-register its own C2S JID', async () => {
    expect(reasonOf(await provisioning.register(ADMIN, manifestText({ jid: 'admin@server.example' })))).toBe(
      'ok',
    );
  });
});

describe('rate limits (#security), only after authorization (interp-42)', () => {
  function limited(): Provisioning {
    const limiter = new RateLimiter(
      { registration: { burst: 1, perSecond: 1 }, administration: { burst: 1, perSecond: 1 } },
      () => 0,
    );
    return new Provisioning(new Registry(store), AUTHORITY, DEFAULT_LIMITS, limiter);
  }

  it('limits an admin once its bucket is empty', async () => {
    const gateway = limited();
    expect(reasonOf(await gateway.register(ADMIN, manifestText()))).toBe('ok');
    expect(reasonOf(await gateway.register(ADMIN, manifestText()))).toBe(
      'rate-limited resource-constraint/wait',
    );
    expect(reasonOf(gateway.registrationStatus(ADMIN, { jid: WEATHER }))).toBe('ok');
    expect(reasonOf(gateway.registrationStatus(ADMIN, { jid: WEATHER }))).toBe(
      'rate-limited resource-constraint/wait',
    );
  });

  it('charges unauthorized requests but answers them as unauthorized', async () => {
    const gateway = limited();
    for (let i = 0; i < 3; i++) {
      expect(reasonOf(await gateway.register(ALICE, manifestText()))).toBe('not-local-sender forbidden/auth');
      expect(reasonOf(await gateway.register(BOB, manifestText()))).toBe('jid-mismatch forbidden/auth');
      expect(reasonOf(gateway.deactivate(BOB, { jid: WEATHER }))).toBe('not-admin forbidden/auth');
    }
    // Bob's bucket was drained by the refused attempts; his own registration is limited now.
    expect(reasonOf(await gateway.register(BOB, manifestText({ jid: 'bob@server.example' })))).toBe(
      'rate-limited resource-constraint/wait',
    );
  });
});
