-- agentconf harness (docs/federation.md, "Blocking"): a server that keeps XEP-0191 blocklists
-- but does not apply them to messages from the listed domains (XEP-0114 components reached
-- across federation), the situation #implementation-status of the ProtoXEP reports for one
-- deployment. It makes a gateway that leaves blocking to server routing observable: its
-- messages to a user who blocked the endpoint or the gateway domain are delivered here.
--
-- Only a blocked message from a listed domain takes this path (delivered as mod_message would,
-- offline storage included); every other stanza is routed and filtered as usual.

local jid_split = require "util.jid".split;
local jid_bare = require "util.jid".bare;
local jid_prep = require "util.jid".prep;
local set = require "util.set";
local user_exists = require "core.usermanager".user_exists;

local full_sessions = prosody.full_sessions;
local bare_sessions = prosody.bare_sessions;
local unenforced = set.new(module:get_option_array("agentconf_unenforced_block_senders", {}));
local store = module:open_store("blocklist");

local function blocks(username, jid)
	local list = store:get(username);
	if type(list) ~= "table" then return false; end
	if list[jid] then return true; end
	local node, host = jid_split(jid);
	if host and list[host] then return true; end
	return node ~= nil and list[node .. "@" .. host] ~= nil;
end

local function deliver(event)
	local stanza, origin = event.stanza, event.origin;
	local kind = stanza.attr.type;
	if kind ~= nil and kind ~= "chat" and kind ~= "normal" then return; end
	local from = stanza.attr.from and jid_prep(stanza.attr.from);
	if not from then return; end
	local _, from_host = jid_split(from);
	if not unenforced:contains(from_host) then return; end
	local to = stanza.attr.to;
	local username = jid_split(to);
	if not username or not blocks(username, from) then return; end
	local session = full_sessions[to];
	if session and session.send(stanza) then return true; end
	local user = bare_sessions[jid_bare(to)];
	local recipients = user and user.top_resources;
	if recipients then
		local sent;
		for i = 1, #recipients do sent = recipients[i].send(stanza) or sent; end
		if sent then return true; end
	end
	if user_exists(username, module.host) then
		return module:fire_event("message/offline/handle", { username = username; origin = origin; stanza = stanza });
	end
end

-- Above mod_blocklist's message hooks (priority 100).
module:hook("message/bare", deliver, 200);
module:hook("message/full", deliver, 200);
