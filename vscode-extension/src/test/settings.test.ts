import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { configurationParams, serverOptions } from "../settings";

function getter(values: Record<string, unknown>) {
  return (key: string) => values[key];
}

describe("serverOptions", () => {
  it("sends the defaults with runOutput: notification", () => {
    assert.deepEqual(serverOptions(getter({ config: "", profilesFile: "", select: [], ignore: [], rolesPath: [], confirmRun: true })), {
      select: [], ignore: [], rolesPath: [], confirmRun: true, runOutput: "notification", commandResults: "return",
    });
  });

  it("lets the server run repository code only in a trusted workspace", () => {
    assert.equal(serverOptions(getter({})).runRepositoryCode, undefined);
    assert.equal(serverOptions(getter({}), (value) => value, false).runRepositoryCode, undefined);
    assert.equal(serverOptions(getter({}), (value) => value, true).runRepositoryCode, true);
  });

  it("forwards the settings, expanding paths", () => {
    const expand = (value: string) => value.replace("${workspaceFolder}", "/src/infra").replace(/^~/, "/home/ann");
    const options = serverOptions(getter({
      config: "${workspaceFolder}/ci/playbook-ls.yml",
      profilesFile: "~/profiles.yml",
      select: ["PLS1", " never-reselected ", 3, ""],
      ignore: ["PLS101"],
      rolesPath: ["~/roles", "shared/roles"],
      confirmRun: false,
      server: { path: "/usr/bin/playbook-ls" },
    }), expand);
    assert.deepEqual(options, {
      config: "/src/infra/ci/playbook-ls.yml",
      profilesFile: "/home/ann/profiles.yml",
      select: ["PLS1", "never-reselected"],
      ignore: ["PLS101"],
      rolesPath: ["/home/ann/roles", "shared/roles"],
      confirmRun: false,
      runOutput: "notification", commandResults: "return",
    });
  });

  it("passes the run settings: engine, inventory, limit, extra variables", () => {
    const options = serverOptions(getter({ engine: "ansible", inventory: "~/hosts.ini", limit: "web*",
      extraVars: { version: 2 } }), (value) => value.replace(/^~/, "/home/ann"));
    assert.equal(options.engine, "ansible");
    assert.equal(options.inventory, "/home/ann/hosts.ini");
    assert.equal(options.limit, "web*");
    assert.deepEqual(options.extraVars, { version: 2 });
    const none = serverOptions(getter({ engine: "warp", extraVars: [], limit: " " }));
    assert.equal(none.engine, undefined);
    assert.equal(none.extraVars, undefined);
    assert.equal(none.limit, undefined);
  });

  it("keeps confirmRun on unless it is false", () => {
    assert.equal(serverOptions(getter({})).confirmRun, true);
    assert.equal(serverOptions(getter({ confirmRun: "no" })).confirmRun, true);
  });

  it("wraps them for workspace/didChangeConfiguration", () => {
    const options = serverOptions(getter({ select: ["PLS1"] }));
    assert.deepEqual(configurationParams(options), { settings: { "playbook-ls": options } });
  });
});
