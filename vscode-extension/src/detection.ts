/**
 * Which YAML documents are Ansible playbooks, task files or role files (pure, no `vscode`).
 *
 * Documents of the `ansible` language (set by Red Hat's Ansible extension) always are; a `yaml`
 * document is when its path says so (a role's tasks/handlers/meta/defaults/vars, or a playbook's
 * place or name and a list at the top) or its content does (a top-level list of plays or tasks).
 * Other YAML (Kubernetes manifests, CI workflows, compose files, vars files) is left alone.
 */

/** Role subdirectories whose files playbook-ls reads. */
const ROLE_DIRS = new Set(["tasks", "handlers", "meta", "defaults", "vars"]);

/** Directories whose YAML is not Ansible at all. */
const FOREIGN_DIRS = new Set([
  ".github", ".gitea", ".forgejo", ".circleci", ".gitlab", ".azure-pipelines", ".buildkite",
  "node_modules", ".git", ".tox", ".venv", "venv", "site-packages",
]);

/** Directories of Ansible variables: Ansible's, but no playbook or task file is there. */
const VARS_DIRS = new Set(["group_vars", "host_vars"]);

/** Files that are YAML but not Ansible (CI, containers, tooling of other languages). */
const FOREIGN_FILES = [
  /^\.gitlab-ci\.ya?ml$/, /^(docker-)?compose(\.[\w.-]+)?\.ya?ml$/, /^\.pre-commit-(config|hooks)\.ya?ml$/,
  /^mkdocs\.ya?ml$/, /^\.readthedocs\.ya?ml$/, /^\.travis\.ya?ml$/, /^\.yamllint(\.ya?ml)?$/, /^chart\.ya?ml$/,
  /^values(\.[\w.-]+)?\.ya?ml$/, /^pnpm-lock\.yaml$/, /^pubspec\.yaml$/, /^environment\.ya?ml$/,
  /^azure-pipelines\.ya?ml$/, /^bitbucket-pipelines\.yml$/, /^codecov\.ya?ml$/, /^dependabot\.ya?ml$/,
  /^kustomization\.ya?ml$/, /^openapi\.ya?ml$/, /^swagger\.ya?ml$/, /^\.clang-(format|tidy)$/,
];

/** Ansible's metadata and settings files, and playbook-ls's: Ansible's, but not playbooks or tasks. */
const SETTINGS_FILES = [
  /^\.?playbook-ls\.ya?ml$/, /^\.ansible-lint(\.ya?ml)?$/, /^galaxy\.ya?ml$/, /^requirements\.ya?ml$/,
  /^ansible-navigator\.ya?ml$/, /^execution-environment\.ya?ml$/, /^molecule\.ya?ml$/, /^runtime\.ya?ml$/,
];

/** Directories whose YAML lists are playbooks or task files. */
const PLAYBOOK_DIRS = new Set(["playbooks", "tasks", "handlers"]);
/** File names of playbooks. */
const PLAYBOOK_FILES = [/^site\.ya?ml$/, /^playbook[\w.-]*\.ya?ml$/];

/** Keys of a play. `tasks`/`roles` alone count too (a play may omit `hosts` while being written). */
const PLAY_KEYS = new Set([
  "hosts", "import_playbook", "ansible.builtin.import_playbook", "roles", "tasks", "pre_tasks", "post_tasks",
  "gather_facts",
]);

/** Keys only a task (or block) has: any of them makes an item a task. */
const TASK_ONLY_KEYS = new Set([
  "block", "include_tasks", "import_tasks", "include_role", "import_role", "include_vars", "set_fact",
  "local_action", "delegate_to", "register", "notify", "changed_when", "failed_when", "with_items",
  "with_dict", "with_fileglob", "with_first_found", "with_together", "with_nested", "with_subelements",
  "with_sequence", "loop_control", "ignore_errors", "ignore_unreachable", "become_user", "no_log",
  "run_once", "listen", "async", "poll",
]);

/** Task keywords that, next to `name`, make an item a task. */
const TASK_KEYWORDS = new Set([
  ...TASK_ONLY_KEYS, "tags", "when", "loop", "become", "vars", "args", "action", "until", "retries", "delay",
  "environment", "check_mode", "diff", "any_errors_fatal", "throttle", "timeout", "collections",
]);

/**
 * Short module names seen in task files: one of them next to `name` (or another task keyword)
 * makes an item a task. The ones marked below count on their own too (`- debug: msg=hi`).
 */
