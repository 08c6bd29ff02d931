import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalDocument } from '../../protocol/json/canonical.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import type { Grant } from '../policy/policy-rules.ts';
import { MIGRATIONS } from './migrations.ts';
import { migrate } from './open-database.ts';
import type { NewVersion } from './store-records.ts';
import { FIXED_NOW, tempStoreDir, type TempStoreDir } from './test-support/temp-store.ts';

function newVersion(jid: string, version: string, content: JsonValue = { version }): NewVersion {
  const document = canonicalDocument(content);
  return { jid, version, canonicalJson: document.bytes, hash: document.hash };
}

const WEATHER = 'weather@agents.example';

let dir: TempStoreDir;
beforeEach(() => {
  dir = tempStoreDir();
});
afterEach(() => {
  dir.remove();
});

describe('opening the database', () => {
  it('uses WAL, synchronous FULL and foreign keys', () => {
    const store = dir.open();
    expect(store.settings()).toEqual({ journalMode: 'wal', synchronous: 'full', foreignKeys: true });
    expect(() => {
      store.transaction(() => {
        store.registrations.setActiveVersion(WEATHER, '9.9.9');
      });
    }).toThrow(/FOREIGN KEY/);
  });

  it('records each migration once and re-applies nothing on reopen', () => {
    dir.open().close();
    dir.open(() => FIXED_NOW + 60_000).close();
    const db = new Database(dir.path, { readonly: true });
    try {
      const rows = db.prepare('SELECT version, applied_at FROM schema_migrations ORDER BY version').all();
      expect(rows).toEqual(
        MIGRATIONS.map((m) => ({ version: m.version, applied_at: new Date(FIXED_NOW).toISOString() })),
      );
    } finally {
      db.close();
    }
  });

  it('applies only the migrations a database lacks', () => {
    const db = new Database(':memory:');
    try {
      const first = { version: 1, name: 'one', sql: 'CREATE TABLE one (x INTEGER) STRICT;' };
      const second = { version: 2, name: 'two', sql: 'CREATE TABLE two (x INTEGER) STRICT;' };
      expect(migrate(db, () => FIXED_NOW, [first])).toEqual([1]);
      expect(migrate(db, () => FIXED_NOW, [first, second])).toEqual([2]);
      expect(migrate(db, () => FIXED_NOW, [first, second])).toEqual([]);
      expect(() => migrate(db, () => FIXED_NOW, [first])).toThrow(/newer than this gateway knows/);
    } finally {
      db.close();
    }
  });

  it('refuses migrations that are not numbered consecutively', () => {
    const db = new Database(':memory:');
    try {
      expect(() => migrate(db, () => FIXED_NOW, [{ version: 2, name: 'x', sql: '' }])).toThrow(/numbered/);
    } finally {
      db.close();
    }
  });
});

