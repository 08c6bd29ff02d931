/**
 * What a person sees: the interop matrix and the Allure report rendered by headless Chromium,
 * checked on the decoded screenshot pixels (not blank, and for the matrix, cells in the verdict
 * colours). Also proves the Allure HTML is generated from our results as Allure read them.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from './main.ts';
import type { CliIo } from './io.ts';
import { PARTIAL_PASS_COLOUR, VERDICT_COLOURS } from '../runner/reports/matrix-html.ts';
import { findChromium, screenshot } from '../runner/reports/test-support/chromium.ts';
import { colourHistogram, decodePng, type DecodedPng } from '../runner/reports/test-support/png.ts';
import { syntheticRunResult } from '../runner/reports/test-support/synthetic-run.ts';
import { writeReports, type WrittenReports } from '../runner/reports/write-reports.ts';

const chromium = await findChromium();
const root = mkdtempSync(join(tmpdir(), 'agentconf-render-'));
const failingRun = join(root, 'failing');
const passingRun = join(root, 'passing');
const gapsRun = join(root, 'gaps');
const partialRun = join(root, 'partial');
const matrixPage = join(root, 'matrix.html');
let failingReports: WrittenReports;

beforeAll(async () => {
  failingReports = await writeReports(syntheticRunResult(), failingRun, { allureHtml: true });
  await writeReports(syntheticRunResult({ allPass: true, subjectName: 'Second Gateway' }), passingRun);
  // Core Directory and Administrative Provisioning INCOMPLETE, Tool Discovery NOT ASSESSED.
  await writeReports(
    syntheticRunResult({ allPass: true, gaps: true, fixtures: 'manual', subjectName: 'Third Gateway' }),
    gapsRun,
  );
  await writeReports(
    syntheticRunResult({ allPass: true, partial: true, subjectName: 'Fourth Gateway' }),
    partialRun,
  );
  const io: CliIo = {
    out: () => undefined,
    err: (text) => process.stderr.write(text),
    readFile: readFileSync,
  };
  expect(await main(['matrix', failingRun, passingRun, gapsRun, partialRun, '--out', matrixPage], io)).toBe(
    0,
  );
}, 240_000);

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function pixelsNear(histogram: Map<string, number>, hex: string): number {
  const target = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  let count = 0;
  for (const [colour, pixels] of histogram) {
    const rgb = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
    if (rgb.every((channel, i) => Math.abs(channel - (target[i] ?? 0)) <= 3)) count += pixels;
  }
  return count;
}

/** Not blank: several colours, and a fair share of pixels that are not the background. */
function expectNotBlank(png: DecodedPng, histogram: Map<string, number>): void {
  const total = png.width * png.height;
  const background = Math.max(...histogram.values());
  expect(histogram.size).toBeGreaterThan(20);
  expect(total - background).toBeGreaterThan(total * 0.02);
}

describe('the Allure HTML report', () => {
  it('is one self-contained index.html with our five case results, two profile results and no analytics tag', () => {
    const index = join(failingRun, 'allure-report', 'index.html');
    expect(failingReports.allureHtml?.index).toBe(index);
    const html = readFileSync(index, 'utf8');
    expect(html).not.toContain('googletagmanager');
    const summary = JSON.parse(readFileSync(join(failingRun, 'allure-report', 'summary.json'), 'utf8')) as {
      stats: Record<string, number>;
    };
    // Cases: 1 passed, 1 failed, 1 broken (flaky), 2 skipped; profiles: Core Directory failed, Jabber Search passed.
    expect(summary.stats).toEqual({ total: 7, passed: 2, failed: 2, broken: 1, skipped: 2, flaky: 1 });
    const conformance = JSON.parse(readFileSync(join(failingRun, 'conformance.json'), 'utf8')) as {
      reports: Record<string, string>;
    };
    expect(conformance.reports['allureReport']).toBe('allure-report/index.html');
    expect(existsSync(join(passingRun, 'allure-report'))).toBe(false);
  });

  it.skipIf(chromium === undefined)(
    'renders in headless Chromium to a non-blank page',
    async () => {
      const png = join(root, 'allure.png');
      await screenshot(chromium ?? '', join(failingRun, 'allure-report', 'index.html'), png, {
        width: 1280,
        height: 900,
      });
      const decoded = decodePng(readFileSync(png));
      expect([decoded.width, decoded.height]).toEqual([1280, 900]);
      const histogram = colourHistogram(decoded);
      expectNotBlank(decoded, histogram);
    },
    180_000,
  );
});

describe('the interop matrix', () => {
  it.skipIf(chromium === undefined)(
    'renders in headless Chromium with cells in the colour of each verdict, a partial pass apart',
    async () => {
      const png = join(root, 'matrix.png');
      await screenshot(chromium ?? '', matrixPage, png, { width: 1400, height: 800 });
      const decoded = decodePng(readFileSync(png));
      const histogram = colourHistogram(decoded);
      expectNotBlank(decoded, histogram);
      // A cell is about 110 × 64 px: most of it is its fill colour.
      // Cells: 4 passed, 2 failed, 2 incomplete, 1 not assessed, 2 partial passes, 21 not claimed.
      expect(pixelsNear(histogram, VERDICT_COLOURS.passed)).toBeGreaterThan(4 * 3000);
      expect(pixelsNear(histogram, VERDICT_COLOURS.failed)).toBeGreaterThan(2 * 3000);
      expect(pixelsNear(histogram, VERDICT_COLOURS.incomplete)).toBeGreaterThan(2 * 3000);
      expect(pixelsNear(histogram, VERDICT_COLOURS['not-assessed'])).toBeGreaterThan(3000);
      expect(pixelsNear(histogram, PARTIAL_PASS_COLOUR)).toBeGreaterThan(2 * 3000);
      expect(pixelsNear(histogram, VERDICT_COLOURS['not-claimed'])).toBeGreaterThan(21 * 3000);
    },
    180_000,
  );
});
