// The .vsix ships the playbook-ls wheel built from this repository (server/), so that the
// extension's "Copy install command" installs exactly the server it was built with, from a file
// the user already has, and not a package name nobody has published.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL("..", import.meta.url));
const server = fileURLToPath(new URL("../server/", import.meta.url));
const python = process.env.PLAYBOOK_LS_PYTHON || (process.platform === "win32" ? "python" : "python3");

rmSync(server, { recursive: true, force: true });
mkdirSync(server);
execFileSync(python, ["-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", server, `${here}..`],
  { stdio: "inherit" });
const wheels = readdirSync(server).filter((name) => name.endsWith(".whl"));
if (wheels.length !== 1) throw new Error(`expected one playbook-ls wheel in server/, found: ${wheels.join(", ") || "none"}`);
console.log(`server/${wheels[0]}`);