describe('versions, the active pointer and tombstones', () => {
  it('stores a version with its canonical bytes and hash, and creates the endpoint', () => {
    const store = dir.open();
    const input = newVersion(WEATHER, '1.4.0');
    const stored = store.registrations.insertVersion(input);
    expect(stored.createdAt).toBe(new Date(FIXED_NOW).toISOString());
    expect(store.registrations.endpointExists(WEATHER)).toBe(true);
    const read = store.registrations.version(WEATHER, '1.4.0');
    expect(read?.canonicalJson.equals(input.canonicalJson)).toBe(true);
    expect(read?.hash).toEqual(input.hash);
  });

  it('keeps versions immutable: a second insert of the same key fails, updates are refused', () => {
    const store = dir.open();
    store.registrations.insertVersion(newVersion(WEATHER, '1.4.0'));
    expect(() => store.registrations.insertVersion(newVersion(WEATHER, '1.4.0', 'other'))).toThrow(/UNIQUE/);
    const db = new Database(dir.path);
    try {
      expect(() => db.prepare("UPDATE manifest_versions SET hash_value = 'x'").run()).toThrow(/immutable/);
    } finally {
      db.close();
    }
  });

  it('lists versions and active versions in octet order', () => {
    const store = dir.open();
    for (const jid of ['zeta@agents.example', WEATHER, 'alpha@agents.example']) {
      store.registrations.insertVersion(newVersion(jid, '1'));
      store.registrations.setActiveVersion(jid, '1');
    }
    store.registrations.insertVersion(newVersion(WEATHER, '10'));
    store.registrations.insertVersion(newVersion(WEATHER, '2'));
    expect(store.registrations.versions(WEATHER).map((v) => v.version)).toEqual(['1', '10', '2']);
    expect(store.registrations.activeVersions().map((v) => v.jid)).toEqual([
      'alpha@agents.example',
      WEATHER,
      'zeta@agents.example',
    ]);
    expect(store.registrations.activeVersionRecord(WEATHER)?.version).toBe('1');
  });

  it('moves and clears the active pointer without touching versions', () => {
    const store = dir.open();
    store.registrations.insertVersion(newVersion(WEATHER, '1'));
    store.registrations.insertVersion(newVersion(WEATHER, '2'));
    store.registrations.setActiveVersion(WEATHER, '1');
    store.registrations.setActiveVersion(WEATHER, '2');
    expect(store.registrations.activeVersion(WEATHER)).toBe('2');
    store.registrations.clearActiveVersion(WEATHER);
    expect(store.registrations.activeVersion(WEATHER)).toBeUndefined();
    expect(store.registrations.activeVersionRecord(WEATHER)).toBeUndefined();
    expect(store.registrations.versions(WEATHER)).toHaveLength(2);
  });

  it('tombstones a removed version permanently, and drops the endpoint with its last version', () => {
    const store = dir.open();
    const v1 = newVersion(WEATHER, '1');
    store.registrations.insertVersion(v1);
    store.registrations.removeVersion(WEATHER, '1');
    expect(store.registrations.version(WEATHER, '1')).toBeUndefined();
    expect(store.registrations.endpointExists(WEATHER)).toBe(false);
    expect(store.registrations.tombstone(WEATHER, '1')?.hash).toEqual(v1.hash);
    const db = new Database(dir.path);
    try {
      expect(() => db.prepare('DELETE FROM version_tombstones').run()).toThrow(/permanent/);
      expect(() => db.prepare("UPDATE version_tombstones SET hash_value = 'x'").run()).toThrow(/immutable/);
    } finally {
      db.close();
    }
  });

  it('removing a restored version again keeps the one tombstone', () => {
    const store = dir.open();
    store.registrations.insertVersion(newVersion(WEATHER, '1'));
    store.registrations.removeVersion(WEATHER, '1');
    store.registrations.insertVersion(newVersion(WEATHER, '1'));
    store.registrations.removeVersion(WEATHER, '1');
    expect(store.registrations.tombstone(WEATHER, '1')).toBeDefined();
  });

  it('removes a whole endpoint, tombstoning every version', () => {
    const store = dir.open();
    store.registrations.insertVersion(newVersion(WEATHER, '1'));
    store.registrations.insertVersion(newVersion(WEATHER, '2'));
    store.registrations.setActiveVersion(WEATHER, '2');
    store.registrations.removeEndpoint(WEATHER);
    expect(store.registrations.endpointExists(WEATHER)).toBe(false);
    expect(store.registrations.activeVersion(WEATHER)).toBeUndefined();
    expect(store.registrations.tombstone(WEATHER, '1')).toBeDefined();
    expect(store.registrations.tombstone(WEATHER, '2')).toBeDefined();
  });

  it('refuses, by foreign key, to delete an active or retained version', () => {
    const store = dir.open();
    store.registrations.insertVersion(newVersion(WEATHER, '1'));
    store.registrations.insertVersion(newVersion(WEATHER, '2'));
    store.registrations.setActiveVersion(WEATHER, '1');
    store.registrations.retain(WEATHER, '2', 'task:one');
    expect(() => {
      store.registrations.removeVersion(WEATHER, '1');
    }).toThrow(/FOREIGN KEY/);
    expect(() => {
      store.registrations.removeVersion(WEATHER, '2');
    }).toThrow(/FOREIGN KEY/);
    // The failed removals left no tombstone behind: the whole transaction rolled back.
    expect(store.registrations.tombstone(WEATHER, '1')).toBeUndefined();
    expect(store.registrations.tombstone(WEATHER, '2')).toBeUndefined();
  });

  it('tracks retention per holder', () => {
    const store = dir.open();
    store.registrations.insertVersion(newVersion(WEATHER, '1'));
    store.registrations.retain(WEATHER, '1', 'task:a');
    store.registrations.retain(WEATHER, '1', 'task:a');
    store.registrations.retain(WEATHER, '1', 'task:b');
    expect(store.registrations.isRetained(WEATHER, '1')).toBe(true);
    expect(store.registrations.retainedVersions(WEATHER)).toEqual(new Set(['1']));
    store.registrations.release(WEATHER, '1', 'task:a');
    expect(store.registrations.isRetained(WEATHER, '1')).toBe(true);
    store.registrations.release(WEATHER, '1', 'task:b');
    expect(store.registrations.isRetained(WEATHER, '1')).toBe(false);
  });

  it('rolls back every write of a failed outer transaction', () => {
    const store = dir.open();
    expect(() =>
      store.transaction(() => {
        store.registrations.insertVersion(newVersion(WEATHER, '1'));
        store.registrations.setActiveVersion(WEATHER, '1');
        throw new Error('abandon');
      }),
    ).toThrow('abandon');
    expect(store.registrations.endpointExists(WEATHER)).toBe(false);
  });
});

