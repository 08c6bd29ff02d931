/**
 * A report file as a value: the format modules are pure functions from a RunResult to these,
 * and only writeReportFiles touches the disk, so every format is tested without a file system.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';

export interface ReportFile {
  /** Relative to the run's output directory, '/'-separated. */
  readonly path: string;
  readonly content: string | Uint8Array;
}

/** Writes the files under `outDir`; refuses paths that would land outside it (a case ID is data). */
export function writeReportFiles(outDir: string, files: readonly ReportFile[]): string[] {
  return files.map((file) => {
    const relative = normalize(file.path);
    if (isAbsolute(relative) || relative === '..' || relative.startsWith(`..${sep}`)) {
      throw new Error(`report file ${JSON.stringify(file.path)} is outside the output directory`);
    }
    const target = join(outDir, relative);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.content);
    return target;
  });
}
