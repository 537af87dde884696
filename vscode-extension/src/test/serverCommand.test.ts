import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { Host, describe as describeCommand, expandVariables, installCommand, resolveServer, whichOnPath } from "../serverCommand";

function host(files: string[], overrides: Partial<Host> = {}): Host {
  const present = new Set(files);
  return {
    platform: "linux",
    env: { PATH: "/usr/local/bin:/usr/bin" },
    home: "/home/ann",
    workspaceFolders: ["/src/infra"],
    extensionDir: "/ext/playbook-ls",
    trusted: true,
    isExecutable: (path) => present.has(path),
    isDirectory: () => false,
    ...overrides,
  };
}

const none = { path: "", python: "" };

describe("resolveServer", () => {
  it("prefers a virtualenv of the workspace, .venv first", () => {
    const found = resolveServer(none, host(["/src/infra/venv/bin/playbook-ls", "/src/infra/.venv/bin/playbook-ls",
      "/usr/bin/playbook-ls"]));
    assert.equal(found.kind, "found");
    assert.deepEqual(found.kind === "found" && [found.command, found.args, found.source],
      ["/src/infra/.venv/bin/playbook-ls", ["serve"], "workspace virtualenv .venv"]);
  });

  it("looks in every workspace folder, then PATH, then pipx's bin directory", () => {
    const second = resolveServer(none, host(["/src/roles/env/bin/playbook-ls", "/usr/bin/playbook-ls"],
      { workspaceFolders: ["/src/infra", "/src/roles"] }));
    assert.equal(second.kind === "found" && second.command, "/src/roles/env/bin/playbook-ls");
    const onPath = resolveServer(none, host(["/usr/bin/playbook-ls", "/home/ann/.local/bin/playbook-ls"]));
    assert.equal(onPath.kind === "found" && onPath.command, "/usr/bin/playbook-ls");
    assert.equal(onPath.kind === "found" && onPath.source, "PATH");
    const pipx = resolveServer(none, host(["/home/ann/.local/bin/playbook-ls"]));
    assert.equal(pipx.kind === "found" && pipx.command, "/home/ann/.local/bin/playbook-ls");
  });

  it("uses Scripts\\playbook-ls.exe and PATHEXT on Windows", () => {
    const windows = {
      platform: "win32",
      env: { Path: "C:\\Python\\Scripts;C:\\Windows", PATHEXT: ".COM;.EXE;.BAT" },
      home: "C:\\Users\\ann",
      workspaceFolders: ["C:\\src\\infra"],
    };
    const venv = resolveServer(none, host(["C:\\src\\infra\\.venv\\Scripts\\playbook-ls.exe"], windows));
    assert.equal(venv.kind === "found" && venv.command, "C:\\src\\infra\\.venv\\Scripts\\playbook-ls.exe");
    const onPath = resolveServer(none, host(["C:\\Python\\Scripts\\playbook-ls.exe"], windows));
    assert.equal(onPath.kind === "found" && onPath.command, "C:\\Python\\Scripts\\playbook-ls.exe");
  });

  it("does not run a virtualenv of an untrusted workspace", () => {
    const files = ["/src/infra/.venv/bin/playbook-ls", "/usr/bin/playbook-ls"];
    const found = resolveServer(none, host(files, { trusted: false }));
    assert.equal(found.kind === "found" && found.command, "/usr/bin/playbook-ls");
    const missing = resolveServer(none, host(["/src/infra/.venv/bin/playbook-ls"], { trusted: false }));
    assert.equal(missing.kind, "missing");
  });

  it("takes playbook-ls.server.path first, with ${workspaceFolder} and ~ expanded", () => {
    const files = ["/src/infra/tools/playbook-ls", "/home/ann/bin/playbook-ls", "/usr/bin/playbook-ls"];
    const viaFolder = resolveServer({ path: "${workspaceFolder}/tools/playbook-ls", python: "/usr/bin/python3" }, host(files));
    assert.deepEqual(viaFolder.kind === "found" && [viaFolder.command, viaFolder.source],
      ["/src/infra/tools/playbook-ls", "playbook-ls.server.path"]);
    const viaHome = resolveServer({ path: "~/bin/playbook-ls", python: "" }, host(files));
    assert.equal(viaHome.kind === "found" && viaHome.command, "/home/ann/bin/playbook-ls");
    const relative = resolveServer({ path: "tools/playbook-ls", python: "" }, host(files));
    assert.equal(relative.kind === "found" && relative.command, "/src/infra/tools/playbook-ls");
    const bare = resolveServer({ path: "playbook-ls", python: "" }, host(files));
    assert.equal(bare.kind === "found" && bare.command, "/usr/bin/playbook-ls");
  });

  it("says which configured path is missing, without falling back", () => {
    const missing = resolveServer({ path: "~/nowhere/playbook-ls", python: "" }, host(["/usr/bin/playbook-ls"]));
    assert.equal(missing.kind, "missing");
    assert.match(missing.kind === "missing" ? missing.message : "", /server\.path.*\/home\/ann\/nowhere\/playbook-ls/);
  });

  it("starts `<python> -m playbook_ls serve` from the extension's directory", () => {
    const found = resolveServer({ path: "", python: "${workspaceFolder}/.venv/bin/python" },
      host(["/src/infra/.venv/bin/python", "/src/infra/.venv/bin/playbook-ls"]));
    assert.deepEqual(found.kind === "found" && [found.command, found.args, found.cwd],
      ["/src/infra/.venv/bin/python", ["-m", "playbook_ls", "serve"], "/ext/playbook-ls"]);
    const python3 = resolveServer({ path: "", python: "python3" }, host(["/usr/bin/python3"]));
    assert.equal(python3.kind === "found" && python3.command, "/usr/bin/python3");
    const missing = resolveServer({ path: "", python: "/opt/py/bin/python" }, host([]));
    assert.match(missing.kind === "missing" ? missing.message : "", /server\.python/);
  });

  it("explains how to install when nothing is found, from the repository without a shipped wheel", () => {
    const missing = resolveServer(none, host([]));
    assert.equal(missing.kind, "missing");
    if (missing.kind !== "missing") return;
    assert.match(missing.message, /pipx install git\+https:\/\/github\.com\/playbook-ls\/playbook-ls/);
    assert.match(missing.message, /python -m pip install git\+https/);
    assert.match(missing.message, /playbook-ls\.server\.path/);
    assert.equal(missing.installCommand, "pipx install git+https://github.com/playbook-ls/playbook-ls");
    assert.doesNotMatch(missing.message, /install playbook-ls\b/);  // no unpublished package name
    assert.deepEqual(missing.tried, ["/src/infra/.venv/bin/playbook-ls", "/src/infra/venv/bin/playbook-ls",
      "/src/infra/env/bin/playbook-ls", "PATH", "/home/ann/.local/bin/playbook-ls"]);
  });

  it("installs the wheel the extension ships when there is one", () => {
    const wheel = "/ext/playbook-ls/server/playbook_ls-0.1.0-py3-none-any.whl";
    assert.equal(installCommand(host([], { bundledWheel: wheel })), `pipx install ${wheel}`);
    assert.equal(installCommand(host(["/src/infra/.venv/bin/python"], { bundledWheel: wheel })),
      `/src/infra/.venv/bin/python -m pip install ${wheel}`);
    assert.equal(installCommand(host([], { bundledWheel: "/my ext/server/p.whl" })), "pipx install '/my ext/server/p.whl'");
  });

  it("offers pip into the workspace's virtualenv when there is one", () => {
    const withVenv = host(["/src/infra/.venv/bin/python"]);
    assert.equal(installCommand(withVenv), "/src/infra/.venv/bin/python -m pip install git+https://github.com/playbook-ls/playbook-ls");
    const missing = resolveServer(none, withVenv);
    assert.match(missing.kind === "missing" ? missing.message : "", /\.venv\/bin\/python -m pip install git\+https/);
    const spaced = host(["/src/my infra/.venv/bin/python"], { workspaceFolders: ["/src/my infra"] });
    assert.equal(installCommand(spaced), "'/src/my infra/.venv/bin/python' -m pip install git+https://github.com/playbook-ls/playbook-ls");
  });
});