const SHORT_MODULES = new Set([
  "command", "shell", "raw", "script", "copy", "template", "file", "lineinfile", "blockinfile", "replace",
  "debug", "assert", "fail", "meta", "pause", "wait_for", "wait_for_connection", "setup", "stat", "find",
  "fetch", "slurp", "uri", "get_url", "unarchive", "archive", "apt", "apt_key", "apt_repository", "yum",
  "yum_repository", "dnf", "package", "package_facts", "pip", "service", "systemd", "systemd_service",
  "service_facts", "user", "group", "git", "cron", "mount", "sysctl", "hostname", "reboot", "synchronize",
  "authorized_key", "known_hosts", "iptables", "ufw", "firewalld", "selinux", "seboolean", "docker_container",
  "docker_image", "k8s", "mysql_db", "mysql_user", "postgresql_db", "postgresql_user", "win_shell",
  "win_command", "win_copy", "win_service", "win_feature", "win_package", "add_host", "group_by",
  "set_stats", "debconf", "dpkg_selections", "expect", "getent", "include", "tempfile", "ping",
]);
const SELF_EVIDENT_MODULES = new Set([
  "command", "shell", "debug", "set_fact", "apt", "yum", "dnf", "lineinfile", "blockinfile", "assert",
  "systemd", "systemd_service", "wait_for", "win_shell", "win_command", "authorized_key", "include_vars",
]);

/** A collection-qualified module name: `ansible.builtin.copy`, `community.general.ufw`. */
const FQCN = /^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*\.[a-z][a-z0-9_.]*$/;

/** How much of a document the content check reads. */
const MAX_LINES = 3000;

export type Shape = "list" | "mapping" | "empty" | "other";

export interface TopLevel {
  shape: Shape;
  /** For a list: the keys of each item (at most the first 200 items). For a mapping: its keys. */
  items: string[][];
}

