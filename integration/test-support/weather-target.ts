/**
 * The fake target's one-tool world the caller integration tests call into: weather@target.example
 * serving forecast.get (a city in, nothing promised out) at 1.0.0.
 */
import { simpleManifest, type FakeTargetWorld } from '../../harness/fake-target/target-world.ts';

export const WEATHER = 'weather@target.example';
export const FORECAST = 'forecast.get';

export const WEATHER_WORLD: FakeTargetWorld = {
  endpoints: [
    {
      jid: WEATHER,
      manifests: [
        simpleManifest(WEATHER, '1.0.0', [
          {
            name: FORECAST,
            inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        ]),
      ],
    },
  ],
};