describe("expandVariables", () => {
  const where = { platform: "linux", env: { TOOLS: "/opt/tools" }, home: "/home/ann", workspaceFolders: ["/src/a", "/src/b"] };

  it("expands the workspace folders, the home directory and the environment", () => {
    assert.equal(expandVariables("${workspaceFolder}/x", where), "/src/a/x");
    assert.equal(expandVariables("${workspaceFolder:b}/x", where), "/src/b/x");
    assert.equal(expandVariables("~/x", where), "/home/ann/x");
    assert.equal(expandVariables("~", where), "/home/ann");
    assert.equal(expandVariables("${userHome}/x", where), "/home/ann/x");
    assert.equal(expandVariables("${env:TOOLS}/pls", where), "/opt/tools/pls");
    assert.equal(expandVariables("  ${unknown}/x ", where), "${unknown}/x");
    assert.equal(expandVariables("a~b", where), "a~b");
  });
});

describe("whichOnPath", () => {
  it("skips empty PATH entries and finds the first match", () => {
    const h = host(["/b/playbook-ls", "/c/playbook-ls"], { env: { PATH: "::/a:/b:/c" } });
    assert.equal(whichOnPath("playbook-ls", h), "/b/playbook-ls");
    assert.equal(whichOnPath("nothing", h), undefined);
  });
});

describe("describe", () => {
  it("quotes parts with spaces", () => {
    assert.equal(describeCommand({ kind: "found", command: "/my tools/python", args: ["-m", "playbook_ls", "serve"],
      cwd: "/", source: "x" }), '"/my tools/python" -m playbook_ls serve');
  });
});
