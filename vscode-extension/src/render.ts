/**
 * Text shown to the user from the server's command results (pure, no `vscode`).
 */

// ---------------------------------------------------------------------------------------------
// playbook-ls.listTasks

export interface ListedTask {
  play?: string | null;
  task?: string | null;
  /** Relative to the workspace root (or absolute outside it). */
  path?: string | null;
  /** 0-based. */
  line?: number | null;
}

export interface Listing {
  playbook: string;
  /** Exactly what `ansible-playbook --list-tasks` prints. */
  text: string;
  tasks?: ListedTask[];
}

export interface ListTasksResult {
  tags?: string[];
  skip_tags?: string[];
  listings?: Listing[];
}

/** A `path:line` in a rendered text, to become a link: where it is, and where it leads. */
export interface TextLink {
  /** 0-based line of the rendered text, and the columns of the link on it. */
  line: number;
  start: number;
  end: number;
  /** The target as the server gave it (relative to the workspace root, or absolute). */
  path: string;
  /** 0-based line of the target. */
  targetLine: number;
}

export interface Rendered {
  text: string;
  links: TextLink[];
}

/** The `--tags`/`--skip-tags` options of a selection, as `ansible-playbook` would take them. */
export function selectionOptions(tags: string[] = [], skipTags: string[] = []): string {
  const parts: string[] = [];
  if (tags.length > 0) parts.push(`--tags ${tags.join(",")}`);
  if (skipTags.length > 0) parts.push(`--skip-tags ${skipTags.join(",")}`);
  return parts.join(" ");
}

/**
 * The listings as one text: a comment naming the selection, each playbook's `--list-tasks`
 * output as it is, then where each listed task is written (`path:line`, linked in the editor).
 */
export function renderListings(result: ListTasksResult, origin: string): Rendered {
  const options = selectionOptions(result.tags, result.skip_tags);
  const lines: string[] = [
    `# playbook-ls: the tasks ansible-playbook --list-tasks${options ? " " + options : ""} prints`,
    `# for ${origin}`,
  ];
  const links: TextLink[] = [];
  const listings = result.listings ?? [];
  for (const listing of listings) {
    lines.push(...listing.text.replace(/\r\n/g, "\n").replace(/\n+$/, "").split("\n"));
  }
  const located = listings.flatMap((listing) => (listing.tasks ?? [])
    .filter((task) => typeof task.path === "string" && task.path !== "" && typeof task.line === "number"));
  if (located.length > 0) {
    lines.push("", "", "# where each task is written:");
    const width = Math.max(...located.map((task) => `${task.path}:${(task.line ?? 0) + 1}`.length));
    for (const task of located) {
      const where = `${task.path}:${(task.line ?? 0) + 1}`;
      const prefix = "  ";
      links.push({ line: lines.length, start: prefix.length, end: prefix.length + where.length,
        path: task.path as string, targetLine: task.line as number });
      lines.push(`${prefix}${where.padEnd(width)}  ${task.task ?? ""}${task.play ? `  (play ${task.play})` : ""}`);
    }
  }
  return { text: lines.join("\n") + "\n", links };
}

// ---------------------------------------------------------------------------------------------
// playbook-ls.showEffectiveTags

export interface TagOrigin {
  tag: string;
  /** The level the tag is written at: `play`, `roles: entry "web"`, `task "install"`... */
  from: string;
  /** `file:line`, when known. */
  at?: string | null;
}

export interface WhenOrigin {
  condition: string;
  from: string;
}

export interface EffectiveTagsEntry {
  playbook: string;
  /** For a play. */
  play?: string | null;
  /** For a task: how it is reached (Markdown), and its name. */
  context?: string;
  task?: string;
  tags?: TagOrigin[];
  when?: WhenOrigin[];
}

function code(value: string): string {
  const ticks = value.includes("`") ? "`` " : "`";
  return `${ticks}${value}${ticks.split("").reverse().join("")}`;
}

