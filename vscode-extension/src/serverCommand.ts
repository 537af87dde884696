/**
 * How to start `playbook-ls serve`: from the settings, a virtualenv of the workspace, or PATH.
 * Pure: the file system, the environment and the platform are passed in (no `vscode` import).
 */
import * as nodePath from "node:path";

/** Where playbook-ls is installed from when the extension carries no wheel: its repository
 * (the one package.json names), not a package name nobody has published. */
export const SOURCE = "git+https://github.com/playbook-ls/playbook-ls";
export const VENV_NAMES = [".venv", "venv", "env"];

export interface ServerSettings {
  /** `playbook-ls.server.path`: the executable (empty: auto). */
  path: string;
  /** `playbook-ls.server.python`: an interpreter to run `-m playbook_ls serve` with (empty: unused). */
  python: string;
}

export interface Host {
  platform: string;
  env: Record<string, string | undefined>;
  home: string;
  /** File system paths of the workspace folders, the first one first. */
  workspaceFolders: string[];
  /** Where `<python> -m playbook_ls` starts: outside the workspace (the extension's own directory). */
  extensionDir: string;
  /** Whether the workspace is trusted: only then are its virtualenvs used. */
  trusted: boolean;
  /** The playbook-ls wheel the extension ships (`server/*.whl`), if any: what install commands install. */
  bundledWheel?: string;
  /** An existing file that can be executed. */
  isExecutable(path: string): boolean;
  isDirectory(path: string): boolean;
}

export interface Found {
  kind: "found";
  command: string;
  args: string[];
  cwd: string;
  /** How it was found, for the log: "playbook-ls.server.path", "workspace virtualenv .venv", "PATH"... */
  source: string;
}

export interface Missing {
  kind: "missing";
  /** A sentence for the error notification. */
  message: string;
  /** What the "Copy install command" button copies. */
  installCommand: string;
  /** Every place looked at, for the log. */
  tried: string[];
}

export type Resolution = Found | Missing;

function pathApi(platform: string): typeof nodePath.posix {
  return platform === "win32" ? nodePath.win32 : nodePath.posix;
}

function executableName(platform: string): string {
  return platform === "win32" ? "playbook-ls.exe" : "playbook-ls";
}

/** The relative path of the executable inside a virtualenv. */
export function venvExecutable(platform: string): string[] {
  return platform === "win32" ? ["Scripts", "playbook-ls.exe"] : ["bin", "playbook-ls"];
}

function venvPython(platform: string): string[] {
  return platform === "win32" ? ["Scripts", "python.exe"] : ["bin", "python"];
}

/**
 * `${workspaceFolder}`, `${workspaceFolder:NAME}` (by basename), `${userHome}`, `${env:VAR}` and a
 * leading `~` expanded. Unknown variables are left as they are.
 */
export function expandVariables(value: string, host: Pick<Host, "platform" | "env" | "home" | "workspaceFolders">): string {
  const api = pathApi(host.platform);
  const first = host.workspaceFolders[0];
  let result = value.trim().replace(/\$\{([^}]+)\}/g, (whole, name: string) => {
    if (name === "workspaceFolder" || name === "workspaceRoot") return first ?? whole;
    if (name.startsWith("workspaceFolder:")) {
      const wanted = name.slice("workspaceFolder:".length);
      return host.workspaceFolders.find((folder) => api.basename(folder) === wanted) ?? whole;
    }
    if (name === "userHome") return host.home;
    if (name.startsWith("env:")) return host.env[name.slice(4)] ?? "";
    return whole;
  });
  if (result === "~") {
    result = host.home;
  } else if (result.startsWith("~/") || (host.platform === "win32" && result.startsWith("~\\"))) {
    result = api.join(host.home, result.slice(2));
  }
  return result;
}

function hasSeparator(value: string, platform: string): boolean {
  return value.includes("/") || (platform === "win32" && value.includes("\\"));
}

