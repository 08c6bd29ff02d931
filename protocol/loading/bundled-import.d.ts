/** The module namespace of `entry` (an absolute path to a .ts file), from its bundle when possible. */
export function importTypeScript(entry: string): Promise<Record<string, unknown>>;
/** The path of `entry`'s bundle in `cacheDir` (default node_modules/.cache/agentconf), built first unless fresh. */
export function bundleOf(entry: string, cacheDir?: string): Promise<string>;