const KEY = /^(?:"([^"]+)"|'([^']+)'|([^\s#'"{[\]},&*!|>%@`-][^:#]*?|-[^\s:#][^:#]*?))\s*:(?:\s|$)/;

function keyOf(text: string): string | undefined {
  const match = KEY.exec(text);
  if (!match) return undefined;
  return (match[1] ?? match[2] ?? match[3]).trim();
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** The shape of the first YAML document of `text` and the keys of its top-level items. */
export function topLevel(text: string): TopLevel {
  const lines = text.split(/\r?\n/, MAX_LINES);
  let shape: Shape | undefined;
  let base = 0; // the indentation of the top-level items or keys
  let keyColumn = -1; // the column of the current item's keys
  let inScalar = -1; // inside a block scalar started at this indentation (its lines are skipped)
  const items: string[][] = [];
  let started = false;
  for (const raw of lines) {
    const line = raw.replace(/\t/g, "  ");
    const trimmed = line.trim();
    // comments, and template directives of a templated file (a Helm chart's `{{- if ... }}`)
    if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith("{{") || trimmed.startsWith("{%")) continue;
    if (!started && (trimmed.startsWith("%") || /^---(\s|$)/.test(trimmed))) {
      if (/^---\s+\S/.test(trimmed) && !/^---\s+#/.test(trimmed)) return { shape: "other", items };
      continue;
    }
    if (started && indentOf(line) === 0 && (/^---(\s|$)/.test(trimmed) || /^\.\.\.(\s|$)/.test(trimmed))) break;
    const indent = indentOf(line);
    if (inScalar >= 0) {
      if (indent > inScalar) continue;
      inScalar = -1;
    }
    if (!started) {
      started = true;
      base = indent;
      if (trimmed === "-" || trimmed.startsWith("- ")) {
        shape = "list";
      } else if (keyOf(trimmed) !== undefined) {
        shape = "mapping";
      } else {
        return { shape: "other", items };
      }
    }
    if (shape === "mapping") {
      if (indent === base) {
        const key = keyOf(trimmed);
        if (key === undefined) return { shape: "other", items };
        if (items.length === 0) items.push([]);
        if (items[0].length < 200) items[0].push(key);
      }
      if (/[|>][-+0-9]*\s*(#.*)?$/.test(trimmed) && /:\s*[|>]/.test(trimmed)) inScalar = indent;
      continue;
    }
    // a list
    if (indent < base) break;
    if (indent === base) {
      if (!(trimmed === "-" || trimmed.startsWith("- "))) break; // not a list item at the top: stop reading
      if (items.length >= 200) break;
      items.push([]);
      const rest = trimmed.slice(1);
      const restTrimmed = rest.trimStart();
      keyColumn = restTrimmed ? indent + 1 + (rest.length - restTrimmed.length) : -1;
      const key = restTrimmed ? keyOf(restTrimmed) : undefined;
      if (key !== undefined) items[items.length - 1].push(key);
      if (/:\s*[|>][-+0-9]*\s*(#.*)?$/.test(trimmed)) inScalar = keyColumn;
      continue;
    }
    if (keyColumn < 0) keyColumn = indent; // "-" alone on its line: the keys are on the next ones
    if (indent === keyColumn && items.length > 0) {
      const key = keyOf(trimmed);
      if (key !== undefined) items[items.length - 1].push(key);
      if (/:\s*[|>][-+0-9]*\s*(#.*)?$/.test(trimmed)) inScalar = indent;
    }
  }
  return { shape: shape ?? "empty", items };
}

/** Whether a top-level list item is a play (or an `import_playbook`). */
export function isPlayItem(keys: string[]): boolean {
  return keys.some((key) => PLAY_KEYS.has(key));
}

/** Whether a top-level list item is a task, a block or a handler. */
export function isTaskItem(keys: string[]): boolean {
  const set = new Set(keys);
  if (keys.some((key) => FQCN.test(key) || TASK_ONLY_KEYS.has(key) || SELF_EVIDENT_MODULES.has(key))) return true;
  const module = keys.some((key) => SHORT_MODULES.has(key));
  const keyword = keys.some((key) => TASK_KEYWORDS.has(key));
  if (set.has("name")) return module || keyword;
  return module && keyword;
}

/** Top-level mapping keys of YAML that is not Ansible: Kubernetes manifests, GitHub workflows. */
export function isForeignMapping(keys: string[]): boolean {
  const set = new Set(keys);
  return (set.has("apiVersion") && set.has("kind")) || (set.has("jobs") && set.has("on"));
}

/** Whether the content alone shows a playbook or a task file. */
export function contentIsAnsible(text: string): boolean {
  const top = topLevel(text);
  return top.shape === "list" && top.items.some((keys) => isPlayItem(keys) || isTaskItem(keys));
}

/**
 * What the path alone says: `role` (a role's tasks, handlers, meta, defaults or vars), `likely` (a
 * playbook or task file if it holds a list), `vars` (Ansible's, but variables or settings: not
 * served), `foreign` (not Ansible at all), or `unknown` (the content decides).
 */
export type PathVerdict = "role" | "likely" | "vars" | "foreign" | "unknown";

export function pathVerdict(path: string): PathVerdict {
  const parts = path.replace(/\\/g, "/").split("/").filter(Boolean);
  const file = (parts.pop() ?? "").toLowerCase();
  const dirs = parts.map((part) => part.toLowerCase());
  if (FOREIGN_FILES.some((re) => re.test(file)) || dirs.some((dir) => FOREIGN_DIRS.has(dir))) return "foreign";
  if (SETTINGS_FILES.some((re) => re.test(file))) return "vars";
  if (!/\.ya?ml$/.test(file)) return "unknown";
  for (let i = dirs.length - 3; i >= 0; i--) {
    if (dirs[i] === "roles" && ROLE_DIRS.has(dirs[i + 2])) return "role";
  }
  if (dirs.some((dir) => VARS_DIRS.has(dir))) return "vars";
  // tasks/ and handlers/ outside roles/ (a role repository opened alone, shared task files)
  if (dirs.length > 0 && PLAYBOOK_DIRS.has(dirs[dirs.length - 1])) return "likely";
  if (dirs.includes("playbooks")) return "likely";
  if (PLAYBOOK_FILES.some((re) => re.test(file))) return "likely";
  return "unknown";
}

/**
 * Whether a YAML document is one playbook-ls serves: a playbook, a task or handler file, a role's
 * meta/defaults/vars file. `path` is a file system path (POSIX or Windows), `text` its content.
 */
export function isAnsibleDocument(path: string, text: string): boolean {
  const verdict = pathVerdict(path);
  if (verdict === "foreign" || verdict === "vars") return false;
  if (verdict === "role") return true;
  if (verdict === "likely") {
    // a playbook or task file is a list (or not written yet); a mapping there is vars or something else
    const shape = topLevel(text).shape;
    return shape === "empty" || shape === "list";
  }
  return contentIsAnsible(text);
}

/**
 * Whether a file is YAML that is certainly not Ansible (by its path, or a Kubernetes, workflow
 * or compose mapping at the top): diagnostics for it are dropped whatever sends them.
 * `text` is the document's content when it is open.
 */
export function isForeignYaml(path: string, text?: string): boolean {
  const verdict = pathVerdict(path);
  if (verdict === "foreign") return true;
  if (verdict === "role" || verdict === "vars" || text === undefined) return false;
  const top = topLevel(text);
  return top.shape === "mapping" && isForeignMapping(top.items[0] ?? []);
}
