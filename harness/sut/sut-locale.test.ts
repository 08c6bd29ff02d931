// The locale a launched gateway runs under: launch.env over the harness's environment, ICU's order.
import { describe, expect, it } from 'vitest';
import { launchLocale } from './sut-locale.ts';

const launch = (env: Record<string, string>) => ({
  command: ['node'] as [string],
  env,
  cwd: '/',
  files: {},
});

describe('launchLocale', () => {
  it('takes LC_ALL, then LC_MESSAGES, then LANG, launch.env over the inherited environment', () => {
    expect(launchLocale(launch({ LC_ALL: 'tr_TR.UTF-8' }), { LANG: 'en_US.UTF-8' })).toBe('tr_TR.UTF-8');
    expect(launchLocale(launch({}), { LANG: 'en_US.UTF-8', LC_MESSAGES: 'az_AZ.UTF-8' })).toBe('az_AZ.UTF-8');
    expect(launchLocale(launch({ LANG: 'tr_TR.UTF-8' }), { LANG: 'en_US.UTF-8' })).toBe('tr_TR.UTF-8');
  });

  it('is undefined for an external gateway, an unset locale and C/POSIX', () => {
    expect(launchLocale('external', { LC_ALL: 'tr_TR.UTF-8' })).toBeUndefined();
    expect(launchLocale(launch({}), {})).toBeUndefined();
    expect(launchLocale(launch({ LC_ALL: 'C' }), {})).toBeUndefined();
    expect(launchLocale(launch({ LC_ALL: '' }), { LANG: 'POSIX' })).toBeUndefined();
  });
});
