import { describe, expect, it } from 'vitest';

import {
  chooseProsodyImage,
  LOCAL_PROSODY_IMAGE,
  missingImageMessage,
  OFFICIAL_PROSODY_IMAGE,
  PROSODY_IMAGE_ENV,
} from './prosody-image.ts';

describe('Prosody image choice', () => {
  const none = { option: undefined, env: undefined, officialPresent: false, localPresent: false };

  it('takes the option, then the environment variable', () => {
    expect(chooseProsodyImage({ ...none, option: 'mine:1', env: 'env:2', officialPresent: true })).toEqual({
      image: 'mine:1',
      reason: 'option',
    });
    expect(chooseProsodyImage({ ...none, env: 'env:2', localPresent: true })).toEqual({
      image: 'env:2',
      reason: PROSODY_IMAGE_ENV,
    });
  });

  it('prefers the official image, then a locally built one, then pulls the official one', () => {
    expect(chooseProsodyImage({ ...none, officialPresent: true, localPresent: true }).image).toBe(
      OFFICIAL_PROSODY_IMAGE,
    );
    expect(chooseProsodyImage({ ...none, localPresent: true }).image).toBe(LOCAL_PROSODY_IMAGE);
    expect(chooseProsodyImage(none)).toEqual({
      image: OFFICIAL_PROSODY_IMAGE,
      reason: 'official image, to be pulled',
    });
  });

  it('says how to build the image when none can be had', () => {
    expect(missingImageMessage(LOCAL_PROSODY_IMAGE, 'it has not been built')).toMatch(
      /harness\/containers\/build-image/,
    );
    expect(missingImageMessage(OFFICIAL_PROSODY_IMAGE, 'pulling it failed')).toMatch(
      /build-image[\s\S]*AGENTCONF_PROSODY_IMAGE=local\/prosody:0\.12/,
    );
  });
});
