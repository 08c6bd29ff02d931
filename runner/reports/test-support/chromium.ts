/**
 * Headless Chromium screenshots for the report rendering tests. Chromium comes from the
 * harness's own Debian installer (CHROMIUM in debian-packages.ts, the chromium entry of system-tools.ts),
 * which installs it on first use as root; where it cannot be installed the tests say NOT RUN instead
 * of passing.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { CHROMIUM, ensureSoftware } from '../../../harness/federation/debian-packages.ts';

const run = promisify(execFile);

/** The chromium executable, or undefined after printing why the rendering tests do not run. */
export async function findChromium(): Promise<string | undefined> {
  try {
    return await ensureSoftware(CHROMIUM);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(`\n*** NOT RUN: report rendering in headless Chromium — ${reason} ***\n\n`);
    return undefined;
  }
}

export interface ScreenshotOptions {
  readonly width: number;
  readonly height: number;
}

/** Renders a local HTML file and writes a PNG of the window. */
export async function screenshot(
  chromium: string,
  page: string,
  png: string,
  { width, height }: ScreenshotOptions,
): Promise<void> {
  // A profile of its own per call: parallel test files must not share Chromium's profile lock.
  const profile = mkdtempSync(join(tmpdir(), 'agentconf-chromium-'));
  try {
    await run(
      chromium,
      [
        '--headless',
        // Required as root; the page is our own file.
        '--no-sandbox',
        '--disable-gpu',
        '--hide-scrollbars',
        '--no-first-run',
        '--disable-dev-shm-usage',
        `--user-data-dir=${profile}`,
        // Lets script-built pages (the Allure report) finish rendering before the shot.
        '--virtual-time-budget=15000',
        `--window-size=${String(width)},${String(height)}`,
        `--screenshot=${png}`,
        pathToFileURL(page).href,
      ],
      { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
    );
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}
