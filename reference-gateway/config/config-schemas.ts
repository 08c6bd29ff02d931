/**
 * The compiled JSON Schemas of the gateway config and the fixture world. The world schema
 * reuses the config's grant definition by $id, so both are registered with one Ajv instance.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fixtureWorldSchema from '../../fixtures/schemas/fixture-world.schema.json' with { type: 'json' };
import gatewayConfigSchema from '../../fixtures/schemas/gateway-config.schema.json' with { type: 'json' };

// Our own fixed schemas: strict mode catches mistakes in them (strictRequired would refuse the
// `oneOf: [{ required }]` idiom); verbose gives the violations their parent schema.
const ajv = new Ajv2020({
  allErrors: true,
  strict: true,
  strictRequired: false,
  allowUnionTypes: true,
  verbose: true,
  validateFormats: false,
});
ajv.addSchema(gatewayConfigSchema);

export const validateGatewayConfigSchema: ValidateFunction = ajv.compile(gatewayConfigSchema);
export const validateFixtureWorldSchema: ValidateFunction = ajv.compile(fixtureWorldSchema);
