// A process that starts warming the shared validator and has nothing else to do (budget.test.ts).
// With the argument "leave" it warms with holdProcess: false and must exit before the workers
// are ready; otherwise the warm-up holds it until they are. Prints "left" or "waited" at exit.
import { sharedBudgetedValidator } from '../index.ts';

let warmed = false;
const leave = process.argv[2] === 'leave';
void sharedBudgetedValidator()
  .warmUp(leave ? { holdProcess: false } : {})
  .then((ready) => {
    warmed = ready;
  });
process.on('exit', () => {
  process.stdout.write(warmed ? 'waited\n' : 'left\n');
});
