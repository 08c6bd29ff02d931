/**
 * Stanzas copied verbatim from the examples of protoxep-xmpp-agent-gateway.xml (v0.0.5), keyed by
 * stanza id and type. Test material only: some are defective on purpose of the spec's authors
 * (interp-01-#9), and parsing must still succeed.
 */
export const SPEC_STANZAS = {
  // Client discovers services on its server
  'services-1 get': `<iq from='juliet@example.net/phone'
    id='services-1'
    to='example.net'
    type='get'>
  <query xmlns='http://jabber.org/protocol/disco#items'/>
</iq>`,
  // Client discovers services on its server
  'services-1 result': `<iq from='example.net'
    id='services-1'
    to='juliet@example.net/phone'
    type='result'>
  <query xmlns='http://jabber.org/protocol/disco#items'>
    <item jid='agents.example' name='Example Agent Gateway'/>
  </query>
</iq>`,
  // Gateway service discovery information
  'gateway-info-1 get': `<iq from='juliet@example.net/phone'
    id='gateway-info-1'
    to='agents.example'
    type='get'>
  <query xmlns='http://jabber.org/protocol/disco#info'/>
</iq>`,
  // Gateway service discovery information
  'gateway-info-1 result': `<iq from='agents.example'
    id='gateway-info-1'
    to='juliet@example.net/phone'
    type='result'>
  <query xmlns='http://jabber.org/protocol/disco#info'>
    <identity category='automation'
              name='Example Agent Gateway'
              type='agent-gateway'/>
    <feature var='http://jabber.org/protocol/disco#info'/>
    <feature var='http://jabber.org/protocol/disco#items'/>
    <feature var='jabber:iq:search'/>
    <feature var='jabber:x:data'/>
    <feature var='urn:xmpp:agent-directory:0'/>
    <feature var='urn:xmpp:agent-api:0#admin'/>
    <feature var='urn:xmpp:ping'/>
  </query>
</iq>`,
  // Client lists agents
  'agents-1 get': `<iq from='juliet@example.net/phone'
    id='agents-1'
    to='agents.example'
    type='get'>
  <query xmlns='http://jabber.org/protocol/disco#items'
         node='urn:xmpp:agent-directory:0'>
    <set xmlns='http://jabber.org/protocol/rsm'>
      <max>50</max>
    </set>
  </query>
</iq>`,
  // Client lists agents
  'agents-1 result': `<iq from='agents.example'
    id='agents-1'
    to='juliet@example.net/phone'
    type='result'>
  <query xmlns='http://jabber.org/protocol/disco#items'
         node='urn:xmpp:agent-directory:0'>
    <item jid='weather@agents.example' name='Weather Agent'/>
    <item jid='calendar@agents.example' name='Calendar Agent'/>
    <set xmlns='http://jabber.org/protocol/rsm'>
      <first>calendar@agents.example</first>
      <last>weather@agents.example</last>
      <count>2</count>
    </set>
  </query>
</iq>`,
  // Endpoint service discovery information
  'endpoint-info-1 result': `<iq from='weather@agents.example'
    id='endpoint-info-1'
    to='juliet@example.net/phone'
    type='result'>
  <query xmlns='http://jabber.org/protocol/disco#info'>
    <identity category='automation'
              name='Weather Agent'
              type='agent-endpoint'/>
    <feature var='http://jabber.org/protocol/disco#info'/>
    <feature var='http://jabber.org/protocol/disco#items'/>
    <feature var='urn:xmpp:agent-endpoint:0'/>
    <feature var='urn:xmpp:agent-api:0#manifest'/>
    <feature var='urn:xmpp:agent-api:0#schema'/>
    <feature var='urn:xmpp:agent-task:0'/>
    <feature var='urn:xmpp:agent-task:0#progress'/>
    <feature var='urn:xmpp:agent-task:0#cancel'/>
    <x xmlns='jabber:x:data' type='result'>
      <field type='hidden' var='FORM_TYPE'>
        <value>urn:xmpp:agent-endpoint-info:0</value>
      </field>
      <field var='server_name'><value>weather</value></field>
      <field var='server_title'><value>Weather Agent</value></field>
      <field var='description'><value>Provides weather forecasts.</value></field>
      <field var='version'><value>1.4.0</value></field>
      <field var='manifest_hash_algo'><value>sha-256</value></field>
      <field var='manifest_hash_value'><value>K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=</value></field>
      <field var='cold_start_supported'><value>1</value></field>
      <field var='request_replay_seconds'><value>86400</value></field>
    </x>
  </query>
</iq>`,
  // Client lists endpoint tools
  'tools-1 get': `<iq from='juliet@example.net/phone'
    id='tools-1'
    to='weather@agents.example'
    type='get'>
  <query xmlns='http://jabber.org/protocol/disco#items'
         node='urn:xmpp:agent-tools:0#1.4.0'>
    <set xmlns='http://jabber.org/protocol/rsm'><max>50</max></set>
  </query>
</iq>`,
  // Client lists endpoint tools
  'tools-1 result': `<iq from='weather@agents.example'
    id='tools-1'
    to='juliet@example.net/phone'
    type='result'>
  <query xmlns='http://jabber.org/protocol/disco#items'
         node='urn:xmpp:agent-tools:0#1.4.0'>
    <item jid='weather@agents.example'
          name='Get Forecast'
          node='urn:xmpp:agent-tool:0#1.4.0#Zm9yZWNhc3QuZ2V0'/>
    <set xmlns='http://jabber.org/protocol/rsm'>
      <first>urn:xmpp:agent-tool:0#1.4.0#Zm9yZWNhc3QuZ2V0</first>
      <last>urn:xmpp:agent-tool:0#1.4.0#Zm9yZWNhc3QuZ2V0</last>
      <count>1</count>
    </set>
  </query>
</iq>`,
  // Client retrieves tool information
  'tool-info-1 get': `<iq from='juliet@example.net/phone'
    id='tool-info-1'
    to='weather@agents.example'
    type='get'>
  <query xmlns='http://jabber.org/protocol/disco#info'
         node='urn:xmpp:agent-tool:0#1.4.0#Zm9yZWNhc3QuZ2V0'/>
</iq>`,
  // Client retrieves tool information
  'tool-info-1 result': `<iq from='weather@agents.example'
    id='tool-info-1'
    to='juliet@example.net/phone'
    type='result'>
  <query xmlns='http://jabber.org/protocol/disco#info'
         node='urn:xmpp:agent-tool:0#1.4.0#Zm9yZWNhc3QuZ2V0'>
    <identity category='automation' name='Get Forecast' type='agent-tool'/>
    <feature var='http://jabber.org/protocol/disco#info'/>
    <feature var='urn:xmpp:agent-tool:0'/>
    <feature var='urn:xmpp:agent-task:0#progress'/>
    <feature var='urn:xmpp:agent-task:0#cancel'/>
    <x xmlns='jabber:x:data' type='result'>
      <field type='hidden' var='FORM_TYPE'>
        <value>urn:xmpp:agent-tool-info:0</value>
      </field>
      <field var='name'><value>forecast.get</value></field>
      <field var='description'><value>Gets a forecast for one city.</value></field>
      <field var='api_version'><value>1.4.0</value></field>
      <field var='input_schema_hash_algo'><value>sha-256</value></field>
      <field var='input_schema_hash_value'><value>XxGP62PwgOW9NLxx8ysunvuijMhSd0y4j1SSRTAbt7c=</value></field>
      <field var='read_only'><value>1</value></field>
      <field var='destructive'><value>0</value></field>
      <field var='idempotent'><value>1</value></field>
    </x>
  </query>
</iq>`,
  // Client retrieves a tool input schema
  'schema-1 get': `<iq from='juliet@example.net/phone'
    id='schema-1'
    to='weather@agents.example'
    type='get'>
  <schema-request xmlns='urn:xmpp:agent-api:0'
                  direction='input'
                  tool='forecast.get'
                  version='1.4.0'>
    <hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=</hash>
  </schema-request>
</iq>`,
  // Client retrieves a tool input schema
  'schema-1 result': `<iq from='weather@agents.example'
    id='schema-1'
    to='juliet@example.net/phone'
    type='result'>
  <schema xmlns='urn:xmpp:agent-api:0'
          direction='input'
          media-type='application/schema+json'
          tool='forecast.get'
          version='1.4.0'>
    <manifest-hash>
      <hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=</hash>
    </manifest-hash>
    <schema-hash>
      <hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>XxGP62PwgOW9NLxx8ysunvuijMhSd0y4j1SSRTAbt7c=</hash>
    </schema-hash>
    <json>{"additionalProperties":false,"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}</json>
  </schema>
</iq>`,
  // Gateway returns an agent search form
  'search-form-1 result': `<iq from='agents.example'
    id='search-form-1'
    to='juliet@example.net/phone'
    type='result'>
  <query xmlns='jabber:iq:search'>
    <instructions>Enter a nickname to search for matching agents.</instructions>
    <nick/>
    <x xmlns='jabber:x:data' type='form'>
      <title>Agent Directory Search</title>
      <field type='hidden' var='FORM_TYPE'>
        <value>jabber:iq:search</value>
      </field>
      <field label='Nickname' type='text-single' var='nick'/>
    </x>
  </query>
</iq>`,
  // Client submits an agent search
  'search-1 set': `<iq from='juliet@example.net/phone'
    id='search-1'
    to='agents.example'
    type='set'>
  <query xmlns='jabber:iq:search'>
    <set xmlns='http://jabber.org/protocol/rsm'>
      <max>50</max>
    </set>
    <x xmlns='jabber:x:data' type='submit'>
      <field type='hidden' var='FORM_TYPE'>
        <value>jabber:iq:search</value>
      </field>
      <field var='nick'><value>weather</value></field>
    </x>
  </query>
</iq>`,
  // Gateway returns agent search results
  'search-1 result': `<iq from='agents.example'
    id='search-1'
    to='juliet@example.net/phone'
    type='result'>
  <query xmlns='jabber:iq:search'>
    <x xmlns='jabber:x:data' type='result'>
      <reported>
        <field label='Jabber ID' type='jid-single' var='jid'/>
        <field label='Nickname' type='text-single' var='nick'/>
      </reported>
      <item>
        <field var='jid'><value>weather@agents.example</value></field>
        <field var='nick'><value>Weather Agent</value></field>
      </item>
    </x>
    <set xmlns='http://jabber.org/protocol/rsm'>
      <first>weather@agents.example</first>
      <last>weather@agents.example</last>
      <count>1</count>
    </set>
  </query>
</iq>`,
  // Authenticated account self-registers an immutable manifest
  'register-1 set': `<iq from='weather@agents.example/runtime'
    id='register-1'
    to='agents.example'
    type='set'>
  <register xmlns='urn:xmpp:agent-api:0'>
    <manifest media-type='application/json'>
      {"manifestSpecVersion":"0",
       "agent":{"jid":"weather@agents.example",
                "name":"weather","version":"1.4.0"},
       "tools":[]}
    </manifest>
  </register>
</iq>`,
  // Authenticated account self-registers an immutable manifest
  'register-1 result': `<iq from='agents.example'
    id='register-1'
    to='weather@agents.example/runtime'
    type='result'>
  <registered xmlns='urn:xmpp:agent-api:0'
              jid='weather@agents.example'
              version='1.4.0'>
    <hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=</hash>
  </registered>
</iq>`,
  // Administrator activates a registered version
  'activate-1 set': `<iq from='admin@example.net/console'
    id='activate-1'
    to='agents.example'
    type='set'>
  <activate xmlns='urn:xmpp:agent-api:0'
            jid='weather@agents.example'
            version='1.4.0'>
    <hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=</hash>
  </activate>
</iq>`,
  // Administrator activates a registered version
  'activate-1 result': `<iq from='agents.example'
    id='activate-1'
    to='admin@example.net/console'
    type='result'>
  <active xmlns='urn:xmpp:agent-api:0'
          jid='weather@agents.example'
          version='1.4.0'/>
</iq>`,
  // Client retrieves the selected manifest
  'manifest-1 get': `<iq from='juliet@example.net/phone'
    id='manifest-1'
    to='weather@agents.example'
    type='get'>
  <manifest-request xmlns='urn:xmpp:agent-api:0'/>
</iq>`,
  // Client retrieves the selected manifest
  'manifest-1 result': `<iq from='weather@agents.example'
    id='manifest-1'
    to='juliet@example.net/phone'
    type='result'>
  <manifest xmlns='urn:xmpp:agent-api:0'
            media-type='application/json'
            version='1.4.0'>
    <hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=</hash>
    <json>{"agent":{"jid":"weather@agents.example","name":"weather","version":"1.4.0"},"manifestSpecVersion":"0","tools":[]}</json>
  </manifest>
</iq>`,
  // Caller invokes a remote tool
  'invoke-1 set': `<iq from='planner@agents.example/worker'
    id='invoke-1'
    to='weather@agents.example'
    type='set'>
  <invoke xmlns='urn:xmpp:agent-task:0'
          api-version='1.4.0'
          request-id='req-91a6d2f49c514f44a2d223f0f97bd9fe'
          tool='forecast.get'>
    <manifest-hash>
      <hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=</hash>
    </manifest-hash>
    <arguments media-type='application/json'>{"city":"Riga"}</arguments>
    <deadline>2026-07-27T19:15:00Z</deadline>
  </invoke>
</iq>`,
  // Caller invokes a remote tool
  'invoke-1 result': `<iq from='weather@agents.example'
    id='invoke-1'
    to='planner@agents.example/worker'
    type='result'>
  <accepted xmlns='urn:xmpp:agent-task:0'
            created='2026-07-27T19:14:01Z'
            request-id='req-91a6d2f49c514f44a2d223f0f97bd9fe'
            retain-until='2026-07-28T19:14:01Z'
            revision='0'
            task-id='task-7f2a9c41d8804e96bb478af6453c0371'/>
</iq>`,
  // Federated discovery, durable acceptance, and completion
  'federated-disco-1 get': `<iq from='alice@example.com/laptop'
    id='federated-disco-1'
    to='agents.example'
    type='get'>
  <query xmlns='http://jabber.org/protocol/disco#info'/>
</iq>`,
  // Federated discovery, durable acceptance, and completion
  'federated-disco-1 result': `<iq from='agents.example'
    id='federated-disco-1'
    to='alice@example.com/laptop'
    type='result'>
  <query xmlns='http://jabber.org/protocol/disco#info'>
    <identity category='automation' type='agent-gateway'/>
    <feature var='http://jabber.org/protocol/disco#info'/>
    <feature var='http://jabber.org/protocol/disco#items'/>
    <feature var='urn:xmpp:agent-directory:0'/>
  </query>
</iq>`,
  // Federated discovery, durable acceptance, and completion
  'federated-invoke-1 set': `<iq from='alice@example.com/laptop'
    id='federated-invoke-1'
    to='weather@agents.example'
    type='set'>
  <invoke xmlns='urn:xmpp:agent-task:0'
          api-version='1.4.0'
          request-id='req-f83bf930e7ae45e6bddca1afb566df08'
          tool='forecast.get'>
    <manifest-hash>
      <hash xmlns='urn:xmpp:hashes:2'
            algo='sha-256'>K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=</hash>
    </manifest-hash>
    <arguments media-type='application/json'>{"city":"Riga"}</arguments>
  </invoke>
</iq>`,
  // Federated discovery, durable acceptance, and completion
  'federated-invoke-1 result': `<iq from='weather@agents.example'
    id='federated-invoke-1'
    to='alice@example.com/laptop'
    type='result'>
  <accepted xmlns='urn:xmpp:agent-task:0'
            created='2026-07-28T10:00:00Z'
            request-id='req-f83bf930e7ae45e6bddca1afb566df08'
            retain-until='2026-07-29T10:00:00Z'
            revision='0'
            task-id='task-c27daf5e3a9b45e086a6616e28139dcb'/>
</iq>`,
  // Federated discovery, durable acceptance, and completion
  'federated-result-1': `<message from='weather@agents.example'
         id='federated-result-1'
         to='alice@example.com/laptop'
         type='normal'>
  <event xmlns='urn:xmpp:agent-task:0'
         event-id='evt-f53573cb922d44be97a674971aa9da71'
         revision='1'
         task-id='task-c27daf5e3a9b45e086a6616e28139dcb'
         type='completed'>
    {"result":{"content":[{"type":"text","text":"Light rain, 18 C"}],
               "structuredContent":{"summary":"Light rain, 18 C"},
               "isError":false}}
  </event>
</message>`,
  // Target notifies the caller that execution is running
  'status-task-7f2a9c41d8804e96bb478af6453c0371': `<message from='weather@agents.example'
         id='status-task-7f2a9c41d8804e96bb478af6453c0371'
         to='planner@agents.example/worker'
         type='normal'>
  <event xmlns='urn:xmpp:agent-task:0'
         event-id='evt-00d7b9a9b0864dcf9308d56e8f54b392'
         revision='1'
         task-id='task-7f2a9c41d8804e96bb478af6453c0371'
         type='status'>
    {"state":"running","updatedAt":"2026-07-27T19:14:02Z"}
  </event>
</message>`,
  // Target reports progress
  'progress-task-7f2a9c41d8804e96bb478af6453c0371': `<message from='weather@agents.example'
         id='progress-task-7f2a9c41d8804e96bb478af6453c0371'
         to='planner@agents.example/worker'
         type='normal'>
  <event xmlns='urn:xmpp:agent-task:0'
         event-id='evt-50a26b5692644a7880caa7ca56ca5b54'
         revision='2'
         task-id='task-7f2a9c41d8804e96bb478af6453c0371'
         type='progress'>
    {"percent":50,"stage":"fetch","message":"Forecast received"}
  </event>
</message>`,
  // Target requests input and caller answers
  'input-request-task-7f2a9c41d8804e96bb478af6453c0371': `<message from='weather@agents.example'
         id='input-request-task-7f2a9c41d8804e96bb478af6453c0371'
         to='planner@agents.example/worker'
         type='normal'>
  <event xmlns='urn:xmpp:agent-task:0'
         event-id='evt-0b5851650e8a427f9b00499085d96f0f'
         revision='3'
         task-id='task-7f2a9c41d8804e96bb478af6453c0371'
         type='input_required'>
    {"requestId":"input-a5128a63d64146d5a6ffac65bb20c348",
     "question":"Which forecast unit should be used?",
     "inputSchema":{"type":"object","properties":{"unit":{"enum":["C","F"]}},
                    "required":["unit"]},
     "createdAt":"2026-07-27T19:14:04Z"}
  </event>
</message>`,
  // Target requests input and caller answers
  'input-answer-1 set': `<iq from='planner@agents.example/worker'
    id='input-answer-1'
    to='weather@agents.example'
    type='set'>
  <provide-input xmlns='urn:xmpp:agent-task:0'
                 expected-revision='3'
                 request-id='input-a5128a63d64146d5a6ffac65bb20c348'
                 task-id='task-7f2a9c41d8804e96bb478af6453c0371'>
    <input media-type='application/json'>{"unit":"C"}</input>
  </provide-input>
</iq>`,
  // Target requests input and caller answers
  'input-answer-1 result': `<iq from='weather@agents.example'
    id='input-answer-1'
    to='planner@agents.example/worker'
    type='result'>
  <input-accepted xmlns='urn:xmpp:agent-task:0'
                  revision='4'
                  task-id='task-7f2a9c41d8804e96bb478af6453c0371'/>
</iq>`,
  // Caller requests cancellation and target confirms
  'cancel-request-1 set': `<iq from='planner@agents.example/worker'
    id='cancel-request-1'
    to='weather@agents.example'
    type='set'>
  <cancel xmlns='urn:xmpp:agent-task:0'
          expected-revision='4'
          task-id='task-7f2a9c41d8804e96bb478af6453c0371'>
    <reason>Trip was cancelled</reason>
  </cancel>
</iq>`,
  // Caller requests cancellation and target confirms
  'cancel-request-1 result': `<iq from='weather@agents.example'
    id='cancel-request-1'
    to='planner@agents.example/worker'
    type='result'>
  <cancel-accepted xmlns='urn:xmpp:agent-task:0'
                   revision='5'
                   task-id='task-7f2a9c41d8804e96bb478af6453c0371'/>
</iq>`,
  // Caller requests cancellation and target confirms
  'cancelled-task-7f2a9c41d8804e96bb478af6453c0371': `<message from='weather@agents.example'
         id='cancelled-task-7f2a9c41d8804e96bb478af6453c0371'
         to='planner@agents.example/worker'
         type='normal'>
  <event xmlns='urn:xmpp:agent-task:0'
         event-id='evt-7413f189224b45bc8634f2eaec99961b'
         revision='6'
         task-id='task-7f2a9c41d8804e96bb478af6453c0371'
         type='cancelled'>{}</event>
</message>`,
  // Target reports task failure
  'failed-task-7f2a9c41d8804e96bb478af6453c0371': `<message from='weather@agents.example'
         id='failed-task-7f2a9c41d8804e96bb478af6453c0371'
         to='planner@agents.example/worker'
         type='normal'>
  <event xmlns='urn:xmpp:agent-task:0'
         event-id='evt-59dd231300a54913815812a0d6a422a0'
         revision='4'
         task-id='task-7f2a9c41d8804e96bb478af6453c0371'
         type='failed'>
    {"error":{"code":"unavailable",
              "message":"Forecast provider is temporarily unavailable.",
              "retryable":true}}
  </event>
</message>`,
  // Target completes a task
  'completed-task-7f2a9c41d8804e96bb478af6453c0371': `<message from='weather@agents.example'
         id='completed-task-7f2a9c41d8804e96bb478af6453c0371'
         to='planner@agents.example/worker'
         type='normal'>
  <event xmlns='urn:xmpp:agent-task:0'
         event-id='evt-2c1187df307a45e6bdef7c3b34073c7c'
         revision='4'
         task-id='task-7f2a9c41d8804e96bb478af6453c0371'
         type='completed'>
    {"result":{"content":[{"type":"text","text":"Light rain, 18 C"}],
               "structuredContent":{"summary":"Light rain, 18 C"},
               "isError":false},
     "summary":"Forecast ready"}
  </event>
</message>`,
  // Caller recovers task state
  'task-state-1 get': `<iq from='planner@agents.example/worker'
    id='task-state-1'
    to='weather@agents.example'
    type='get'>
  <task-state-request xmlns='urn:xmpp:agent-task:0'
                      task-id='task-7f2a9c41d8804e96bb478af6453c0371'/>
</iq>`,
  // Caller recovers task state
  'task-state-1 result': `<iq from='weather@agents.example'
    id='task-state-1'
    to='planner@agents.example/worker'
    type='result'>
  <task-state xmlns='urn:xmpp:agent-task:0'
              api-version='1.4.0'
              created='2026-07-27T19:14:01Z'
              endpoint='weather@agents.example'
              result-available='false'
              retain-until='2026-07-28T19:14:01Z'
              revision='2'
              state='running'
              task-id='task-7f2a9c41d8804e96bb478af6453c0371'
              updated='2026-07-27T19:14:03Z'>
    <manifest-hash>
      <hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=</hash>
    </manifest-hash>
  </task-state>
</iq>`,
  // Caller retrieves the retained terminal result
  'task-result-1 get': `<iq from='planner@agents.example/phone'
    id='task-result-1'
    to='weather@agents.example'
    type='get'>
  <task-result-request xmlns='urn:xmpp:agent-task:0'
                       task-id='task-7f2a9c41d8804e96bb478af6453c0371'/>
</iq>`,
  // Caller retrieves the retained terminal result
  'task-result-1 result': `<iq from='weather@agents.example'
    id='task-result-1'
    to='planner@agents.example/phone'
    type='result'>
  <task-result xmlns='urn:xmpp:agent-task:0'
               media-type='application/json'
               revision='4'
               state='completed'
               task-id='task-7f2a9c41d8804e96bb478af6453c0371'>
    {"result":{"content":[{"type":"text","text":"Light rain, 18 C"}],
               "structuredContent":{"summary":"Light rain, 18 C"},
               "isError":false}}
  </task-result>
</iq>`,
} as const;

export type SpecStanzaKey = keyof typeof SPEC_STANZAS;
