/**
 * "fixtures": "admin-iq": the operator checklist generated from the fixture world (what
 * Administrative Provisioning cannot express) and the cases' view of an unconfirmed item.
 */
import { describe, expect, it } from 'vitest';
import { inlineWorldFile } from '../protocol/fixture-world-file.ts';
import { MissingFixture } from '../suites/framework/verdicts.ts';
import { REFERENCE_WORLD_FILE, referenceWorldOf } from '../suites/fixtures/reference-world.ts';
import { operatorChecklist, unconfirmedItems } from './admin-fixtures.ts';
import { checklistLines } from './run-session.ts';

const world = inlineWorldFile(REFERENCE_WORLD_FILE);
const roles = {
  local: 'bob@server.example',
  remote: 'alice@example.com',
  remotePeer: 'carol@example.com',
  denied: 'mallory@hostile.example',
  admin: 'admin@server.example',
};

describe('the operator checklist of the reference world', () => {
  const items = operatorChecklist(world);
  it('lists the grants, the hidden and restricted endpoints and every runtime, by stable ID', () => {
    const ids = items.map((item) => item.id);
    expect(ids).toContain('grants');
    expect(ids).toContain('hidden:vault@agents.example');
    expect(ids).toContain('restricted-invocation:translator@agents.example');
    expect(ids).toContain('runtime:conformance@agents.example');
    expect(ids.filter((id) => id.startsWith('runtime:'))).toHaveLength(9);
    expect(items.find((item) => item.id === 'grants')?.text).toMatch(/principal alice@example\.com: sees/);
  });

  it('is printed with each item marked done or not', () => {
    const open = unconfirmedItems(items, ['grants']);
    const lines = checklistLines(items, open);
    expect(lines[0]).toMatch(/fixturesConfirmed/);
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}\[x\] grants: /));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}\[ \] hidden:vault@agents\.example: /));
  });

  it('a decision that needs an unconfirmed item cannot be made (MissingFixture); confirmed, it can', () => {
    const pending = (confirmed: string[]) =>
      new Set(unconfirmedItems(items, confirmed).map((item) => item.id));
    const none = referenceWorldOf(world, roles, 'admin-iq', pending([]));
    expect(() => none.listedFor('local')).toThrow(MissingFixture);
    // The item by its ID and where the checklist is, never its text again (the grants run long).
    const grantsText = items.find((item) => item.id === 'grants')?.text ?? '';
    expect(() => none.listedFor('local')).toThrow(
      'operator checklist item grants is not confirmed (the checklist is printed at start and in conformance.md)',
    );
    expect(() => none.listedFor('local')).not.toThrow(grantsText);
    const grantsOnly = referenceWorldOf(world, roles, 'admin-iq', pending(['grants']));
    // The hidden endpoint matters to the local caller's "see everything" grant only.
    expect(() => grantsOnly.listedFor('local')).toThrow(/hidden:vault@agents\.example is not confirmed/);
    expect(grantsOnly.listedFor('remotePeer').map((endpoint) => endpoint.jid)).toEqual([
      'weather@agents.example',
    ]);
    const all = referenceWorldOf(world, roles, 'admin-iq', pending(items.map((item) => item.id)));
    expect(all.listedFor('local')).toEqual(referenceWorldOf(world, roles).listedFor('local'));
  });
});
