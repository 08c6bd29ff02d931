/**
 * The arguments of the call-out tool (CALL_OUT_TOOL), read after the engine validated them against the
 * input schema (call-out-manifest.ts). The JID is normalized here: the caller engine addresses
 * every command to the normalized bare JID (#task-message-routing).
 */
import { JidError, normalizeBareJid } from '../../../protocol/jid/index.ts';
import { canonicalJson } from '../../../protocol/json/canonical.ts';
import { isJsonObject, type JsonValue } from '../../../protocol/json/json-value.ts';

export interface CallOutRequest {
  /** Normalized bare JID. */
  readonly target: string;
  readonly tool: string;
  readonly version?: string;
  /** The arguments in RFC 8785 form, as the invoke carries them. */
  readonly canonicalArguments: string;
  readonly timeoutMs?: number;
}

export type ParsedCallOut =
  { readonly ok: true; readonly request: CallOutRequest } | { readonly ok: false; readonly problem: string };

export function parseCallOutRequest(value: JsonValue): ParsedCallOut {
  if (!isJsonObject(value)) return { ok: false, problem: 'the arguments are not an object' };
  const { target, tool, version, arguments: args, timeoutSeconds } = value;
  if (typeof target !== 'string') return { ok: false, problem: 'target is not a string' };
  if (typeof tool !== 'string' || tool === '') return { ok: false, problem: 'tool is not a name' };
  if (version !== undefined && typeof version !== 'string')
    return { ok: false, problem: 'version is not a string' };
  if (!isJsonObject(args)) return { ok: false, problem: 'arguments is not an object' };
  if (timeoutSeconds !== undefined && !(typeof timeoutSeconds === 'number' && timeoutSeconds > 0))
    return { ok: false, problem: 'timeoutSeconds is not a positive number' };
  let bare: string;
  try {
    bare = normalizeBareJid(target);
  } catch (error) {
    if (error instanceof JidError) return { ok: false, problem: 'target is not a bare JID' };
    throw error;
  }
  if (!bare.includes('@')) return { ok: false, problem: 'target is not an endpoint JID (name@domain)' };
  return {
    ok: true,
    request: {
      target: bare,
      tool,
      ...(version === undefined ? {} : { version }),
      canonicalArguments: canonicalJson(args),
      ...(timeoutSeconds === undefined ? {} : { timeoutMs: Math.round(timeoutSeconds * 1000) }),
    },
  };
}
