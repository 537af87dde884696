/**
 * Read-only virtual documents (scheme `playbook-ls`) for task listings and effective tags, with
 * their `path:line` references as links. Thin wiring over render.ts.
 */
import * as vscode from "vscode";
import type { TextLink } from "./render";

export const SCHEME = "playbook-ls";

interface Page {
  text: string;
  links: TextLink[];
}

export class VirtualDocuments implements vscode.TextDocumentContentProvider, vscode.DocumentLinkProvider, vscode.Disposable {
  private readonly pages = new Map<string, Page>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly disposables: vscode.Disposable[] = [];
  readonly onDidChange = this.changed.event;

  constructor(private readonly root: () => vscode.Uri | undefined) {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(SCHEME, this),
      vscode.languages.registerDocumentLinkProvider({ scheme: SCHEME }, this),
      vscode.workspace.onDidCloseTextDocument((document) => {
        if (document.uri.scheme === SCHEME) this.pages.delete(document.uri.toString());
      }),
      this.changed,
    );
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.pages.get(uri.toString())?.text ?? "This playbook-ls view is gone: run its command again.\n";
  }

  provideDocumentLinks(document: vscode.TextDocument): vscode.DocumentLink[] {
    const page = this.pages.get(document.uri.toString());
    if (!page) return [];
    const root = this.root();
    const links: vscode.DocumentLink[] = [];
    for (const link of page.links) {
      const absolute = /^([a-zA-Z]:[\\/]|[\\/])/.test(link.path);
      if (!absolute && !root) continue;
      const file = absolute ? vscode.Uri.file(link.path) : vscode.Uri.joinPath(root as vscode.Uri, link.path);
      const target = file.with({ fragment: `L${link.targetLine + 1}` });
      const item = new vscode.DocumentLink(new vscode.Range(link.line, link.start, link.line, link.end), target);
      item.tooltip = "Open the task";
      links.push(item);
    }
    return links;
  }

  /** Show `text` in a read-only editor beside the current one; `name` ends with .md for Markdown. */
  async show(name: string, text: string, links: TextLink[] = []): Promise<void> {
    const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${name}` });
    const known = this.pages.has(uri.toString());
    this.pages.set(uri.toString(), { text, links });
    if (known) this.changed.fire(uri);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: false });
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
    this.pages.clear();
  }
}