/**
 * The effective tags and conditions at a position, one section per context, as Markdown.
 * `display` shortens the playbooks' paths (relative to the workspace).
 */
export function renderEffectiveTags(entries: EffectiveTagsEntry[], origin: string,
  display: (path: string) => string = (path) => path): string {
  const lines: string[] = [`# Effective tags at ${origin}`, ""];
  if (entries.length === 0) {
    lines.push(nothingReached(origin));
    return lines.join("\n") + "\n";
  }
  if (entries.length > 1) {
    lines.push(`${entries.length} contexts reach this line; each has its own tags and conditions.`, "");
  }
  for (const entry of entries) {
    const tags = entry.tags ?? [];
    if (entry.task === undefined) {
      lines.push(`## Play "${entry.play ?? ""}" in ${code(display(entry.playbook))}`, "");
      if (tags.length === 0) {
        lines.push("No tags on the play.");
      } else {
        lines.push("**Tags** (every task of the play inherits them):", "");
        for (const tag of tags) lines.push(`- ${code(tag.tag)}`);
      }
      lines.push("");
      continue;
    }
    lines.push(`## Task ${code(entry.task)} in ${code(display(entry.playbook))}`, "");
    if (entry.context) lines.push(`**via** ${entry.context}`, "");
    if (tags.length === 0) {
      lines.push("**Tags**: none (only a run without `--tags`, or with `--tags all`/`untagged`, selects it).");
    } else {
      lines.push("**Tags** (own and inherited, outermost first; any of them selects the task):", "");
      for (const tag of tags) {
        lines.push(`- ${code(tag.tag)} — ${tag.from}${tag.at ? ` (${tag.at})` : ""}`);
      }
    }
    lines.push("");
    const when = entry.when ?? [];
    if (when.length > 0) {
      lines.push("**When** (all must hold, outermost first):", "");
      for (const condition of when) lines.push(`- ${code(condition.condition)} — ${condition.from}`);
      lines.push("");
    }
  }
  return lines.join("\n").replace(/\n+$/, "") + "\n";
}

/** What to say when no playbook reaches the position. */
export function nothingReached(origin: string): string {
  return `Nothing at ${origin} is reached by a playbook: no play or task there is run by any playbook of the workspace.`;
}

// ---------------------------------------------------------------------------------------------
// playbook-ls.checkTasks / playbook-ls.runTasks

export interface RunResult {
  error?: string | null;
  cancelled?: boolean;
  exit_code?: number | null;
  playbook?: string;
  check?: boolean;
  tags?: string | string[] | null;
  skip_tags?: string | string[] | null;
  play?: number | string | null;
  recap?: Record<string, Record<string, number>>;
  tasks?: Array<{ task?: string; host?: string; status?: string; msg?: string | null }>;
}

export type Severity = "info" | "warning" | "error" | "quiet";

export interface RunSummary {
  severity: Severity;
  message: string;
}

const RECAP_COUNTERS = ["ok", "changed", "unreachable", "failed", "skipped", "rescued", "ignored"];

/** `web1 ok=3 changed=1 failed=0` for each host (zero counters other than ok/changed/failed left out). */
export function recapText(recap: Record<string, Record<string, number>> | undefined): string {
  if (!recap) return "";
  return Object.keys(recap).sort().map((host) => {
    const stats = recap[host] ?? {};
    const parts = RECAP_COUNTERS
      .filter((name) => ["ok", "changed", "failed"].includes(name) || (stats[name] ?? 0) > 0)
      .map((name) => `${name}=${stats[name] ?? 0}`);
    return `${host}: ${parts.join(" ")}`;
  }).join("; ");
}

function joined(value: string | string[] | null | undefined): string {
  if (Array.isArray(value)) return value.join(",");
  return value ?? "";
}

