/**
 * Ctrl-C (SIGINT) or SIGTERM while `sfbench run` or `sfbench campaign`
 * measures. Node's default exits at once and leaves the target running in its
 * own process group, with its PostgreSQL or Kafka: a core kept busy under
 * whatever is measured next. The first signal aborts the command's signal
 * instead: the run stops its target at once and writes its document as
 * interrupted, and a campaign starts no further trial. A second signal exits
 * at once.
 */
let controller: AbortController | undefined;

function onSignal(sig: NodeJS.Signals): void {
  if (!controller || controller.signal.aborted) process.exit(130);
  process.stderr.write(`${sig}: stopping the target and ending the run (${sig} again exits at once and leaves it running)\n`);
  controller.abort(`${sig} from the command line`);
}

/** The command's signal, aborted by its first SIGINT or SIGTERM (the handlers are installed on first use). */
export function commandSignal(): AbortSignal {
  if (!controller) {
    controller = new AbortController();
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  }
  return controller.signal;
}

/** The command ended: the signals act as node's default again. */
export function endCommandSignal(): void {
  if (!controller) return;
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  controller = undefined;
}
