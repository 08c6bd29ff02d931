/**
 * The credentials the suite presents to a bridge as its MCP client, each a canary of its own
 * (so a finding names where the leaked value came from), and the search for them in what the
 * bridge sent downstream. A canary is long, random and unlike any protocol value, so finding it
 * verbatim anywhere in a stanza can only mean the bridge copied it there.
 */
import type { RecordedStanza } from '../../../harness/fake-target/index.ts';
import type { CallerCaseContext } from '../framework/caller-context.ts';

const CANARY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Where an HTTP MCP client carries a credential, and the canary it carries there. */
export interface CredentialCanary {
  /** Where it rides, in words for the report. */
  readonly carrier: string;
  readonly header: string;
  /** The header's whole value. */
  readonly value: string;
  /** The secret part of the value, searched for downstream. */
  readonly secret: string;
}

/**
 * A bearer token in Authorization (MCP authorization's place for it, RFC 6750), an API key in
 * its own header and a session cookie: the three ways HTTP MCP clients present credentials to
 * a server outside or inside the OAuth profile. Fresh per case run, from its seed.
 */
export function credentialCanaries(context: CallerCaseContext): readonly CredentialCanary[] {
  const secret = (tag: string): string =>
    `agentconf-canary-${tag}-${context.random.string(CANARY_ALPHABET, 32)}`;
  const bearer = secret('bearer');
  const apiKey = secret('api-key');
  const cookie = secret('cookie');
  return [
    {
      carrier: 'Authorization bearer token',
      header: 'Authorization',
      value: `Bearer ${bearer}`,
      secret: bearer,
    },
    { carrier: 'API key header', header: 'X-API-Key', value: apiKey, secret: apiKey },
    { carrier: 'session cookie', header: 'Cookie', value: `session=${cookie}`, secret: cookie },
  ];
}

export function headersOf(canaries: readonly CredentialCanary[]): Record<string, string> {
  return Object.fromEntries(canaries.map((canary) => [canary.header, canary.value]));
}

export interface CanarySighting {
  readonly canary: CredentialCanary;
  readonly stanza: RecordedStanza;
}

/** Every stanza that carries a canary verbatim, with the canary it carries. */
export function canarySightings(
  stanzas: readonly RecordedStanza[],
  canaries: readonly CredentialCanary[],
): CanarySighting[] {
  return stanzas.flatMap((stanza) =>
    canaries.filter((canary) => stanza.xml.includes(canary.secret)).map((canary) => ({ canary, stanza })),
  );
}
