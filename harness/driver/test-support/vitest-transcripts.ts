// One transcript per vitest test: every caller of the driver records into it, and a failing
// test prints it (what was sent and received, in order, with the exact XML).
import { beforeEach } from 'vitest';

import type { Driver } from '../driver.ts';
import { Transcript } from '../transcript.ts';

/** Call inside a describe block; `driver` is read at each test (drivers are usually made in beforeAll). */
export function transcriptPerTest(driver: () => Driver): void {
  beforeEach((context) => {
    const transcript = driver().useTranscript(new Transcript(context.task.fullTestName));
    context.onTestFailed(() => {
      process.stderr.write(`\n${transcript.toText()}\n`);
    });
  });
}
