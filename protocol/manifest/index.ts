export { httpsUriViolation, type HttpsUriRule } from './https-uri.ts';
export {
  toolExtensionMembers,
  type AgentApiToolExtension,
  type Manifest,
  type ManifestAgent,
  type ManifestImplementation,
  type ManifestTool,
} from './manifest-types.ts';
export {
  isIpv6Address,
  parseUri,
  uriComparisonForm,
  type UriComponents,
  type UriParse,
  type UriSyntaxRule,
} from './rfc3986.ts';
export type { CompiledToolSchemas } from './tool-schemas.ts';
export {
  validateManifest,
  validateManifestBytes,
  type InvalidManifest,
  type ManifestValidation,
  type ManifestViolation,
  type ValidManifest,
} from './validate-manifest.ts';
