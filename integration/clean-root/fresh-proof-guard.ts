// The clean-root proofs build a Debian root and run whole installs in it: minutes each, as root.
// Under the default vitest config (npm test) they would also run inside the root they build.

/** Throws unless this file runs under vitest.fresh.config.ts, as root. */
export function requireFreshProofRun(): void {
  if (process.env['AGENTCONF_FRESH_PROOF'] !== '1') {
    throw new Error(
      'The clean-root proofs run only under vitest.fresh.config.ts (npx vitest run --config vitest.fresh.config.ts).',
    );
  }
  if (process.getuid?.() !== 0)
    throw new Error('The clean-root proofs need root (debootstrap, chroot, mounts).');
}
