/**
 * The selection preview (pure, no `vscode`): the choices of "playbook-ls: Preview a selection",
 * the request `playbook-ls.setSelection` takes, and the status item the server's
 * `playbook-ls/selection` notification turns into.
 */
import type { ListProfilesResult } from "./render";

export const SET_SELECTION = "playbook-ls.setSelection";
export const SELECTION_NOTIFICATION = "playbook-ls/selection";

/** What `playbook-ls.setSelection` takes; null clears the preview. */
export interface SelectionRequest {
  tags?: string;
  skip_tags?: string;
  profile?: string;
}

export interface SelectionItem {
  label: string;
  description?: string;
  detail?: string;
  /** "tags": ask for the tags, then the skip tags; "profile": that profile's selection; "clear". */
  choice: "tags" | "profile" | "clear";
  profile?: string;
}

function joined(values: unknown): string {
  if (typeof values === "string") return values;
  return Array.isArray(values) ? values.filter((v) => typeof v === "string" && v !== "").join(",") : "";
}

/** The quick pick: tags typed in, each launch profile, and clearing when a preview is on. */
export function selectionItems(result: ListProfilesResult | null | undefined, active: string | null): SelectionItem[] {
  const items: SelectionItem[] = [{ label: "$(tag) Tags…", detail: "type --tags, then --skip-tags", choice: "tags" }];
  for (const profile of result?.profiles ?? []) {
    if (!profile || typeof profile.name !== "string") continue;
    const tags = joined(profile.job_tags);
    const skip = joined(profile.skip_tags);
    const detail = [tags ? `--tags ${tags}` : "--tags all", skip ? `--skip-tags ${skip}` : ""].filter(Boolean).join(" ");
    items.push({ label: `$(rocket) ${profile.name}`, description: "launch profile", detail, choice: "profile",
      profile: profile.name });
  }
  if (active) items.push({ label: "$(close) Clear the preview", description: active, choice: "clear" });
  return items;
}

/** The request for typed tags and skip tags (comma-separated; blanks dropped). */
export function tagsRequest(tags: string, skipTags: string): SelectionRequest {
  const clean = (text: string) => text.split(",").map((t) => t.trim()).filter(Boolean).join(",");
  const request: SelectionRequest = {};
  if (clean(tags)) request.tags = clean(tags);
  if (clean(skipTags)) request.skip_tags = clean(skipTags);
  return request;
}

/** The request an item stands for (the tags item needs the typed text: see `tagsRequest`). */
export function itemRequest(item: SelectionItem): SelectionRequest | null {
  if (item.choice === "profile" && item.profile) return { profile: item.profile };
  return null;
}

/** The label of a `playbook-ls/selection` notification, or null (no preview, or a bad message). */
export function selectionLabel(params: unknown): string | null {
  if (typeof params !== "object" || params === null) return null;
  const label = (params as { label?: unknown }).label;
  return typeof label === "string" && label !== "" ? label : null;
}

/** The status item for a label: hidden (undefined) without a preview. */
export function selectionStatus(label: string | null): { text: string; tooltip: string } | undefined {
  if (!label) return undefined;
  return {
    text: `$(filter) ${label}`,
    tooltip: `playbook-ls: previewing ${label}. The tasks it does not run are greyed out; click to change or clear.`,
  };
}
