export { recipientBlockState, type BlockState, type OutboundIq } from './block-state.ts';
export {
  CHAT_FEATURES,
  chatMessage,
  chatTurnOf,
  receiptFor,
  type ChatRequest,
  type ChatTurn,
} from './chat-turn.ts';
export { MessagingService, type MessagingOptions, type Origination } from './messaging-service.ts';
