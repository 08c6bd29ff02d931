import { describe, expect, it } from 'vitest';
import * as stanza from './index.ts';

describe('the stanza barrel', () => {
  it('re-exports a parser and a builder for every element family', () => {
    const pairs = [
      'Hash',
      'Register',
      'Registered',
      'Activate',
      'Active',
      'Deactivate',
      'Deactivated',
      'RegistrationStatus',
      'Registration',
      'RemoveVersion',
      'RemoveEndpoint',
      'Removed',
      'ManifestRequest',
      'Manifest',
      'SchemaRequest',
      'Schema',
      'Invoke',
      'Accepted',
      'ProvideInput',
      'InputAccepted',
      'Cancel',
      'CancelAccepted',
      'Event',
      'LifecycleMessage',
      'TaskStateRequest',
      'TaskState',
      'TaskResultRequest',
      'TaskResult',
      'RsmRequest',
      'RsmResponse',
      'DataForm',
      'DiscoInfoRequest',
      'DiscoInfo',
      'DiscoItemsRequest',
      'DiscoItems',
      'SearchFormRequest',
      'SearchForm',
      'SearchRequest',
      'SearchResults',
      'StanzaError',
      'Iq',
      'Message',
    ];
    const exported = stanza as unknown as Record<string, unknown>;
    const missing = pairs.flatMap((name) =>
      [`parse${name}`, `build${name}`].filter((fn) => typeof exported[fn] !== 'function'),
    );
    expect(missing).toEqual([]);
    expect(typeof stanza.parseXml).toBe('function');
    expect(typeof stanza.serialize).toBe('function');
    expect(stanza.StanzaParseError.prototype).toBeInstanceOf(Error);
  });
});
