import { describe, expect, it } from 'vitest';
import { unsafeTrace } from './safe-text.ts';

describe('unsafeTrace', () => {
  it.each([
    ['Error: boom\n    at handle (/srv/gateway/tasks/engine.ts:41:7)\n    at process'],
    ['failed at Object.<anonymous> (node:internal/main:12:3)\n'],
    ['Traceback (most recent call last):\n  File "x", line 1'],
    ['at org.example.Gateway.run(Gateway.java:88)'],
    ['cannot open /home/gw/app/store/sqlite-store.js'],
    ['see src\\tasks\\engine.ts:12'],
    ['loaded from node_modules/ajv'],
    ['module file:///srv/app/index.js failed'],
  ])('finds an implementation trace in %j', (text) => {
    expect(unsafeTrace(text)).toBeDefined();
  });

  it.each([
    ['The input request expired without an answer.'],
    ['/steps/0/complete: must be object'],
    ['arguments do not match the tool schema at /properties/unit'],
    ['see https://example.com/docs/errors.html'],
    ['the tool at weather@agents.example failed'],
    ['deadline 2026-07-27T19:15:00Z passed'],
    ['version 1.0.0 of script.typed'],
  ])('leaves the honest diagnostic %j alone', (text) => {
    expect(unsafeTrace(text)).toBeUndefined();
  });
});
