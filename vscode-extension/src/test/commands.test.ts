import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { SERVER, fileUriToPath, isRunCommand, positionArgs, requestPosition, reviewArgs, withProfile } from "../commands";

describe("withProfile", () => {
  const lens = [{ playbook: "/src/site.yml", play: 0, tags: "web", play_at: ["/src/site.yml", 3] }];

  it("adds the active profile to a lens's Check and Run", () => {
    assert.deepEqual(withProfile(SERVER.runTasks, lens, "nightly"), [{ ...lens[0], profile: "nightly" }]);
    assert.deepEqual(withProfile(SERVER.checkTasks, lens, "nightly"), [{ ...lens[0], profile: "nightly" }]);
    assert.equal("profile" in lens[0], false, "the lens's own arguments are not changed");
  });

  it("leaves the arguments alone without a profile, with one already, or for other commands", () => {
    assert.equal(withProfile(SERVER.runTasks, lens, undefined), lens);
    assert.equal(withProfile(SERVER.runTasks, lens, ""), lens);
    const own = [{ playbook: "site.yml", profile: "smoke" }];
    assert.equal(withProfile(SERVER.runTasks, own, "nightly"), own);
    const cleared = [{ playbook: "site.yml", profile: null }];
    assert.equal(withProfile(SERVER.runTasks, cleared, "nightly"), cleared);
    const list = [{ path: "/src/site.yml", line: 3 }];
    assert.equal(withProfile(SERVER.listTasks, list, "nightly"), list);
    assert.equal(withProfile(SERVER.showEffectiveTags, ["/src/site.yml", 3], "nightly").length, 2);
  });

  it("leaves arguments that are not one object alone", () => {
    const odd = ["/src/site.yml", 3];
    assert.equal(withProfile(SERVER.runTasks, odd, "nightly"), odd);
    assert.deepEqual(withProfile(SERVER.runTasks, [], "nightly"), []);
    const array = [["x"]];
    assert.equal(withProfile(SERVER.runTasks, array, "nightly"), array);
  });
});

describe("commands", () => {
  it("knows which commands run tasks", () => {
    assert.equal(isRunCommand("playbook-ls.runTasks"), true);
    assert.equal(isRunCommand("playbook-ls.checkTasks"), true);
    assert.equal(isRunCommand("playbook-ls.listTasks"), false);
    assert.equal(isRunCommand("playbookLs.runTaskSet"), false);
  });

  it("builds the position arguments", () => {
    assert.deepEqual(positionArgs("file:///src/site.yml", 4), [{ uri: "file:///src/site.yml", line: 4 }]);
    assert.deepEqual(positionArgs("file:///src/site.yml", 4, "nightly"),
      [{ uri: "file:///src/site.yml", line: 4, profile: "nightly" }]);
  });

  it("reads where a lens points", () => {
    assert.deepEqual(requestPosition([{ path: "/src/site.yml", line: 3, tags: "web" }]), { path: "/src/site.yml", line: 3 });
    assert.deepEqual(requestPosition(["/src/roles/web/tasks/main.yml", 0]), { path: "/src/roles/web/tasks/main.yml", line: 0 });
    assert.deepEqual(requestPosition([{ uri: "file:///src/my%20site.yml" }]), { path: "/src/my site.yml" });
    assert.deepEqual(requestPosition([]), {});
  });

  it("turns file URIs into paths", () => {
    assert.equal(fileUriToPath("file:///c%3A/infra/site.yml"), "c:/infra/site.yml");
    assert.equal(fileUriToPath("file:///home/ann/a%23b.yml"), "/home/ann/a#b.yml");
  });
});

describe("reviewArgs", () => {
  it("leaves the revision to the server (the merge base) when none is given", () => {
    assert.deepEqual(reviewArgs("/src/site.yml", ""), [{ path: "/src/site.yml" }]);
    assert.deepEqual(reviewArgs("/src/site.yml", "   "), [{ path: "/src/site.yml" }]);
  });
  it("passes the revision given, trimmed", () => {
    assert.deepEqual(reviewArgs("/src/roles/web/tasks/main.yml", " origin/main "),
      [{ path: "/src/roles/web/tasks/main.yml", base: "origin/main" }]);
  });
});
