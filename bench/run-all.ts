/** npm run bench: every benchmark, one after the other, printed for humans. */
import { benchAdmission, printAdmission } from './admission.ts';
import { benchCanonicalHash, printCanonicalHash } from './canonical-hash.ts';
import { benchFederation, printFederation } from './federation.ts';
import { benchReadPath, printReadPath } from './read-path.ts';
import { benchSetup, printSetup } from './setup.ts';
import { benchTaskAdmission, printTaskAdmission } from './task-admission.ts';

printCanonicalHash(benchCanonicalHash());
printTaskAdmission(await benchTaskAdmission());
printReadPath(await benchReadPath());
printFederation(await benchFederation());
printSetup(await benchSetup());
printAdmission(await benchAdmission());
