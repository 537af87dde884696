/**
 * The settings sent to the server, as `initializationOptions` and in
 * `workspace/didChangeConfiguration` (`{"settings": {"playbook-ls": {...}}}`). Pure, no `vscode`.
 */

/** The section of VS Code's settings, and the key of the server's settings. */
export const SECTION = "playbook-ls";

export interface ServerOptions {
  config?: string;
  profilesFile?: string;
  select: string[];
  ignore: string[];
  rolesPath: string[];
  confirmRun: boolean;
  engine?: "auto" | "bundled" | "ansible";
  inventory?: string;
  limit?: string;
  extraVars?: Record<string, unknown>;
  /** Set when the workspace is trusted: the server may then run the repository's inventory code
   * (scripts, inventory plugins) for hovers and diagnostics; absent otherwise. */
  runRepositoryCode?: true;
  /** Always "notification": a run's output comes as `playbook-ls/runOutput` notifications. */
  runOutput: "notification";
  /** Always "return": the extension shows the lens commands' results itself. */
  commandResults: "return";
}

/** Reads one setting of the `playbook-ls` section (VS Code's `WorkspaceConfiguration.get`). */
export type Getter = (key: string) => unknown;

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string" && item.trim() !== "")
    .map((item) => item.trim()) : [];
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/**
 * The server's settings from VS Code's. `expand` turns `${workspaceFolder}` and `~` into paths
 * (relative paths are left for the server, which takes them from the workspace root); `trusted`
 * is the workspace's trust, which alone lets the server run the repository's inventory code.
 */
export function serverOptions(get: Getter, expand: (value: string) => string = (value) => value,
  trusted = false): ServerOptions {
  const options: ServerOptions = {
    select: strings(get("select")),
    ignore: strings(get("ignore")),
    rolesPath: strings(get("rolesPath")).map(expand),
    confirmRun: get("confirmRun") !== false,
    runOutput: "notification",
    commandResults: "return",
  };
  const config = text(get("config"));
  if (config) options.config = expand(config);
  const profilesFile = text(get("profilesFile"));
  if (profilesFile) options.profilesFile = expand(profilesFile);
  const engine = text(get("engine"));
  if (engine === "auto" || engine === "bundled" || engine === "ansible") options.engine = engine;
  const inventory = text(get("inventory"));
  if (inventory) options.inventory = expand(inventory);
  const limit = text(get("limit"));
  if (limit) options.limit = limit;
  const extraVars = get("extraVars");
  if (extraVars && typeof extraVars === "object" && !Array.isArray(extraVars) && Object.keys(extraVars).length) {
    options.extraVars = extraVars as Record<string, unknown>;
  }
  if (trusted) options.runRepositoryCode = true;
  return options;
}

/** The params of `workspace/didChangeConfiguration`. */
export function configurationParams(options: ServerOptions): { settings: { [SECTION]: ServerOptions } } {
  return { settings: { [SECTION]: options } };
}
