/**
 * The VS Code extension of playbook-ls: starts `playbook-ls serve` (LSP over stdio) for Ansible
 * documents, and adds commands for task listings, effective tags, check and run of task sets,
 * and launch profiles. The logic lives in pure modules (serverCommand, detection, settings,
 * commands, render); this file wires them to VS Code.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import { basename, join } from "node:path";
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  DidOpenTextDocumentNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  Middleware,
  RevealOutputChannelOn,
  ServerOptions as ProcessOptions,
  State,
  TransportKind,
} from "vscode-languageclient/node";
import {
  COMMANDS, RUN_OUTPUT_NOTIFICATION, SERVER, isRunCommand, positionArgs, requestPosition, reviewArgs, withProfile,
} from "./commands";
import { isAnsibleDocument, isForeignYaml, pathVerdict } from "./detection";
import {
  EffectiveTagsEntry, ListProfilesResult, ListTasksResult, RunResult, nothingReached, profileItems, profileLabel,
  profileTooltip, renderEffectiveTags, renderListings, runSummary,
} from "./render";
import {
  SELECTION_NOTIFICATION, SET_SELECTION, SelectionRequest, itemRequest, selectionItems, selectionLabel, selectionStatus,
  tagsRequest,
} from "./selection";
import { Found, Host, Resolution, describe, expandVariables, resolveServer } from "./serverCommand";
import { SECTION, ServerOptions, configurationParams, serverOptions } from "./settings";
import { VirtualDocuments } from "./views";

const PROFILE_KEY = "playbookLs.profile";
const ANSIBLE_CONTEXT = "playbookLs.ansibleDocument";
/** The commands that open Manage Workspace Trust: VS Code's, then Theia's. */
const TRUST_COMMANDS = ["workbench.trust.manage", "workspace:manageTrust"];

let controller: Controller | undefined;

export function activate(context: vscode.ExtensionContext): void {
  try {
    controller = new Controller(context);
    context.subscriptions.push(controller);
    controller.activate();
  } catch (error) {
    // never fail activation: say what happened instead
    void vscode.window.showErrorMessage(`playbook-ls: could not activate: ${String(error)}`);
  }
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
  controller = undefined;
}

/** Whether VS Code should talk to the server about `document`. */
function isAnsible(document: vscode.TextDocument): boolean {
  if (document.uri.scheme !== "file") return false;
  if (document.languageId === "ansible") return true;
  if (document.languageId !== "yaml") return false;
  return isAnsibleDocument(vscode.workspace.asRelativePath(document.uri, false), document.getText());
}

/** The playbook-ls wheel `npm run package` put in the extension (`server/`), if any. */
function bundledWheel(extensionDir: string): string | undefined {
  try {
    const wheel = fs.readdirSync(join(extensionDir, "server")).find((name) => name.endsWith(".whl"));
    return wheel ? join(extensionDir, "server", wheel) : undefined;
  } catch {
    return undefined;
  }
}

