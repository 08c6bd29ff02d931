/**
 * The validators of the gateway config and the fixture world. The world schema reuses the
 * config's grant definition by $id, so the config schema is added beside it.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import fixtureWorldSchema from '../../fixtures/schemas/fixture-world.schema.json' with { type: 'json' };
import gatewayConfigSchema from '../../fixtures/schemas/gateway-config.schema.json' with { type: 'json' };
import { configValidator } from './config-problems.ts';

export const validateGatewayConfigSchema: ValidateFunction = configValidator(gatewayConfigSchema);
export const validateFixtureWorldSchema: ValidateFunction = configValidator(fixtureWorldSchema, [
  gatewayConfigSchema,
]);
