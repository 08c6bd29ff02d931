/**
 * The locale a launched gateway runs under (#i18n: matching must not depend on it): the harness
 * adds the SUT file's `launch.env` to its own environment (harness/faults/managed-process.ts), and
 * ICU, which Node's Intl and locale-sensitive string functions use, takes its default locale from
 * LC_ALL, then LC_MESSAGES, then LANG. Undefined for a gateway started by someone else, or when
 * none of them is set (the C locale).
 *
 * Measured with Node 20.20 under LC_ALL=tr_TR.UTF-8 (no tr_TR locale installed: ICU has its own
 * data): the default Intl locale becomes tr-TR, so localeCompare and Intl.Collator order and
 * match the Turkish way ('I' and 'ı' are one letter at base strength), and
 * 'I'.toLocaleLowerCase([]) gives 'ı'; 'I'.toLocaleLowerCase() without an argument still gives 'i'.
 */
import type { ExternalGatewayControl, SutLaunch } from './sut-config.ts';

export function launchLocale(
  launch: SutLaunch,
  base: Readonly<Record<string, string | undefined>> = process.env,
  external: ExternalGatewayControl = {},
): string | undefined {
  // The operator's word is all there is for a gateway started by someone else (SUT `external.locale`).
  if (launch === 'external') return external.locale;
  const env = { ...base, ...launch.env };
  const locale = [env['LC_ALL'], env['LC_MESSAGES'], env['LANG']].find(
    (value) => value !== undefined && value !== '',
  );
  return locale === 'C' || locale === 'POSIX' ? undefined : locale;
}
