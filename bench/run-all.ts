/** npm run bench: every benchmark, one after the other, printed for humans. */
import { benchAdmission, printAdmission } from './admission.ts';
import { benchCanonicalHash, printCanonicalHash } from './canonical-hash.ts';
import { benchFederation, printFederation } from './federation.ts';
import { benchSetup, printSetup } from './setup.ts';
import { benchTaskAdmission, printTaskAdmission } from './task-admission.ts';

printCanonicalHash(benchCanonicalHash());
printTaskAdmission(await benchTaskAdmission());
printFederation(await benchFederation());
printSetup(await benchSetup());
printAdmission(await benchAdmission());
