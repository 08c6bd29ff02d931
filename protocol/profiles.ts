/**
 * The conformance profiles of #conformance, by the IDs configs and reports use. A claim implies
 * the profiles its definition builds on ("Jabber Search Compatibility: Core Directory plus …").
 */
export const PROFILE_IDS = [
  'core-directory',
  'jabber-search',
  'tool-discovery',
  'task-execution',
  'interactive-tasks',
  'self-registration',
  'admin-provisioning',
  'human-messaging',
] as const;

export type ProfileId = (typeof PROFILE_IDS)[number];

export const PROFILE_TITLES: Readonly<Record<ProfileId, string>> = {
  'core-directory': 'Core Directory',
  'jabber-search': 'Jabber Search Compatibility',
  'tool-discovery': 'Tool Discovery',
  'task-execution': 'Task Execution',
  'interactive-tasks': 'Interactive Tasks',
  'self-registration': 'Self Registration',
  'admin-provisioning': 'Administrative Provisioning',
  'human-messaging': 'Human Messaging',
};

/** What each profile is defined "plus" in the #conformance table; the others stand alone. */
const BUILDS_ON: Readonly<Partial<Record<ProfileId, ProfileId>>> = {
  'jabber-search': 'core-directory',
  'tool-discovery': 'core-directory',
  'task-execution': 'tool-discovery',
  'interactive-tasks': 'task-execution',
};

export function isProfileId(value: string): value is ProfileId {
  return (PROFILE_IDS as readonly string[]).includes(value);
}

/** The claimed profiles with every profile they build on, in the order of the #conformance table. */
export function withImpliedProfiles(claimed: readonly ProfileId[]): ProfileId[] {
  const closure = new Set<ProfileId>();
  for (const profile of claimed) {
    for (let next: ProfileId | undefined = profile; next !== undefined; next = BUILDS_ON[next]) {
      closure.add(next);
    }
  }
  return PROFILE_IDS.filter((profile) => closure.has(profile));
}
