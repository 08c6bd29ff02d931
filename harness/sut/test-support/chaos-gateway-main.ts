// The chaos gateway as a process of its own, launched by a SUT file like any gateway. Configured
// by environment: CHAOS_HOST, CHAOS_PORT, CHAOS_DOMAIN, CHAOS_SECRET, CHAOS_SEED, CHAOS_LATE_MS,
// CHAOS_DISCO_INFO ('advertise-all' or 'chaos') and, optionally, CHAOS_ANSWERS (a comma-separated
// subset of IQ_ANSWERS).
// Prints its seed first (to replay a run's chaos) and "online" once connected.
import { IQ_ANSWERS, startChaosGateway, type IqAnswer } from './chaos-gateway.ts';

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
}

function answersOf(list: string | undefined): IqAnswer[] | undefined {
  if (list === undefined || list === '') return undefined;
  return list.split(',').map((name) => {
    const answer = IQ_ANSWERS.find((known) => known === name);
    if (answer === undefined) throw new Error(`CHAOS_ANSWERS: no answer ${name} (${IQ_ANSWERS.join(', ')})`);
    return answer;
  });
}

const seed = Number(required('CHAOS_SEED'));
const answers = answersOf(process.env['CHAOS_ANSWERS']);
process.stdout.write(`chaos gateway: seed ${String(seed)}\n`);
const gateway = await startChaosGateway({
  host: required('CHAOS_HOST'),
  port: Number(required('CHAOS_PORT')),
  domain: required('CHAOS_DOMAIN'),
  secret: required('CHAOS_SECRET'),
  seed,
  lateMs: Number(required('CHAOS_LATE_MS')),
  discoInfo: required('CHAOS_DISCO_INFO') === 'chaos' ? 'chaos' : 'advertise-all',
  ...(answers === undefined ? {} : { answers }),
});
process.stdout.write('online\n');
process.on('SIGTERM', () => {
  void gateway.stop().then(() => {
    process.stdout.write(`chaos gateway: answers drawn ${JSON.stringify(gateway.drawn)}\n`);
    process.exit(0);
  });
});