/** The first `name` on PATH (with PATHEXT's extensions on Windows), or undefined. */
export function whichOnPath(name: string, host: Host): string | undefined {
  const api = pathApi(host.platform);
  const windows = host.platform === "win32";
  const pathValue = (windows ? (host.env.PATH ?? host.env.Path ?? host.env.path) : host.env.PATH) ?? "";
  const extensions = windows
    ? ["", ...(host.env.PATHEXT ?? ".COM;.EXE;.BAT;.CMD").split(";").filter(Boolean)]
    : [""];
  for (const dir of pathValue.split(windows ? ";" : ":")) {
    if (!dir) continue;
    for (const extension of extensions) {
      if (extension && name.toLowerCase().endsWith(extension.toLowerCase())) continue;
      const candidate = api.join(dir.replace(/^"(.*)"$/, "$1"), name + extension);
      if (host.isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * A configured program: expanded; a bare name is looked up on PATH, a relative path is taken
 * from the first workspace folder. Returns the path to run, or undefined when it is not there.
 */
export function locateConfigured(value: string, host: Host): string | undefined {
  const api = pathApi(host.platform);
  const expanded = expandVariables(value, host);
  if (!hasSeparator(expanded, host.platform)) {
    return whichOnPath(expanded, host);
  }
  const candidate = api.isAbsolute(expanded) || !host.workspaceFolders[0]
    ? expanded
    : api.join(host.workspaceFolders[0], expanded);
  if (host.isExecutable(candidate)) return candidate;
  if (host.platform === "win32" && !/\.[a-z0-9]+$/i.test(candidate) && host.isExecutable(candidate + ".exe")) {
    return candidate + ".exe";
  }
  return undefined;
}

/** Where the server comes from, in this order: `server.path`, `server.python`, a workspace virtualenv, PATH, pipx's bin directory. */
export function resolveServer(settings: ServerSettings, host: Host): Resolution {
  const api = pathApi(host.platform);
  const serve = ["serve"];
  const cwd = host.extensionDir;
  const tried: string[] = [];

  const configuredPath = settings.path.trim();
  if (configuredPath) {
    const found = locateConfigured(configuredPath, host);
    if (found) return { kind: "found", command: found, args: serve, cwd, source: "playbook-ls.server.path" };
    return {
      kind: "missing",
      message: `playbook-ls: the server executable set in playbook-ls.server.path was not found: ${expandVariables(configuredPath, host)}`,
      installCommand: installCommand(host),
      tried: [`playbook-ls.server.path: ${expandVariables(configuredPath, host)}`],
    };
  }

  const configuredPython = settings.python.trim();
  if (configuredPython) {
    const found = locateConfigured(configuredPython, host);
    if (found) {
      return { kind: "found", command: found, args: ["-m", "playbook_ls", "serve"], cwd, source: "playbook-ls.server.python" };
    }
    return {
      kind: "missing",
      message: `playbook-ls: the Python interpreter set in playbook-ls.server.python was not found: ${expandVariables(configuredPython, host)}`,
      installCommand: installCommand(host),
      tried: [`playbook-ls.server.python: ${expandVariables(configuredPython, host)}`],
    };
  }

  if (host.trusted) {
    for (const folder of host.workspaceFolders) {
      for (const venv of VENV_NAMES) {
        const candidate = api.join(folder, venv, ...venvExecutable(host.platform));
        tried.push(candidate);
        if (host.isExecutable(candidate)) {
          return { kind: "found", command: candidate, args: serve, cwd, source: `workspace virtualenv ${venv}` };
        }
      }
    }
  }

  const onPath = whichOnPath(executableName(host.platform), host);
  tried.push("PATH");
  if (onPath) return { kind: "found", command: onPath, args: serve, cwd, source: "PATH" };

  // pipx's default bin directory, often missing from PATH when VS Code starts from a desktop menu.
  if (host.home) {
    const pipx = api.join(host.home, ".local", "bin", executableName(host.platform));
    tried.push(pipx);
    if (host.isExecutable(pipx)) return { kind: "found", command: pipx, args: serve, cwd, source: "~/.local/bin (pipx)" };
  }

  return {
    kind: "missing",
    message: missingMessage(host),
    installCommand: installCommand(host),
    tried,
  };
}

/** A virtualenv of the workspace that exists (without playbook-ls in it), if any. */
export function workspaceVenv(host: Host): string | undefined {
  if (!host.trusted) return undefined;
  const api = pathApi(host.platform);
  for (const folder of host.workspaceFolders) {
    for (const venv of VENV_NAMES) {
      const python = api.join(folder, venv, ...venvPython(host.platform));
      if (host.isExecutable(python)) return api.join(folder, venv);
    }
  }
  return undefined;
}

function quote(value: string, platform: string): string {
  if (/^[\w@%+=:,./\\-]+$/.test(value)) return value;
  return platform === "win32" ? `"${value}"` : `'${value.replace(/'/g, "'\\''")}'`;
}

/** What to install: the wheel the extension ships, else the repository's source. */
function installSource(host: Host): string {
  return host.bundledWheel ? quote(host.bundledWheel, host.platform) : SOURCE;
}

/** `pipx install` for the user: playbook-ls gets a virtualenv of its own. */
export function pipxCommand(host: Host): string {
  return `pipx install ${installSource(host)}`;
}

/** `pip install` into the workspace's virtualenv when there is one, else `pipx install`. */
export function installCommand(host: Host): string {
  const venv = workspaceVenv(host);
  if (venv) {
    const python = pathApi(host.platform).join(venv, ...venvPython(host.platform));
    return `${quote(python, host.platform)} -m pip install ${installSource(host)}`;
  }
  return pipxCommand(host);
}

function missingMessage(host: Host): string {
  const venv = workspaceVenv(host);
  const where = venv
    ? `"${installCommand(host)}" (into the workspace's virtualenv) or "${pipxCommand(host)}"`
    : `"${pipxCommand(host)}" (or "python -m pip install ${installSource(host)}" into the workspace's .venv)`;
  return `playbook-ls: the language server was not found. Install it with ${where}, or set playbook-ls.server.path.`;
}

/** The command line, for the log. */
export function describe(found: Found): string {
  return [found.command, ...found.args].map((part) => (/\s/.test(part) ? JSON.stringify(part) : part)).join(" ");
}
