/** npm run bench: every benchmark, one after the other, printed for humans. */
import { benchCanonicalHash, printCanonicalHash } from './canonical-hash.ts';

printCanonicalHash(benchCanonicalHash());
