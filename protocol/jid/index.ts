export {
  JidError,
  bareJidEquals,
  bareJidOf,
  normalizeBareJid,
  normalizeJid,
  parseBareJid,
  parseJid,
  type BareJid,
  type Jid,
  type JidRule,
} from './jid.ts';
export { compareUtf8 } from './utf8-order.ts';
