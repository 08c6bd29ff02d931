-- agentconf harness (docs/federation.md, "Blocking"): tells an entity whether a local user's
-- XEP-0191 blocklist (mod_blocklist's store) blocks that entity, and nothing else.
--
-- The ProtoXEP defines no way for an XEP-0114 component to learn a recipient's block state
-- (#security). This is the deployment-local source the reference gateway uses instead of
-- assuming that routing enforces blocks: before a hosted endpoint originates a message to a
-- user, it asks the user's server, from the endpoint's own JID,
--   <iq type='get' to='user@host'><state xmlns='urn:agentconf:block-state:0'/></iq>
-- and gets <state xmlns='urn:agentconf:block-state:0' blocked='true|false'/>. The answer is
-- about the authenticated sender of the query only (its full JID, bare JID or domain, the
-- entries mod_blocklist matches), so nobody learns another entity's entries; a blocked sender
-- learns what mod_blocklist's own bounces already tell it.

local st = require "util.stanza";
local jid_split = require "util.jid".split;
local jid_prep = require "util.jid".prep;
local user_exists = require "core.usermanager".user_exists;

local xmlns = "urn:agentconf:block-state:0";
local store = module:open_store("blocklist");

-- The same matching as mod_blocklist's is_blocked, read from its store (written before the
-- block or unblock IQ is answered), so the answer is the state the user last confirmed.
local function blocks(username, jid)
	local list = store:get(username);
	if type(list) ~= "table" then return false; end
	if list[jid] then return true; end
	local node, host = jid_split(jid);
	if host and list[host] then return true; end
	return node ~= nil and list[node .. "@" .. host] ~= nil;
end

-- Above mod_blocklist's iq/bare hook (priority 100), which would bounce a blocked asker.
module:hook("iq/bare", function(event)
	local stanza = event.stanza;
	if stanza.attr.type ~= "get" then return; end
	local query = stanza.tags[1];
	if not query or query.name ~= "state" or query.attr.xmlns ~= xmlns then return; end
	local username = jid_split(stanza.attr.to);
	local asker = stanza.attr.from and jid_prep(stanza.attr.from);
	if not username or not asker or not user_exists(username, module.host) then
		module:send(st.error_reply(stanza, "cancel", "service-unavailable"));
		return true;
	end
	module:send(st.reply(stanza):tag("state", {
		xmlns = xmlns;
		blocked = blocks(username, asker) and "true" or "false";
	}));
	return true;
end, 200);
