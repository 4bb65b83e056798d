// The Atlas VS Code extension: a thin client that starts `atlas-ls` over stdio and passes the
// `atlas.*` settings to it. Every feature lives in the server; this file only wires it in.
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";

const SECTION = "atlas";
const LANGUAGES = [
  "python",
  "java",
  "groovy",
  "kotlin",
  "javascript",
  "javascriptreact",
  "typescript",
  "typescriptreact",
  "json",
  "jsonc",
  "yaml",
  "shellscript",
  "markdown",
  "graphql",
];

let client: LanguageClient | undefined;
let output: vscode.OutputChannel | undefined;

// The settings the server reads, as one object; VS Code's own keys (serverPath, trace) stay here.
function serverSettings(): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration(SECTION);
  return {
    bundle: config.get("bundle"),
    workspaceSymbols: {
      maxResults: config.get("workspaceSymbols.maxResults"),
      project: config.get("workspaceSymbols.project"),
    },
    recognizers: { enabled: config.get("recognizers.enabled") },
    diagnostics: {
      enabled: config.get("diagnostics.enabled"),
      api: config.get("diagnostics.api"),
      severity: config.get("diagnostics.severity"),
      debounceMs: config.get("diagnostics.debounceMs"),
    },
  };
}

function createClient(): LanguageClient {
  const command = vscode.workspace.getConfiguration(SECTION).get<string>("serverPath") || "atlas-ls";
  const serverOptions: ServerOptions = {
    run: { command, transport: TransportKind.stdio },
    debug: { command, args: ["-v"], transport: TransportKind.stdio },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: LANGUAGES.flatMap((language) => [
      { scheme: "file", language },
      { scheme: "untitled", language },
    ]),
    initializationOptions: { [SECTION]: serverSettings() },
    synchronize: { configurationSection: SECTION },
    outputChannel: output,
  };
  return new LanguageClient("atlas", "Atlas", serverOptions, clientOptions);
}

async function start(): Promise<void> {
  client = createClient();
  try {
    await client.start();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    client = undefined;
    void vscode.window.showErrorMessage(
      `Atlas: could not start the language server (${message}). Install Atlas ` +
        "(`uv tool install atlas-docs` or `pip install atlas-docs`) or set `atlas.serverPath`.",
    );
  }
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    await running.stop();
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("Atlas");
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand("atlas.client.restart", async () => {
      await stop();
      await start();
    }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      // Other settings reach the running server through didChangeConfiguration.
      if (event.affectsConfiguration(`${SECTION}.serverPath`)) {
        await stop();
        await start();
      }
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}
