import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import {
  EffectiveTagsEntry, NO_PROFILE_LABEL, profileItems, profileLabel, profileTooltip, recapText, renderEffectiveTags,
  renderListings, runSummary, selectionOptions,
} from "../render";

// What the server returns for examples/tag-inheritance.
const LISTING_TEXT = "\nplaybook: playbook.yml\n\n  play #1 (localhost): localhost\tTAGS: [__play]\n    tasks:\n"
  + "      sample : task1\tTAGS: [__play, __role1, __tag1]\n      sample task\tTAGS: [__play]\n";

const LIST_RESULT = {
  tags: ["__role1"],
  skip_tags: [],
  listings: [{
    playbook: "/src/example/playbook.yml",
    text: LISTING_TEXT,
    tasks: [
      { play: "localhost", task: "sample : task1", path: "roles/sample/tasks/main.yml", line: 1 },
      { play: "localhost", task: "sample task", path: "playbook.yml", line: 9 },
      { play: "localhost", task: "generated", path: null, line: null },
    ],
  }],
};

const TASK_ENTRY: EffectiveTagsEntry = {
  playbook: "/src/example/playbook.yml",
  context: "`playbook.yml` › play \"localhost\" › roles: entry \"sample\"",
  task: "sample : task1",
  tags: [
    { tag: "__play", from: "play \"localhost\"", at: "playbook.yml:4" },
    { tag: "__role1", from: "roles: entry \"sample\"", at: "playbook.yml:16" },
    { tag: "__tag1", from: "task \"task1\"", at: null },
  ],
  when: [{ condition: "ansible_os_family == 'Debian'", from: "play \"localhost\"" }],
};

const PLAY_ENTRY: EffectiveTagsEntry = {
  playbook: "/src/example/playbook.yml", play: "localhost", tags: [{ tag: "__play", from: "play" }],
};

describe("renderListings", () => {
  it("shows the --list-tasks text as it is, then where each task is, linked", () => {
    const rendered = renderListings(LIST_RESULT, "roles/sample/tasks/main.yml:2");
    const lines = rendered.text.split("\n");
    assert.equal(lines[0], "# playbook-ls: the tasks ansible-playbook --list-tasks --tags __role1 prints");
    assert.equal(lines[1], "# for roles/sample/tasks/main.yml:2");
    assert.ok(rendered.text.includes(LISTING_TEXT.replace(/\n+$/, "")), "the listing's text is kept byte for byte");
    assert.equal(rendered.links.length, 2);
    const [first, second] = rendered.links;
    assert.equal(lines[first.line].slice(first.start, first.end), "roles/sample/tasks/main.yml:2");
    assert.deepEqual([first.path, first.targetLine], ["roles/sample/tasks/main.yml", 1]);
    assert.equal(lines[second.line].slice(second.start, second.end), "playbook.yml:10");
    assert.match(lines[first.line], /sample : task1 {2}\(play localhost\)$/);
  });

  it("puts several playbooks one after the other", () => {
    const rendered = renderListings({ listings: [
      { playbook: "a.yml", text: "\nplaybook: a.yml\n" }, { playbook: "b.yml", text: "\nplaybook: b.yml\n" }] }, "x");
    assert.equal(rendered.text, "# playbook-ls: the tasks ansible-playbook --list-tasks prints\n# for x\n\nplaybook: a.yml\n\nplaybook: b.yml\n");
    assert.deepEqual(rendered.links, []);
  });

  it("names the selection like ansible-playbook's options", () => {
    assert.equal(selectionOptions(["web", "db"], ["never"]), "--tags web,db --skip-tags never");
    assert.equal(selectionOptions(), "");
  });
});

