import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStrictJson } from '../protocol/json/strict-json.ts';
import { REPO_ROOT } from '../protocol/test-support/shared-paths.ts';
import { parseGatewayConfig } from '../reference-gateway/config/gateway-config.ts';
import { expandLaunch } from '../harness/sut/expand-launch.ts';
import { loadSutConfig } from '../harness/sut/sut-config.ts';

// The SUT template and the gateway's own config schema are written in two places; this keeps
// the file the harness writes for the reference gateway acceptable to the gateway itself.
describe('the reference gateway SUT template', () => {
  it('expands into a gateway config that the gateway accepts', async () => {
    const sut = await loadSutConfig(resolve(REPO_ROOT, 'fixtures/sut/reference-gateway.json'));
    if (sut.launch === 'external') throw new Error('the reference template must launch the gateway');
    const dataDir = '/run/agentconf-test';
    const launch = expandLaunch(sut.launch, {
      serverHost: '127.0.0.9',
      componentPort: 5347,
      componentDomain: 'agents.example',
      componentSecret: 's3cret',
      worldFile: resolve(REPO_ROOT, 'fixtures/worlds/reference.json'),
      dataDir,
      caFile: `${dataDir}/ca.crt`,
      adminJid: 'admin@server.example',
    });
    const file = launch.files.find((f) => f.name === 'gateway.json');
    expect(file).toBeDefined();
    const config = parseGatewayConfig(parseStrictJson(file?.content ?? ''), {
      source: 'gateway.json',
      baseDir: dataDir,
    });
    expect(config).toMatchObject({ localDomains: ['server.example'], admins: ['admin@server.example'] });
  });
});
