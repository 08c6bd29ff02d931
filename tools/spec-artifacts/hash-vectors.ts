/**
 * Hash vectors computed independently of the spec's own <hash/> values (interp-01:
 * Python, a local RFC 8785 serializer, SHA-256 → Base64). They pin our canonicalizer to the
 * spec's JSON, and they catch a spec revision that changes JSON and hashes together.
 */

export interface HashVector {
  readonly label: string;
  /** Example caption and JSON site (see example-documents.ts) holding the JSON. */
  readonly caption: string;
  readonly site: string;
  /** RFC 6901 pointer into that JSON; '' for the whole document. */
  readonly pointer: string;
  readonly expected: string;
}

const REGISTER_EXAMPLE = 'Authenticated account self-registers an immutable manifest';
const FULL_MANIFEST_EXAMPLE = 'Agent API manifest';

export const MINIMAL_MANIFEST_HASH = 'K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=';
export const FORECAST_INPUT_SCHEMA_HASH = 'XxGP62PwgOW9NLxx8ysunvuijMhSd0y4j1SSRTAbt7c=';
export const FORECAST_OUTPUT_SCHEMA_HASH = 'JK2ilcD8njJXVkTPU99lYYmhxbaGg3SKqalwaR1GOuA=';
/** Appears nowhere in the spec: its examples pin the minimal manifest instead (#1). */
export const FULL_MANIFEST_HASH = 'fFqwrKetRrAKF1IPjZ8z2G6O6OKLd5RwO0DG0RtyDhg=';

export const HASH_VECTORS: readonly HashVector[] = [
  {
    label: 'minimal manifest, as registered',
    caption: REGISTER_EXAMPLE,
    site: 'register/manifest',
    pointer: '',
    expected: MINIMAL_MANIFEST_HASH,
  },
  {
    label: 'minimal manifest, as served',
    caption: 'Client retrieves the selected manifest',
    site: 'manifest/json',
    pointer: '',
    expected: MINIMAL_MANIFEST_HASH,
  },
  {
    label: 'forecast.get input schema, as served',
    caption: 'Client retrieves a tool input schema',
    site: 'schema/json',
    pointer: '',
    expected: FORECAST_INPUT_SCHEMA_HASH,
  },
  {
    label: 'full Agent API manifest',
    caption: FULL_MANIFEST_EXAMPLE,
    site: 'example',
    pointer: '',
    expected: FULL_MANIFEST_HASH,
  },
  {
    label: 'forecast.get input schema, in the full manifest',
    caption: FULL_MANIFEST_EXAMPLE,
    site: 'example',
    pointer: '/tools/0/inputSchema',
    expected: FORECAST_INPUT_SCHEMA_HASH,
  },
  {
    label: 'forecast.get output schema, in the full manifest',
    caption: FULL_MANIFEST_EXAMPLE,
    site: 'example',
    pointer: '/tools/0/outputSchema',
    expected: FORECAST_OUTPUT_SCHEMA_HASH,
  },
];
