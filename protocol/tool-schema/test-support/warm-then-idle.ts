// A process that warms the shared validator (a worker and its standby), validates once, and
// then has nothing left to do: it must exit on its own (budget.test.ts). Prints "validated".
import { compileToolSchema, validateWithinBudget } from '../index.ts';

const compiled = await compileToolSchema({ type: 'object' }, { direction: 'input' });
const outcome = await validateWithinBudget(compiled, {}, { timeoutMs: 20_000 });
process.stdout.write('valid' in outcome && outcome.valid ? 'validated\n' : 'not validated\n');
