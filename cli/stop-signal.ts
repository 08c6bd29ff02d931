/** The first SIGTERM or SIGINT, for commands that run until stopped; dispose() stops listening. */
export function listenForStopSignal(): { readonly received: Promise<NodeJS.Signals>; dispose(): void } {
  let resolveSignal: (signal: NodeJS.Signals) => void = () => undefined;
  const received = new Promise<NodeJS.Signals>((resolve) => {
    resolveSignal = resolve;
  });
  const stop = (signal: NodeJS.Signals): void => {
    dispose();
    resolveSignal(signal);
  };
  const dispose = (): void => {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return { received, dispose };
}
