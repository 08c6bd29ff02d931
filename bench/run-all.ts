/** npm run bench: every benchmark, one after the other, printed for humans. */
import { benchAdmission, printAdmission } from './admission.ts';
import { benchCanonicalHash, printCanonicalHash } from './canonical-hash.ts';
import { benchFederation, printFederation } from './federation.ts';
import { benchTaskAdmission, printTaskAdmission } from './task-admission.ts';

printCanonicalHash(benchCanonicalHash());
printTaskAdmission(await benchTaskAdmission());
printFederation(await benchFederation());
printAdmission(await benchAdmission());
