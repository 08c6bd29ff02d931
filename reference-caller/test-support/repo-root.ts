/** The repository root, for tests that read fixtures (reference-caller and the layers on it may not import harness/). */
import { fileURLToPath } from 'node:url';

export const REPO_ROOT_FOR_TESTS = fileURLToPath(new URL('../..', import.meta.url));