describe("renderEffectiveTags", () => {
  it("shows each tag with its level and place, and the when chain", () => {
    const text = renderEffectiveTags([TASK_ENTRY], "roles/sample/tasks/main.yml:2", (p) => p.replace("/src/example/", ""));
    assert.equal(text, [
      "# Effective tags at roles/sample/tasks/main.yml:2",
      "",
      "## Task `sample : task1` in `playbook.yml`",
      "",
      "**via** `playbook.yml` › play \"localhost\" › roles: entry \"sample\"",
      "",
      "**Tags** (own and inherited, outermost first; any of them selects the task):",
      "",
      "- `__play` — play \"localhost\" (playbook.yml:4)",
      "- `__role1` — roles: entry \"sample\" (playbook.yml:16)",
      "- `__tag1` — task \"task1\"",
      "",
      "**When** (all must hold, outermost first):",
      "",
      "- `ansible_os_family == 'Debian'` — play \"localhost\"",
      "",
    ].join("\n"));
  });

  it("shows plays, several contexts and untagged tasks", () => {
    const untagged = { ...TASK_ENTRY, tags: [], when: [] };
    const text = renderEffectiveTags([PLAY_ENTRY, untagged], "playbook.yml:2");
    assert.match(text, /2 contexts reach this line/);
    assert.match(text, /## Play "localhost" in `\/src\/example\/playbook.yml`\n\n\*\*Tags\*\* \(every task of the play inherits them\):\n\n- `__play`/);
    assert.match(text, /\*\*Tags\*\*: none/);
    assert.doesNotMatch(text, /\*\*When\*\*/);
    assert.match(renderEffectiveTags([{ ...PLAY_ENTRY, tags: [] }], "x"), /No tags on the play\./);
  });

  it("says when no playbook reaches the line", () => {
    assert.match(renderEffectiveTags([], "notes.yml:1"), /Nothing at notes.yml:1 is reached by a playbook/);
  });

  it("quotes conditions holding backticks", () => {
    const text = renderEffectiveTags([{ ...TASK_ENTRY, when: [{ condition: "x == '`'", from: "task" }] }], "x");
    assert.match(text, /- `` x == '`' `` — task/);
  });
});

describe("runSummary", () => {
  const recap = { web1: { ok: 3, changed: 1, unreachable: 0, failed: 0, skipped: 2, rescued: 0, ignored: 0 } };

  it("tells the exit code and the recap", () => {
    const summary = runSummary({ playbook: "/src/site.yml", check: true, tags: "web", exit_code: 0, cancelled: false, recap },
      true, (p) => p.replace("/src/", ""));
    assert.deepEqual(summary, {
      severity: "info",
      message: "playbook-ls: check of site.yml (--tags web) finished with exit code 0 — web1: ok=3 changed=1 failed=0 skipped=2",
    });
  });

  it("warns on a failing run", () => {
    const summary = runSummary({ playbook: "site.yml", check: false, exit_code: 2, cancelled: false,
      recap: { a: { ok: 1, changed: 0, failed: 1 }, b: { ok: 1, unreachable: 1 } } }, false);
    assert.equal(summary.severity, "warning");
    assert.equal(summary.message,
      "playbook-ls: run of site.yml finished with exit code 2 — a: ok=1 changed=0 failed=1; b: ok=1 changed=0 unreachable=1 failed=0");
  });

  it("reports errors and cancellations", () => {
    assert.deepEqual(runSummary({ error: "no playbook reaches this line", cancelled: false, exit_code: null }, true), {
      severity: "error", message: "playbook-ls: check failed: no playbook reaches this line",
    });
    assert.deepEqual(runSummary({ error: null, cancelled: true, exit_code: null, playbook: "site.yml", check: false }, false), {
      severity: "quiet", message: "playbook-ls: run of site.yml cancelled",
    });
    assert.equal(runSummary(null, false).severity, "error");
  });

  it("writes the recap like ansible's, hosts sorted", () => {
    assert.equal(recapText({ z: { ok: 1 }, a: { ok: 2, rescued: 1 } }), "a: ok=2 changed=0 failed=0 rescued=1; z: ok=1 changed=0 failed=0");
    assert.equal(recapText(undefined), "");
  });
});

describe("profiles", () => {
  it("labels the status bar item", () => {
    assert.equal(profileLabel("nightly"), "$(rocket) nightly");
    assert.equal(profileLabel(undefined), "$(rocket) no profile");
    assert.match(profileTooltip("nightly"), /"nightly"/);
    assert.match(profileTooltip(undefined), /No launch profile/);
    assert.match(profileTooltip(undefined), /Click to choose/);
  });

  it("lists No profile first, then each profile, the active one marked", () => {
    const items = profileItems({
      profiles: [
        { name: "nightly", playbook: "/src/site.yml", job_type: "run", inventory: "inventory/prod.ini", limit: "web",
          job_tags: "deploy,config", skip_tags: ["never"], source: "/src/.playbook-ls.yml" },
        { name: "smoke", playbook: "site.yml", job_type: "check", inventory: null, limit: null, job_tags: null,
          skip_tags: null, source: null },
      ],
      error: null,
    }, "nightly", (p) => p.replace("/src/", ""));
    assert.deepEqual(items, [
      { label: NO_PROFILE_LABEL, profile: undefined, picked: false },
      { label: "$(check) nightly", description: "run · site.yml",
        detail: "inventory inventory/prod.ini · limit web · tags deploy,config · skip never · from .playbook-ls.yml",
        profile: "nightly", picked: true },
      { label: "smoke", description: "check · site.yml", detail: undefined, profile: "smoke", picked: false },
    ]);
  });

  it("offers No profile alone when there are none or the server failed", () => {
    assert.deepEqual(profileItems(null, undefined), [{ label: `$(check) ${NO_PROFILE_LABEL}`, profile: undefined, picked: true }]);
    assert.equal(profileItems({ profiles: [], error: "bad file" }, "gone").length, 1);
  });
});
