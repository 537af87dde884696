// The extension in a real extension host: bundles it from ../src, deploys it unpacked into the
// Theia browser application built here (npm run build), opens a copy of
// examples/tag-inheritance in it, and drives it with headless Chromium (scenario.mjs).
//
//   node run.mjs            screenshots and the host's log go to out/
//
// Environment: CHROMIUM (default /usr/bin/chromium), PLAYBOOK_LS (the server executable,
// default ../../.venv/bin/playbook-ls; its directory is put first on the host's PATH, so the
// extension finds it "through PATH" as after a pipx install), KEEP=1 leaves the host running.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { scenario } from "./scenario.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const extension = resolve(here, "..");
const repository = resolve(extension, "..");
const out = join(here, "out");
const plugins = join(here, ".plugins");
const chromium = process.env.CHROMIUM || "/usr/bin/chromium";
const server = resolve(process.env.PLAYBOOK_LS || join(repository, ".venv", "bin", "playbook-ls"));
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;

function need(path, what) {
  if (!existsSync(path)) {
    console.error(`missing ${path}: ${what}`);
    process.exit(2);
  }
}
need(join(here, "lib", "backend", "main.js"), "run npm run setup and npm run build here first (README.md)");
need(join(extension, "node_modules", ".bin", "esbuild"), "run npm ci in vscode-extension first");
need(chromium, "install Chromium (Debian: apt-get install chromium) or set CHROMIUM");
need(server, "create the project's virtualenv with playbook-ls installed, or set PLAYBOOK_LS");

// the extension, unpacked as VS Code installs it from the .vsix (package.json, README.md, dist/)
rmSync(plugins, { recursive: true, force: true });
rmSync(out, { recursive: true, force: true });
mkdirSync(join(plugins, "playbook-ls", "dist"), { recursive: true });
mkdirSync(out, { recursive: true });
const bundle = spawnSync(join(extension, "node_modules", ".bin", "esbuild"), [
  join(extension, "src", "extension.ts"), "--bundle", `--outfile=${join(plugins, "playbook-ls", "dist", "extension.js")}`,
  "--external:vscode", "--platform=node", "--format=cjs", "--target=node18", "--sourcemap", "--log-level=warning",
], { stdio: "inherit" });
if (bundle.status !== 0) process.exit(2);
for (const file of ["package.json", "README.md"]) cpSync(join(extension, file), join(plugins, "playbook-ls", file));
// Theia has no built-in extensions here: this one only declares the yaml language (VS Code's own does)
cpSync(join(here, "yaml-language"), join(plugins, "yaml-language"), { recursive: true });

// a fresh workspace and user configuration
const workspace = mkdtempSync(join(tmpdir(), "pls-host-workspace-"));
cpSync(join(repository, "examples", "tag-inheritance"), workspace, { recursive: true });
// YAML that is not Ansible yet: the scenario writes a play into it
writeFileSync(join(workspace, "notes.yml"), "title: notes\n");
const config = mkdtempSync(join(tmpdir(), "pls-host-config-"));
// workspace trust asked (the scenario answers no, then trusts it from Restricted Mode); no
// auto-indent, so that text typed by the scenario lands as it is written
const userSettings = { "security.workspace.trust.enabled": true, "editor.autoIndent": "none" };
/** Writes the user settings: these and `extra` (the scenario changes playbook-ls's settings). */
const writeSettings = (extra = {}) =>
  writeFileSync(join(config, "settings.json"), JSON.stringify({ ...userSettings, ...extra }, null, 2));
writeSettings();

const port = await new Promise((done) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port: free } = probe.address();
    probe.close(() => done(free));
  });
});
const log = openSync(join(out, "theia.log"), "w");
const host = spawn(process.execPath, [join(here, "lib", "backend", "main.js"), workspace, "--hostname", "127.0.0.1",
  "--port", String(port), `--plugins=local-dir:${plugins}`], {
  cwd: here,
  detached: true, // its own process group: the plugin host and the server end with it
  stdio: ["ignore", log, log],
  env: { ...process.env, THEIA_CONFIG_DIR: config, PATH: `${dirname(server)}:${process.env.PATH}` },
});
const stop = () => {
  try {
    process.kill(-host.pid, "SIGTERM");
  } catch {
    // already gone
  }
};
process.on("SIGINT", () => {
  stop();
  process.exit(130);
});

const url = `http://127.0.0.1:${port}/`;
for (let tries = 0; ; tries++) {
  try {
    if ((await fetch(url)).ok) break;
  } catch {
    // not listening yet
  }
  if (tries > 120 || host.exitCode !== null) {
    console.error(`the host did not start: see ${join(out, "theia.log")}`);
    stop();
    process.exit(2);
  }
  await new Promise((done) => setTimeout(done, 500));
}
console.log(`host listening on ${url} after ${elapsed()} (workspace ${workspace})`);

let failed = 1;
try {
  failed = await scenario({ url, out, chromium, writeSettings });
} catch (error) {
  console.error(error);
} finally {
  if (process.env.KEEP) {
    console.log(`KEEP: the host stays on ${url} (process group ${host.pid})`);
  } else {
    stop();
    rmSync(workspace, { recursive: true, force: true });
    rmSync(config, { recursive: true, force: true });
  }
}
console.log(`${failed === 0 ? "all passed" : `${failed} failed`} in ${elapsed()}; screenshots and theia.log in ${out}`);
process.exit(failed === 0 ? 0 : 1);
