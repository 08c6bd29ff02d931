/** Presence for hosted endpoint JIDs (#identity-presence): pure decisions, wired by the component. */
export { respondToPresence, type PresenceContext, type PresenceRequest } from './presence-responder.ts';