describe('read snapshots', () => {
  it('reads one snapshot without the write lock', () => {
    const store = dir.open();
    store.registrations.insertVersion(newVersion(WEATHER, '1'));
    const other = new Database(dir.path, { timeout: 0 });
    try {
      const seen = store.snapshot(() => {
        const before = store.registrations.versions(WEATHER).length;
        // Would fail with SQLITE_BUSY at once if the snapshot held the write lock.
        other
          .prepare('INSERT INTO manifest_versions VALUES (?, ?, ?, ?, ?, ?)')
          .run(WEATHER, '2', Buffer.from('{}'), 'sha-256', 'x', 'now');
        return [before, store.registrations.versions(WEATHER).length];
      });
      expect(seen).toEqual([1, 1]);
      expect(store.registrations.versions(WEATHER)).toHaveLength(2);
    } finally {
      other.close();
    }
  });
});

describe('policy and world declarations', () => {
  const grants: Grant[] = [
    { subjectKind: 'domain', subject: 'example.com', action: 'see', endpoint: WEATHER, tool: null },
    { subjectKind: 'principal', subject: 'alice@example.com', action: 'invoke', endpoint: null, tool: null },
  ];

  it('replaces one source at a time and reports whether anything changed', () => {
    const store = dir.open();
    expect(store.policy.replaceSource('world', { grants, endpointPolicies: [] })).toBe(true);
    expect(
      store.policy.replaceSource('world', { grants: [...grants, ...grants], endpointPolicies: [] }),
    ).toBe(false);
    store.policy.replaceSource('config', {
      grants: [],
      endpointPolicies: [{ endpoint: WEATHER, hidden: true, restrictedInvocation: false }],
    });
    expect(store.policy.load().grants).toHaveLength(2);
    expect(store.policy.replaceSource('world', { grants: [], endpointPolicies: [] })).toBe(true);
    expect(store.policy.load()).toEqual({
      grants: [],
      endpointPolicies: [{ endpoint: WEATHER, hidden: true, restrictedInvocation: false }],
    });
  });

  it('merges two overrides of one endpoint from one source with OR', () => {
    const store = dir.open();
    store.policy.replaceSource('world', {
      grants: [],
      endpointPolicies: [
        { endpoint: WEATHER, hidden: true, restrictedInvocation: false },
        { endpoint: WEATHER, hidden: false, restrictedInvocation: true },
      ],
    });
    expect(store.policy.load().endpointPolicies).toEqual([
      { endpoint: WEATHER, hidden: true, restrictedInvocation: true },
    ]);
  });

  it('records the declared active version of the world', () => {
    const store = dir.open();
    expect(store.world.declaration(WEATHER)).toBeUndefined();
    store.world.recordDeclaration(WEATHER, { version: '1' });
    store.world.recordDeclaration(WEATHER, { version: null });
    expect(store.world.declaration(WEATHER)).toEqual({ version: null });
  });
});

describe('durability', () => {
  it('keeps everything across close and reopen', () => {
    const first = dir.open();
    const v1 = newVersion(WEATHER, '1');
    first.registrations.insertVersion(v1);
    first.registrations.insertVersion(newVersion(WEATHER, '2'));
    first.registrations.setActiveVersion(WEATHER, '1');
    first.registrations.removeVersion(WEATHER, '2');
    first.registrations.retain(WEATHER, '1', 'task:x');
    first.policy.replaceSource('world', {
      grants: [{ subjectKind: 'domain', subject: 'example.com', action: 'see', endpoint: null, tool: null }],
      endpointPolicies: [],
    });
    first.world.recordDeclaration(WEATHER, { version: '1' });
    first.close();
    expect(first.isOpen).toBe(false);

    const second = dir.open();
    expect(second.registrations.version(WEATHER, '1')?.canonicalJson.equals(v1.canonicalJson)).toBe(true);
    expect(second.registrations.activeVersion(WEATHER)).toBe('1');
    expect(second.registrations.tombstone(WEATHER, '2')).toBeDefined();
    expect(second.registrations.isRetained(WEATHER, '1')).toBe(true);
    expect(second.policy.load().grants).toHaveLength(1);
    expect(second.world.declaration(WEATHER)).toEqual({ version: '1' });
  });
});
