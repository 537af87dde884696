/**
 * The server's commands and their arguments (pure, no `vscode`).
 *
 * vscode-languageclient registers a VS Code command for each command the server announces
 * (`playbook-ls.*`), so the extension's own commands use the `playbookLs.` prefix.
 */

export const SERVER = {
  listTasks: "playbook-ls.listTasks",
  showEffectiveTags: "playbook-ls.showEffectiveTags",
  checkTasks: "playbook-ls.checkTasks",
  runTasks: "playbook-ls.runTasks",
  listProfiles: "playbook-ls.listProfiles",
  showPlan: "playbook-ls.showPlan",
  showReview: "playbook-ls.showReview",
} as const;

/** The extension's commands (palette, editor context menu, status bar). */
export const COMMANDS = {
  listTasks: "playbookLs.listTasks",
  showEffectiveTags: "playbookLs.showEffectiveTags",
  checkTaskSet: "playbookLs.checkTaskSet",
  runTaskSet: "playbookLs.runTaskSet",
  chooseProfile: "playbookLs.chooseProfile",
  previewSelection: "playbookLs.previewSelection",
  restartServer: "playbookLs.restartServer",
  showOutput: "playbookLs.showOutput",
  showRunOutput: "playbookLs.showRunOutput",
  reviewChange: "playbookLs.reviewChange",
} as const;

/** The notification carrying a run's output, one line at a time (with `runOutput: "notification"`). */
export const RUN_OUTPUT_NOTIFICATION = "playbook-ls/runOutput";

/** Whether `command` runs tasks (check or for real). */
export function isRunCommand(command: string): boolean {
  return command === SERVER.checkTasks || command === SERVER.runTasks;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The arguments of a check or run with the active launch profile added: only to a run command
 * whose single argument object names no profile of its own. Anything else is returned as it is.
 */
export function withProfile(command: string, args: unknown[], profile: string | undefined): unknown[] {
  if (!profile || !isRunCommand(command) || args.length === 0 || !isPlainObject(args[0])) return args;
  if ("profile" in args[0]) return args;
  return [{ ...args[0], profile }, ...args.slice(1)];
}

export interface PositionRequest {
  uri: string;
  line: number;
  profile?: string;
}

/** `[{uri, line, profile?}]` for the commands that act on the cursor's position. */
export function positionArgs(uri: string, line: number, profile?: string): [PositionRequest] {
  const request: PositionRequest = { uri, line };
  if (profile) request.profile = profile;
  return [request];
}

/**
 * `[{path, base?}]` for the review of the change against `base` (trimmed; empty: the server takes
 * the branch's merge base). `path` is the file being edited: a playbook, or a file playbooks read.
 */
export function reviewArgs(path: string, base: string): [{ path: string; base?: string }] {
  const revision = base.trim();
  return [revision === "" ? { path } : { path, base: revision }];
}

/**
 * Where a lens's `listTasks`/`showEffectiveTags` points: `[{path|uri, line?, tags?}]` or
 * `[path, line]`. A `file:` URI is turned into a path.
 */
export function requestPosition(args: unknown[]): { path?: string; line?: number } {
  let path: unknown;
  let line: unknown;
  if (args.length === 1 && isPlainObject(args[0])) {
    path = args[0].path ?? args[0].uri;
    line = args[0].line;
  } else {
    [path, line] = args;
  }
  const result: { path?: string; line?: number } = {};
  if (typeof path === "string" && path !== "") result.path = path.startsWith("file:") ? fileUriToPath(path) : path;
  if (typeof line === "number" && Number.isInteger(line) && line >= 0) result.line = line;
  return result;
}

/** `file:///a/b%20c.yml` → `/a/b c.yml`, `file:///c%3A/x.yml` → `c:/x.yml`. */
export function fileUriToPath(uri: string): string {
  let path = decodeURIComponent(uri.replace(/^file:\/\/[^/]*/, ""));
  if (/^\/[a-zA-Z]:/.test(path)) path = path.slice(1);
  return path;
}
