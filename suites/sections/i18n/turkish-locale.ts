/**
 * Whether the gateway runs where locale-dependent matching would show (#i18n): only a locale whose
 * case rules for I and i differ from the root locale's (CLDR: Turkish, Azerbaijani) tells a
 * locale-independent gateway from one that follows the process locale. Every i18n case sends its
 * vectors whatever the locale (a failure is a failure anywhere) and ends with this.
 */
import type { CaseContext } from '../../framework/context.ts';
import { MissingFixture } from '../../framework/verdicts.ts';

/** Locales whose case mapping of I and i differs from the root locale's (CLDR: tr, az). */
export function caseMappingDiffers(locale: string | undefined): boolean {
  return locale !== undefined && /^(tr|az)(?:[_-]|$)/i.test(locale);
}

/** Cannot tell unless the gateway runs under such a locale: nothing else shows locale independence. */
export function requireTurkishLocale(context: CaseContext): void {
  if (caseMappingDiffers(context.sut.locale)) return;
  throw new MissingFixture(
    `the gateway runs ${context.sut.locale === undefined ? 'in no known locale (started by someone else, or in C)' : `under ${context.sut.locale}`}, where I and i case-map as everywhere else: nothing shows locale independence. Start it under a Turkish locale: "env": { "LC_ALL": "tr_TR.UTF-8" } in the SUT file's launch, or, for a gateway the harness does not start, run it so and declare "external": { "locale": "tr_TR.UTF-8" } (docs/sut.md)`,
  );
}