/** What was run: `check of site.yml (--tags web)`. */
export function runDescription(result: RunResult, check: boolean, display: (path: string) => string = (p) => p): string {
  const verb = (result.check ?? check) ? "check" : "run";
  const what = result.playbook ? ` of ${display(result.playbook)}` : "";
  const tags = joined(result.tags);
  const skip = joined(result.skip_tags);
  const options = [tags ? `--tags ${tags}` : "", skip ? `--skip-tags ${skip}` : ""].filter(Boolean).join(" ");
  return `${verb}${what}${options ? ` (${options})` : ""}`;
}

/** The notification for a check or run's result. `check` is what was asked for. */
export function runSummary(result: RunResult | null | undefined, check: boolean,
  display: (path: string) => string = (p) => p): RunSummary {
  if (!result || typeof result !== "object") {
    return { severity: "error", message: `playbook-ls: the ${check ? "check" : "run"} returned nothing (see the output).` };
  }
  const description = runDescription(result, check, display);
  if (result.error) {
    return { severity: "error", message: `playbook-ls: ${description} failed: ${result.error}` };
  }
  if (result.cancelled) {
    return { severity: "quiet", message: `playbook-ls: ${description} cancelled` };
  }
  const recap = recapText(result.recap);
  const code = result.exit_code;
  const failed = typeof code === "number" && code !== 0;
  const outcome = typeof code === "number" ? `finished with exit code ${code}` : "finished";
  return {
    severity: failed ? "warning" : "info",
    message: `playbook-ls: ${description} ${outcome}${recap ? ` — ${recap}` : ""}`,
  };
}

// ---------------------------------------------------------------------------------------------
// launch profiles

export interface Profile {
  name: string;
  playbook?: string | null;
  job_type?: string | null;
  inventory?: string | null;
  limit?: string | null;
  job_tags?: string | string[] | null;
  skip_tags?: string | string[] | null;
  /** The settings file it comes from. */
  source?: string | null;
}

export interface ListProfilesResult {
  profiles?: Profile[];
  error?: string | null;
}

/** The status bar's text. */
export function profileLabel(profile: string | undefined): string {
  return profile ? `$(rocket) ${profile}` : "$(rocket) no profile";
}

/** The status bar's tooltip. */
export function profileTooltip(profile: string | undefined): string {
  const now = profile
    ? `Launch profile "${profile}": Check and Run use its inventory, limit and variables.`
    : "No launch profile: Check and Run use the playbook's defaults.";
  return `playbook-ls: ${now}\nClick to choose a launch profile.`;
}

export const NO_PROFILE_LABEL = "No profile (the playbook's defaults)";

export interface ProfileItem {
  label: string;
  description?: string;
  detail?: string;
  /** The profile's name; undefined for "No profile". */
  profile: string | undefined;
  picked?: boolean;
}

/** The QuickPick's items: "No profile" first, then each profile, the active one marked. */
export function profileItems(result: ListProfilesResult | null | undefined, active: string | undefined,
  display: (path: string) => string = (p) => p): ProfileItem[] {
  const mark = (name: string | undefined) => (name === active ? "$(check) " : "");
  const items: ProfileItem[] = [{ label: `${mark(undefined)}${NO_PROFILE_LABEL}`, profile: undefined, picked: active === undefined }];
  for (const profile of result?.profiles ?? []) {
    if (!profile || typeof profile.name !== "string") continue;
    const description = [profile.job_type, profile.playbook ? display(profile.playbook) : ""].filter(Boolean).join(" · ");
    const tags = joined(profile.job_tags);
    const skip = joined(profile.skip_tags);
    const detail = [
      profile.inventory ? `inventory ${profile.inventory}` : "",
      profile.limit ? `limit ${profile.limit}` : "",
      tags ? `tags ${tags}` : "",
      skip ? `skip ${skip}` : "",
      profile.source ? `from ${display(profile.source)}` : "",
    ].filter(Boolean).join(" · ");
    items.push({ label: `${mark(profile.name)}${profile.name}`, description: description || undefined,
      detail: detail || undefined, profile: profile.name, picked: profile.name === active });
  }
  return items;
}
