/**
 * The `call-out` runtime (docs/caller.md, "A gateway whose own agents call out"): the gateway as
 * a caller of remote endpoints, on the shared caller engine (reference-caller/). Off unless the
 * gateway config declares a call-out endpoint (docs/gateway-config.md, "Call-out").
 */
export {
  CALL_OUT_RUNTIME_NAME,
  CallOutRuntime,
  type CallOutLink,
  type CallOutRuntimeOptions,
} from './call-out-runtime.ts';
export { CALL_OUT_TOOL, CALL_OUT_VERSION, callOutManifest } from './call-out-manifest.ts';
export { parseCallOutRequest, type CallOutRequest } from './call-out-request.ts';
export { withCallOutEndpoint } from './call-out-endpoint.ts';
