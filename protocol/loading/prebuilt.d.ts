export const PACKAGE_ROOT: string;
export const PREBUILT_DIR: string;
/** Entry points (paths inside the package) that `npm pack` bundles. */
export const PREBUILT_ENTRIES: readonly string[];
/** The prebuilt bundle of `entry` (an absolute path), or undefined when there is none or it is stale. */
export function prebuiltBundleOf(entry: string, root?: string): string | undefined;
/** Builds `entries` (paths inside `root`) into root/dist, replacing what was there. */
export function buildPrebuilt(root?: string, entries?: readonly string[]): Promise<void>;
/** Removes root/dist. */
export function removePrebuilt(root?: string): void;
