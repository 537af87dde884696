import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import {
  SET_SELECTION, itemRequest, selectionItems, selectionLabel, selectionStatus, tagsRequest,
} from "../selection";

describe("selection preview", () => {
  const profiles = {
    profiles: [
      { name: "nightly", playbook: "/src/site.yml", job_tags: ["deploy"], skip_tags: ["never"] },
      { name: "smoke", playbook: null, job_tags: [], skip_tags: [] },
      { playbook: "nameless" },
    ],
    error: null,
  };

  it("offers tags, each profile with its selection, and clearing only when a preview is on", () => {
    const items = selectionItems(profiles as never, null);
    assert.deepEqual(items.map((i) => [i.choice, i.detail]), [
      ["tags", "type --tags, then --skip-tags"],
      ["profile", "--tags deploy --skip-tags never"],
      ["profile", "--tags all"],
    ]);
    const on = selectionItems(profiles as never, "--tags web");
    assert.deepEqual(on[on.length - 1], { label: "$(close) Clear the preview", description: "--tags web", choice: "clear" });
    assert.equal(selectionItems(null, null).length, 1);
  });

  it("builds the request the server takes", () => {
    assert.equal(SET_SELECTION, "playbook-ls.setSelection");
    assert.deepEqual(tagsRequest(" deploy, web ,", ""), { tags: "deploy,web" });
    assert.deepEqual(tagsRequest("", "never"), { skip_tags: "never" });
    assert.deepEqual(tagsRequest(" ", " , "), {});
    assert.deepEqual(itemRequest({ label: "x", choice: "profile", profile: "nightly" }), { profile: "nightly" });
    assert.equal(itemRequest({ label: "x", choice: "clear" }), null);
  });

  it("shows the announced label, and nothing without one", () => {
    assert.equal(selectionLabel({ label: "--tags deploy", tags: ["deploy"] }), "--tags deploy");
    assert.equal(selectionLabel({ label: null }), null);
    assert.equal(selectionLabel("nonsense"), null);
    assert.equal(selectionStatus(null), undefined);
    assert.equal(selectionStatus("--tags deploy")?.text, "$(filter) --tags deploy");
  });
});
