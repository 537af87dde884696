import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";

// The modules under test run without VS Code: none of them may load `vscode`.
const PURE = ["commands", "detection", "render", "selection", "serverCommand", "settings"];

describe("pure modules", () => {
  for (const name of PURE) {
    it(`${name} does not load vscode`, () => {
      const compiled = readFileSync(join(__dirname, "..", `${name}.js`), "utf8");
      assert.doesNotMatch(compiled, /require\(["']vscode["']\)/);
      assert.doesNotMatch(compiled, /require\(["']vscode-languageclient/);
    });
  }
});
