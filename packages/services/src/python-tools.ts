/**
 * Command-line tools from PyPI (schemathesis), each in its own virtualenv under
 * `.sfbench/python/<package>-<version>`: created with the machine's python3
 * (`python3 -m venv`), filled with `pip install <package>==<version>`, kept for
 * the next call. A venv is complete only once its marker file is written, so
 * an interrupted install is redone, never half used.
 */
import { existsSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { env, paths } from "./env.ts";
import { withLock } from "./lock.ts";
import { CommandError, findExecutable, run } from "./process.ts";
import { MissingPrerequisiteError, type Progress } from "./types.ts";

export interface PythonTool {
  /** the PyPI package */
  package: string;
  /** pinned: the tool's version is part of what a test or a run measured */
  version: string;
  /** the command the package installs */
  bin: string;
}

/** The property-based OpenAPI tester that checks docs/openapi.json against a target. */
export const SCHEMATHESIS: PythonTool = { package: "schemathesis", version: "4.32.5", bin: "schemathesis" };

const MARKER = ".sfbench-installed";

export interface PythonToolOptions {
  onProgress?: Progress;
  /** where venvs go; default `.sfbench/python` */
  root?: string;
  /** the PATH to find python3 on; default the process's */
  pathEnv?: string;
}

export const pythonToolDir = (tool: PythonTool, root = path.join(paths.home, "python")) => path.join(root, `${tool.package}-${tool.version}`);

/**
 * python3 with a working `venv` module (Debian ships it separately, in python3-venv): found,
 * or installed with apt-get when running as root on a machine that has it, like redis-server.
 */
async function createVenv(tool: PythonTool, dir: string, pathEnv: string, progress: Progress): Promise<void> {
  const attempt = async () => {
    const python = findExecutable("python3", pathEnv);
    if (!python) return "python3 is not installed";
    await rm(dir, { recursive: true, force: true });
    return run(python, ["-m", "venv", dir], { timeoutMs: 120_000 }).then(
      () => undefined,
      (e: Error) => `\`python3 -m venv\` failed: ${e.message.split("\n").slice(0, 3).join(" ")}`,
    );
  };
  const problem = await attempt();
  if (problem === undefined) return;
  const aptGet = findExecutable("apt-get", pathEnv);
  if (process.getuid?.() !== 0 || !aptGet) {
    throw new MissingPrerequisiteError(`${tool.package} needs python3 with venv (${problem}): run \`sudo apt-get install -y python3 python3-venv\``);
  }
  progress("installing python3 and python3-venv with apt-get");
  const aptEnv = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const aptInstall = () => run(aptGet, ["install", "-y", "python3", "python3-venv"], { env: aptEnv, timeoutMs: 600_000 });
  await aptInstall().catch(async () => {
    await run(aptGet, ["update"], { env: aptEnv, timeoutMs: 600_000 });
    await aptInstall();
  });
  const again = await attempt();
  if (again !== undefined) throw new MissingPrerequisiteError(`apt-get installed python3-venv, but ${again}`);
}

async function install(tool: PythonTool, dir: string, pathEnv: string, progress: Progress): Promise<void> {
  progress(`installing ${tool.package} ${tool.version} from PyPI into ${dir} (once; about a minute)`);
  await createVenv(tool, dir, pathEnv, progress);
  try {
    await run(path.join(dir, "bin", "pip"), ["install", "--disable-pip-version-check", "--no-input", "--quiet", `${tool.package}==${tool.version}`], {
      timeoutMs: 10 * 60_000,
      env: { ...process.env, PIP_NO_INPUT: "1" },
    });
  } catch (e) {
    const output = e instanceof CommandError ? e.output.trim().split("\n").slice(-5).join("\n") : (e as Error).message;
    throw new MissingPrerequisiteError(`pip could not install ${tool.package}==${tool.version} from PyPI (is the network up?):\n${output}`);
  }
  const version = await run(path.join(dir, "bin", tool.bin), ["--version"], { timeoutMs: 60_000 }).catch((e: Error) => e.message);
  if (!version.includes(tool.version)) throw new Error(`${tool.bin} in ${dir} reports "${version.trim()}", expected ${tool.version}`);
  await writeFile(path.join(dir, MARKER), `${tool.package}==${tool.version}\n`);
  progress("installed");
}

/** The path of a pinned PyPI tool's command, installing it first when this machine has none. */
export async function pythonToolPath(tool: PythonTool, opts: PythonToolOptions = {}): Promise<string> {
  const dir = pythonToolDir(tool, opts.root);
  const bin = path.join(dir, "bin", tool.bin);
  const ready = () => existsSync(path.join(dir, MARKER)) && existsSync(bin);
  if (ready()) return bin;
  await withLock(`python-${tool.package}`, 15 * 60_000, async () => {
    if (!ready()) await install(tool, dir, opts.pathEnv ?? env.PATH, opts.onProgress ?? (() => undefined));
  });
  return bin;
}

/** schemathesis, pinned (see SCHEMATHESIS). */
export const schemathesisPath = (opts: PythonToolOptions = {}) => pythonToolPath(SCHEMATHESIS, opts);
