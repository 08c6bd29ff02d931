/**
 * The reference gateway as bench/admission runs it: a process of its own, started like
 * `agentconf gateway --config FILE` (startGatewayRuntime), with the task capacities raised so a
 * long run of admissions is never refused for capacity — the bench measures admission, and its
 * tasks stay running (idle) until the gateway stops. Prints "online" once connected; on SIGTERM
 * prints its admission commits and the CPU time it used since "online", then stops. With
 * ADMISSION_PROFILE=FILE set, the run from "online" on is CPU-profiled into FILE (a
 * .cpuprofile for Chrome DevTools or speedscope), which is how the hot path was measured.
 * Usage: node bin/run-ts.js bench/admission-gateway.ts CONFIG
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { sharedBudgetedValidator } from '../protocol/tool-schema/index.ts';
import { startGatewayRuntime } from '../reference-gateway/component/index.ts';
import { loadGatewayConfig } from '../reference-gateway/config/gateway-config.ts';

const [configPath] = process.argv.slice(2);
if (configPath === undefined) throw new Error('usage: admission-gateway.ts CONFIG');
const profileFile = process.env['ADMISSION_PROFILE'];
const session = profileFile === undefined || profileFile === '' ? undefined : new Session();
const runtime = await startGatewayRuntime(loadGatewayConfig(configPath), {
  log: (line) => process.stderr.write(`${line}\n`),
  tasks: { limits: { maxActiveTasks: 1_000_000, maxActiveTasksPerCaller: 1_000_000 } },
});
if (session !== undefined) {
  // From "online" on: the profile shows the admissions, not the start-up.
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
const cpuAtOnline = process.cpuUsage();
process.stdout.write('online\n');
process.once('SIGTERM', () => {
  void (async () => {
    const cpu = process.cpuUsage(cpuAtOnline);
    process.stdout.write(`admission commits ${String(runtime.gateway.tasks.engine.admissionCommits)}\n`);
    // CPU time from online to stop (worker threads included): steadier than throughput on a
    // shared machine, and where hot-path work shows.
    process.stdout.write(`cpu microseconds ${String(cpu.user + cpu.system)}\n`);
    process.stdout.write(`validation batches ${String(sharedBudgetedValidator().batchesSent)}\n`);
    process.stdout.write(`wal syncs ${String(runtime.state.store.walSyncs)}\n`);
    if (session !== undefined && profileFile !== undefined) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(profileFile, JSON.stringify(profile));
    }
    await runtime.stop();
    process.exit(0);
  })();
});