function fileHost(context: vscode.ExtensionContext): Host {
  const windows = process.platform === "win32";
  return {
    platform: process.platform,
    env: process.env,
    home: os.homedir(),
    workspaceFolders: (vscode.workspace.workspaceFolders ?? [])
      .filter((folder) => folder.uri.scheme === "file").map((folder) => folder.uri.fsPath),
    extensionDir: context.extensionPath,
    trusted: vscode.workspace.isTrusted,
    bundledWheel: bundledWheel(context.extensionPath),
    isExecutable(path: string): boolean {
      try {
        if (!fs.statSync(path).isFile()) return false;
        if (!windows) fs.accessSync(path, fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
    isDirectory(path: string): boolean {
      try {
        return fs.statSync(path).isDirectory();
      } catch {
        return false;
      }
    },
  };
}

class Controller implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  /** Documents whose didOpen went to the server (only Ansible ones do). */
  private readonly synced = new Set<string>();
  /** The last settings the server got, to send only real changes. */
  private lastSettings = "";
  /** The server was not found or did not start: documents opened later do not try again (commands do). */
  private gaveUp = false;
  private readonly output: vscode.OutputChannel;
  private readonly runs: vscode.OutputChannel;
  private readonly status: vscode.StatusBarItem;
  /** The selection preview's label (from the server's playbook-ls/selection), and its status item. */
  private selection: string | null = null;
  private readonly selectionItem: vscode.StatusBarItem;
  private readonly views: VirtualDocuments;
  private readonly disposables: vscode.Disposable[] = [];
  private stateListener: vscode.Disposable | undefined;

  constructor(private readonly context: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel("playbook-ls");
    this.runs = vscode.window.createOutputChannel("playbook-ls runs");
    this.status = vscode.window.createStatusBarItem("playbookLs.profile", vscode.StatusBarAlignment.Left, 50);
    this.status.name = "playbook-ls launch profile";
    this.status.command = COMMANDS.chooseProfile;
    this.selectionItem = vscode.window.createStatusBarItem("playbookLs.selection", vscode.StatusBarAlignment.Left, 49);
    this.selectionItem.name = "playbook-ls selection preview";
    this.selectionItem.command = COMMANDS.previewSelection;
    this.views = new VirtualDocuments(() => vscode.workspace.workspaceFolders?.[0]?.uri);
    this.disposables.push(this.output, this.runs, this.status, this.selectionItem, this.views);
    this.updateStatus();
  }

  activate(): void {
    const command = (id: string, handler: () => Promise<unknown>) =>
      vscode.commands.registerCommand(id, () => handler().catch((error) => this.fail(error)));
    this.disposables.push(
      command(COMMANDS.listTasks, () => this.listTasks()),
      command(COMMANDS.showEffectiveTags, () => this.showEffectiveTags()),
      command(COMMANDS.checkTaskSet, () => this.runTaskSet(true)),
      command(COMMANDS.runTaskSet, () => this.runTaskSet(false)),
      command(COMMANDS.chooseProfile, () => this.chooseProfile()),
      command(COMMANDS.previewSelection, () => this.previewSelection()),
      command(COMMANDS.reviewChange, () => this.reviewChange()),
      command(COMMANDS.restartServer, () => this.restart(true)),
      command(COMMANDS.showOutput, async () => this.output.show(true)),
      command(COMMANDS.showRunOutput, async () => this.runs.show(true)),
      vscode.workspace.onDidOpenTextDocument((document) => this.maybeStart(document)),
      // a YAML document written into an Ansible one before any server ran (once a client runs,
      // its didChange middleware opens such a document on the server)
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.contentChanges.length > 0) this.maybeStart(event.document);
      }),
      vscode.window.onDidChangeActiveTextEditor((editor) => this.updateContext(editor)),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(`${SECTION}.server`)) void this.restart(false);
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.restart(false)),
    );
    this.updateContext(vscode.window.activeTextEditor);
    if (vscode.workspace.textDocuments.some(isAnsible)) {
      void this.start();
      return;
    }
    // no Ansible document yet: an ansible.cfg in the workspace is enough
    void Promise.resolve(vscode.workspace.findFiles("**/ansible.cfg", "**/{node_modules,.git,.venv,venv}/**", 1))
      .then((found) => {
        if (found.length > 0) void this.start();
      }, () => undefined);
  }

  private maybeStart(document: vscode.TextDocument): void {
    if (this.client || this.starting || this.gaveUp || !isAnsible(document)) return;
    void this.start();
    if (vscode.window.activeTextEditor?.document === document) this.updateContext(vscode.window.activeTextEditor);
  }

  private updateContext(editor: vscode.TextEditor | undefined): void {
    const value = editor !== undefined && isAnsible(editor.document);
    void vscode.commands.executeCommand("setContext", ANSIBLE_CONTEXT, value);
  }

  // -- the profile ---------------------------------------------------------------------------

  private get profile(): string | undefined {
    const value = this.context.workspaceState.get<string>(PROFILE_KEY);
    return typeof value === "string" && value !== "" ? value : undefined;
  }

  private updateStatus(): void {
    this.status.text = profileLabel(this.profile);
    this.status.tooltip = profileTooltip(this.profile);
    if (this.client?.state === State.Running) this.status.show();
    else this.status.hide();
    const preview = this.client?.state === State.Running ? selectionStatus(this.selection) : undefined;
    if (preview) {
      this.selectionItem.text = preview.text;
      this.selectionItem.tooltip = preview.tooltip;
      this.selectionItem.show();
    } else {
      this.selectionItem.hide();
    }
  }

  // -- the client ----------------------------------------------------------------------------

  /** The running client, started when needed; undefined when the server cannot start. */
  private async start(): Promise<LanguageClient | undefined> {
    if (this.starting) return this.starting;
    if (this.client) return this.client;
    this.starting = this.create().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private resolve(): Resolution {
    const settings = vscode.workspace.getConfiguration(SECTION);
    return resolveServer({ path: settings.get<string>("server.path") ?? "", python: settings.get<string>("server.python") ?? "" },
      fileHost(this.context));
  }

  private async create(): Promise<LanguageClient | undefined> {
    const resolution = this.resolve();
    if (resolution.kind === "missing") {
      this.output.appendLine(`${resolution.message}\nLooked at: ${resolution.tried.join(", ") || "nothing"}`);
      this.gaveUp = true;
      void this.showMissing(resolution.message, resolution.installCommand);
      return undefined;
    }
    this.gaveUp = false;
    this.output.appendLine(`Starting ${describe(resolution)} (found through ${resolution.source})`);
    const client = this.makeClient(resolution);
    this.client = client;
    this.stateListener?.dispose();
    this.stateListener = client.onDidChangeState(() => this.updateStatus());
    try {
      await client.start();
    } catch (error) {
      // vscode-languageclient has shown an error with "Go to output"; the output says what to do
      this.output.appendLine(`The server did not start: ${errorText(error)}`);
      this.output.appendLine(`Check the settings playbook-ls.server.path and playbook-ls.server.python, or run `
        + `"${describe(resolution)}" in a terminal to see why. "playbook-ls: Restart server" tries again.`);
      this.gaveUp = true;
      this.client = undefined;
      this.synced.clear();
      this.stateListener?.dispose();
      void client.dispose().catch(() => undefined);
      this.updateStatus();
      return undefined;
    }
    this.updateStatus();
    return client;
  }

  private makeClient(found: Found): LanguageClient {
    const serverProcess: ProcessOptions = {
      command: found.command,
      args: found.args,
      transport: TransportKind.stdio,
      options: { cwd: found.cwd, env: { ...process.env } },
    };
    const initializationOptions = this.settings();
    this.lastSettings = JSON.stringify(initializationOptions);
    const options: LanguageClientOptions = {
      documentSelector: [{ scheme: "file", language: "ansible" }, { scheme: "file", language: "yaml" }],
      initializationOptions,
      synchronize: { configurationSection: SECTION },
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      middleware: this.middleware(),
    };
    const client = new LanguageClient("playbook-ls", "playbook-ls", serverProcess, options);
    client.onNotification(RUN_OUTPUT_NOTIFICATION, (params: { text?: unknown }) => {
      if (typeof params?.text === "string") this.runs.appendLine(params.text);
    });
    client.onNotification(SELECTION_NOTIFICATION, (params: unknown) => {
      this.selection = selectionLabel(params);
      this.updateStatus();
    });
    return client;
  }

  /** The server's settings, with `${workspaceFolder}` and `~` expanded in paths. */
  private settings(): ServerOptions {
    const configuration = vscode.workspace.getConfiguration(SECTION);
    const host = fileHost(this.context);
    return serverOptions((key) => configuration.get(key), (value) => expandVariables(value, host),
      vscode.workspace.isTrusted);
  }

  private middleware(): Middleware {
    const synced = this.synced;
    const known = (document: vscode.TextDocument) => synced.has(document.uri.toString());
    // providers answer only for the documents the server was told about
    const gate = <A extends unknown[], R>(next: (document: vscode.TextDocument, ...rest: A) => R) =>
      (document: vscode.TextDocument, ...rest: A): R | undefined => (known(document) ? next(document, ...rest) : undefined);
    return {
      didOpen: async (document, next) => {
        if (!isAnsible(document)) return;
        synced.add(document.uri.toString());
        return next(document);
      },
      didChange: async (event, next) => {
        const document = event.document;
        if (known(document)) return next(event);
        if (!isAnsible(document) || !this.client) return;
        // a YAML document that became Ansible while being written: open it now, with its text
        synced.add(document.uri.toString());
        await this.client.sendNotification(DidOpenTextDocumentNotification.type,
          this.client.code2ProtocolConverter.asOpenTextDocumentParams(document));
        if (vscode.window.activeTextEditor?.document === document) this.updateContext(vscode.window.activeTextEditor);
      },
      didClose: async (document, next) => {
        if (synced.delete(document.uri.toString())) return next(document);
      },
      didSave: async (document, next) => (known(document) ? next(document) : undefined),
      willSave: async (event, next) => (known(event.document) ? next(event) : undefined),
      willSaveWaitUntil: async (event, next) => (known(event.document) ? next(event) : []),
      provideHover: (document, position, token, next) => gate(next)(document, position, token),
      provideCompletionItem: (document, position, context, token, next) =>
        gate(next)(document, position, context, token),
      provideDefinition: (document, position, token, next) => gate(next)(document, position, token),
      provideReferences: (document, position, options, token, next) => gate(next)(document, position, options, token),
      provideDocumentSymbols: (document, token, next) => gate(next)(document, token),
      provideFoldingRanges: (document, context, token, next) => gate(next)(document, context, token),
      provideCodeLenses: (document, token, next) => gate(next)(document, token),
      provideInlayHints: (document, range, token, next) => gate(next)(document, range, token),
      provideDocumentHighlights: (document, position, token, next) => gate(next)(document, position, token),
      provideSignatureHelp: (document, position, context, token, next) => gate(next)(document, position, context, token),
      provideDocumentLinks: (document, token, next) => gate(next)(document, token),
      provideCodeActions: (document, range, context, token, next) => gate(next)(document, range, context, token),
      provideRenameEdits: (document, position, newName, token, next) => gate(next)(document, position, newName, token),
      handleDiagnostics: (uri, diagnostics, next) => {
        // never on YAML that is not Ansible (Kubernetes manifests, Helm templates, CI workflows)
        next(uri, diagnostics.length > 0 && uri.scheme === "file" && foreign(uri) ? [] : diagnostics);
      },
      executeCommand: async (command, args, next) => {
        // the lenses' commands: their results shown, Check/Run with the active launch profile
        if (isRunCommand(command)) {
          return this.runWithFeedback(command === SERVER.checkTasks, withProfile(command, args, this.profile),
            async (withArgs) => next(command, withArgs));
        }
        if (command === SERVER.showPlan) {
          // the plan of what will run where, as the text the server made
          const plan: unknown = await next(command, args);
          const text = (plan as { text?: unknown } | null)?.text;
          if (typeof text === "string") {
            const document = await vscode.workspace.openTextDocument({ content: text, language: "plaintext" });
            await vscode.window.showTextDocument(document, { preview: true });
          }
          return plan;
        }
        if (command !== SERVER.listTasks && command !== SERVER.showEffectiveTags) return next(command, args);
        const result: unknown = await next(command, args);
        if (result === undefined) return result; // failed: the client has said so
        const at = requestPosition(args);
        const origin = at.path ? `${this.display(at.path)}${at.line !== undefined ? `:${at.line + 1}` : ""}` : "the lens";
        const name = `${at.path ? basename(at.path) : "tasks"}${at.line !== undefined ? ` line ${at.line + 1}` : ""}`;
        if (command === SERVER.listTasks) await this.showListing(result as ListTasksResult | null, origin, name);
        else await this.showTags(result as EffectiveTagsEntry[] | null, origin, name);
        return result;
      },
      workspace: {
        didChangeConfiguration: async () => {
          const settings = this.settings();
          const text = JSON.stringify(settings);
          if (text === this.lastSettings || !this.client) return; // the settings of initializationOptions
          this.lastSettings = text;
          await this.client.sendNotification(DidChangeConfigurationNotification.type, configurationParams(settings));
        },
      },
    };
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.synced.clear();
    this.updateStatus();
    if (client) {
      try {
        await client.stop(2000);
      } catch (error) {
        this.output.appendLine(`Stopping the server: ${String(error)}`);
      }
      await client.dispose().catch(() => undefined);
    }
  }

  /** Start again with the settings as they are now (`explicit`: the user asked, so always start). */
  private async restart(explicit: boolean): Promise<void> {
    await this.starting;
    const wasRunning = this.client !== undefined;
    await this.stop();
    this.gaveUp = false;
    if (explicit || wasRunning || vscode.workspace.textDocuments.some(isAnsible)) {
      const client = await this.start();
      if (client && explicit) void vscode.window.setStatusBarMessage("playbook-ls: server restarted", 3000);
    }
  }

  // -- messages ------------------------------------------------------------------------------

  private async showMissing(message: string, installCommand: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, "Open Settings", "Copy install command", "Show Output");
    if (choice === "Open Settings") await this.openSettings();
    if (choice === "Copy install command") {
      await vscode.env.clipboard.writeText(installCommand);
      void vscode.window.setStatusBarMessage(`Copied: ${installCommand}`, 5000);
    }
    if (choice === "Show Output") this.output.show(true);
  }

  private async openSettings(): Promise<void> {
    await vscode.commands.executeCommand("workbench.action.openSettings", `${SECTION}.server`);
  }

  private fail(error: unknown): void {
    this.output.appendLine(`Error: ${error instanceof Error && error.stack ? error.stack : String(error)}`);
    void vscode.window.showErrorMessage(`playbook-ls: ${errorText(error)}`, "Show Output").then((choice) => {
      if (choice) this.output.show(true);
    });
  }

  // -- the commands --------------------------------------------------------------------------

  /** The active editor's document and cursor line, or undefined (after saying why). */
  private position(): { document: vscode.TextDocument; line: number } | undefined {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.uri.scheme !== "file") {
      void vscode.window.showInformationMessage("playbook-ls: open a playbook, task or role file first.");
      return undefined;
    }
    return { document: editor.document, line: editor.selection.active.line };
  }

  private where(document: vscode.TextDocument, line: number): string {
    return `${vscode.workspace.asRelativePath(document.uri, false)}:${line + 1}`;
  }

  private display = (path: string): string => vscode.workspace.asRelativePath(path, false);

  private async execute<T>(command: string, args: unknown[]): Promise<T | undefined> {
    const client = await this.start();
    if (!client) return undefined;
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args })) as T;
  }

  private async listTasks(): Promise<void> {
    const at = this.position();
    if (!at) return;
    const result = await this.execute<ListTasksResult | null>(SERVER.listTasks,
      positionArgs(at.document.uri.toString(), at.line));
    if (result === undefined) return;
    await this.showListing(result, this.where(at.document, at.line), `${basename(at.document.uri.fsPath)} line ${at.line + 1}`);
  }

  /**
   * What the change does to the run of the playbooks the edited file reaches, against a revision
   * asked for (empty: the branch's merge base); the server shows the review as a document.
   */
  private async reviewChange(): Promise<void> {
    const at = this.position();
    if (!at) return;
    const base = await vscode.window.showInputBox({
      title: "playbook-ls: review the change",
      prompt: "Compare the run with which git revision? (a branch, a tag, a commit)",
      placeHolder: "empty: the branch's merge base",
    });
    if (base === undefined) return; // dismissed
    await this.execute(SERVER.showReview, reviewArgs(at.document.uri.fsPath, base));
  }

  private async showListing(result: ListTasksResult | null, origin: string, name: string): Promise<void> {
    if (result === null || typeof result !== "object") return this.notReady();
    if (!result.listings || result.listings.length === 0) {
      void vscode.window.showInformationMessage(`playbook-ls: ${nothingReached(origin)}`);
      return;
    }
    const rendered = renderListings(result, origin);
    await this.views.show(`Tasks - ${name}.txt`, rendered.text, rendered.links);
  }

  private async showEffectiveTags(): Promise<void> {
    const at = this.position();
    if (!at) return;
    const result = await this.execute<EffectiveTagsEntry[] | null>(SERVER.showEffectiveTags,
      [{ path: at.document.uri.fsPath, line: at.line }]);
    if (result === undefined) return;
    await this.showTags(result, this.where(at.document, at.line), `${basename(at.document.uri.fsPath)} line ${at.line + 1}`);
  }

  private async showTags(result: EffectiveTagsEntry[] | null, origin: string, name: string): Promise<void> {
    if (result === null || !Array.isArray(result)) return this.notReady();
    if (result.length === 0) {
      void vscode.window.showInformationMessage(`playbook-ls: ${nothingReached(origin)}`);
      return;
    }
    await this.views.show(`Effective tags - ${name}.md`, renderEffectiveTags(result, origin, this.display));
  }

  private notReady(): void {
    void vscode.window.showInformationMessage("playbook-ls: the server is still indexing the workspace; try again in a moment.");
  }

  private async runTaskSet(check: boolean): Promise<void> {
    const at = this.position();
    if (!at) return;
    const client = await this.start();
    if (!client) return;
    const command = check ? SERVER.checkTasks : SERVER.runTasks;
    await this.runWithFeedback(check, positionArgs(at.document.uri.toString(), at.line, this.profile),
      async (args) => client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }));
  }

  /**
   * A check or run: its output channel revealed, then its outcome as a notification. The server
   * asks for confirmation of a real run itself (window/showMessageRequest).
   */
  private async runWithFeedback(check: boolean, args: unknown[], send: (args: unknown[]) => Promise<unknown>): Promise<unknown> {
    if (!vscode.workspace.isTrusted) {
      // a run executes the repository's modules, plugins and lookups: never in Restricted Mode
      const choice = await vscode.window.showWarningMessage(
        `playbook-ls: ${check ? "a check" : "a run"} executes the playbook's code: trust this workspace first.`,
        "Manage Workspace Trust");
      if (choice) await this.manageTrust();
      return undefined;
    }
    await this.saveAnsibleDocuments();
    const time = new Date().toLocaleTimeString();
    const request = (args[0] ?? {}) as Record<string, unknown>;
    const profile = typeof request.profile === "string" ? `, profile ${request.profile}` : "";
    this.runs.appendLine("");
    this.runs.appendLine(`──── ${time} ${check ? "check" : "run"}${profile} ────`);
    this.runs.show(true);
    let result: unknown;
    try {
      result = await send(args);
    } catch (error) {
      this.runs.appendLine(`playbook-ls: ${errorText(error)}`);
      void vscode.window.showErrorMessage(`playbook-ls: the ${check ? "check" : "run"} failed: ${errorText(error)}`,
        "Show Output").then((choice) => {
        if (choice) this.runs.show(true);
      });
      return undefined;
    }
    const summary = runSummary(result as RunResult | null, check, this.display);
    if (!result || typeof result !== "object") {
      void vscode.window.showErrorMessage(summary.message);
      return result;
    }
    switch (summary.severity) {
      case "error":
        // the server has shown the error itself (window/showMessage): no second notification
        this.runs.appendLine(summary.message);
        void vscode.window.setStatusBarMessage(summary.message, 10000);
        break;
      case "quiet":
        this.runs.appendLine(summary.message);
        void vscode.window.setStatusBarMessage(summary.message, 5000);
        break;
      case "info":
        void vscode.window.showInformationMessage(summary.message);
        break;
      case "warning":
        void vscode.window.showWarningMessage(summary.message, "Show Output").then((choice) => {
          if (choice) this.runs.show(true);
        });
        break;
    }
    return result;
  }

  /** VS Code's Manage Workspace Trust, or the host's own (Theia's is `workspace:manageTrust`). */
  private async manageTrust(): Promise<void> {
    const commands = await vscode.commands.getCommands(true);
    const manage = TRUST_COMMANDS.find((id) => commands.includes(id));
    if (manage) await vscode.commands.executeCommand(manage);
    else void vscode.window.showInformationMessage("playbook-ls: trust the workspace with your editor's Manage Workspace Trust command.");
  }

  /** A run reads the files from disk: save the modified Ansible documents first (as tasks do). */
  private async saveAnsibleDocuments(): Promise<void> {
    const dirty = vscode.workspace.textDocuments.filter((document) => document.isDirty
      && (this.synced.has(document.uri.toString()) || isAnsible(document)));
    await Promise.all(dirty.map((document) => document.save()));
  }

  private async chooseProfile(): Promise<void> {
    const client = await this.start();
    let result: ListProfilesResult | null | undefined;
    if (client) {
      try {
        result = (await client.sendRequest(ExecuteCommandRequest.type, { command: SERVER.listProfiles, arguments: [] })) as ListProfilesResult | null;
      } catch (error) {
        this.output.appendLine(`${SERVER.listProfiles}: ${errorText(error)}`);
        void vscode.window.showWarningMessage(`playbook-ls: could not list the launch profiles: ${errorText(error)}`);
      }
    }
    if (result?.error) void vscode.window.showWarningMessage(`playbook-ls: launch profiles: ${result.error}`);
    const items = profileItems(result, this.profile, this.display);
    const picked = await vscode.window.showQuickPick(items, {
      title: "playbook-ls: launch profile for Check and Run",
      placeHolder: items.length > 1 ? "Choose the launch profile Check and Run use"
        : "No launch profiles in the project's settings (profiles: in .playbook-ls.yml)",
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (!picked) return;
    await this.context.workspaceState.update(PROFILE_KEY, picked.profile);
    this.updateStatus();
  }

  /** "Preview a selection": tags typed in or a launch profile, sent as playbook-ls.setSelection. */
  private async previewSelection(): Promise<void> {
    const client = await this.start();
    if (!client) return;
    let result: ListProfilesResult | null = null;
    try {
      result = (await client.sendRequest(ExecuteCommandRequest.type, { command: SERVER.listProfiles, arguments: [] })) as ListProfilesResult | null;
    } catch (error) {
      this.output.appendLine(`${SERVER.listProfiles}: ${errorText(error)}`);
    }
    const picked = await vscode.window.showQuickPick(selectionItems(result, this.selection), {
      title: "playbook-ls: preview a selection (the tasks it does not run are greyed out)",
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (!picked) return;
    let request: SelectionRequest | null = itemRequest(picked);
    if (picked.choice === "tags") {
      const tags = await vscode.window.showInputBox({ title: "--tags (comma-separated; empty: all)", placeHolder: "deploy,web" });
      if (tags === undefined) return;
      const skip = await vscode.window.showInputBox({ title: "--skip-tags (comma-separated; empty: none)", placeHolder: "never" });
      if (skip === undefined) return;
      request = tagsRequest(tags, skip);
    }
    await client.sendRequest(ExecuteCommandRequest.type, { command: SET_SELECTION, arguments: [request] });
  }

  dispose(): void {
    this.stateListener?.dispose();
    void this.stop();
    for (const disposable of this.disposables) disposable.dispose();
  }
}

/** Whether diagnostics for `uri` are for YAML that is not Ansible (by its path, or its first lines). */
function foreign(uri: vscode.Uri): boolean {
  const path = vscode.workspace.asRelativePath(uri, false);
  const verdict = pathVerdict(path);
  if (verdict === "foreign") return true;
  if (verdict === "role" || verdict === "vars") return false;
  const open = vscode.workspace.textDocuments.find((document) => document.uri.toString() === uri.toString());
  return isForeignYaml(path, open ? open.getText() : head(uri.fsPath));
}

/** The first 64 KiB of a file, or undefined. */
function head(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(path, "r");
    const buffer = Buffer.alloc(65536);
    const size = fs.readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, size).toString("utf8");
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error && typeof error === "object" && "message" in error) return String((error as { message: unknown }).message);
  return String(error);
}
