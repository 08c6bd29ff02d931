/**
 * The compiled JSON Schemas of the gateway config and the fixture world. The world schema
 * reuses the config's grant definition by $id, so both are registered with one Ajv instance.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import fixtureWorldSchema from '../../fixtures/schemas/fixture-world.schema.json' with { type: 'json' };
import gatewayConfigSchema from '../../fixtures/schemas/gateway-config.schema.json' with { type: 'json' };
import { createConfigAjv } from './config-problems.ts';

const ajv = createConfigAjv();
ajv.addSchema(gatewayConfigSchema);

export const validateGatewayConfigSchema: ValidateFunction = ajv.compile(gatewayConfigSchema);
export const validateFixtureWorldSchema: ValidateFunction = ajv.compile(fixtureWorldSchema);
