/**
 * The launcher's children. They inherit its stdout/stderr (span lines and
 * logs go where the launcher's go) and stay in its process group, so the
 * local provider's cost sampler counts them and its SIGTERM/SIGKILL to the
 * group reaches them. The first child to exit while the launcher is not
 * stopping ends the whole target: the launcher stops the others and exits 1.
 */
import { spawn, type ChildProcess } from "node:child_process";

export interface Child {
  name: string;
  process: ChildProcess;
  /** "code 1" / "signal SIGKILL" once exited */
  exited: string | undefined;
}

export class Children {
  private readonly list: Child[] = [];
  private stopping = false;

  constructor(private readonly onUnexpectedExit: (child: Child) => void) {}

  /** Starts a child; refused once stop() was called (a SIGTERM during start-up must not leave a late child behind). */
  start(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): Child {
    if (this.stopping) throw new Error(`not starting ${name}: the target is stopping`);
    const proc = spawn(command, args, { env, stdio: ["ignore", "inherit", "inherit"] });
    const child: Child = { name, process: proc, exited: undefined };
    const ended = (how: string) => {
      if (child.exited !== undefined) return;
      child.exited = how;
      if (!this.stopping) this.onUnexpectedExit(child);
    };
    proc.on("exit", (code, signal) => ended(code !== null ? `code ${code}` : `signal ${signal}`));
    proc.on("error", (err) => ended(`an error: ${err.message}`));
    this.list.push(child);
    return child;
  }

  /** Why the launcher should give up waiting: a child that already exited. */
  firstExit(): string | undefined {
    const child = this.list.find((c) => c.exited !== undefined);
    return child ? `${child.name} exited with ${child.exited}` : undefined;
  }

  /** SIGTERM to every child still running (in reverse start order), SIGKILL after `graceMs`; resolves when all are gone. */
  async stop(graceMs = 8000): Promise<void> {
    this.stopping = true;
    const running = () => this.list.filter((c) => c.exited === undefined);
    for (const child of [...running()].reverse()) child.process.kill("SIGTERM");
    const deadline = performance.now() + graceMs;
    while (running().length > 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    for (const child of running()) child.process.kill("SIGKILL");
    while (running().length > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
