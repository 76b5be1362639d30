/**
 * The `pulumi-helpdesk` command. Exit codes: 0 success, 1 the operation failed, 2 bad usage.
 */

import { Command, InvalidArgumentError } from "commander";
import { DEFAULT_CLIENT } from "../emulator/index.js";
import { STACK_FLAG } from "../kernel/commands.js";
import { DEFAULT_CONFIG_NAMESPACE } from "../kernel/config.js";
import { EVENTS } from "../kernel/events.js";
import { CLI_EXECUTABLE, PLUGIN_EXECUTABLE, PULUMI_PACKAGE, WEBHOOK_TYPE } from "../kernel/names.js";
import { packageVersion } from "../kernel/package-version.js";
import { SETTINGS } from "../kernel/settings.js";
import { runEmulator } from "./emulator/emulator.js";
import { importHelpAfter, loginPrecedence, migrateHelpAfter, programHelpAfter, settingOption } from "./help.js";
import { importWebhooks } from "./import/import.js";
import { login } from "./login/login.js";
import { logout } from "./logout/logout.js";
import { migrate } from "./migrate/migrate.js";
import { NAMESPACE_FLAGS, NAMESPACE_HELP, parseNamespaceOption } from "./namespace.js";
import { CliError, endQuietlyWhenOutputCloses, error as printError } from "./output.js";
import { pluginInstall, pluginPath } from "./plugin/plugin.js";
import { refresh } from "./refresh/refresh.js";
import { status } from "./status/status.js";
import { DEFAULT_EMULATOR_URL, trigger } from "./trigger/trigger.js";

endQuietlyWhenOutputCloses();

function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0)
      throw new InvalidArgumentError(`${name} must be a whole number >= 0, got ${JSON.stringify(value)}`);
    return n;
  };
}

const stackOption = [
  `-s, ${STACK_FLAG} <name>`,
  "stack whose config holds the credentials (default: the selected stack)",
] as const;
const namespaceOption = [NAMESPACE_FLAGS, NAMESPACE_HELP, parseNamespaceOption, DEFAULT_CONFIG_NAMESPACE] as const;
const cwdOption = [
  "-C, --cwd <dir>",
  "project directory holding Pulumi.yaml (default: the nearest one from the current directory upwards, as pulumi finds it)",
] as const;

function share(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0 || n > 1)
      throw new InvalidArgumentError(`${name} must be a share from 0 to 1, got ${JSON.stringify(value)}`);
    return n;
  };
}

/** The installed package's version for `--version` (kernel/package-version.ts), or "unknown" on a broken installation. */
function versionForCli(): string {
  try {
    return packageVersion();
  } catch {
    return "unknown";
  }
}

const program = new Command()
  .name(CLI_EXECUTABLE)
  .version(versionForCli(), "-V, --version", `print the version of ${CLI_EXECUTABLE} and exit`)
  .description("Manage help-desk webhooks as code: sign a Pulumi stack in to the help desk, run the local emulator.")
  .showHelpAfterError()
  .exitOverride()
  .addHelpText("after", programHelpAfter());

program
  .command("login")
  .description(
    "Sign in with the help desk's OAuth authorization-code flow and store the tokens in the stack's config (as secrets).",
  )
  .option(...stackOption)
  .option(...namespaceOption)
  .option(...settingOption("baseUrl", "url", "help-desk API base URL"))
  .option(...settingOption("clientId", "id", "OAuth client id"))
  .option(
    ...settingOption("clientSecret", "secret", "OAuth client secret", "a flag shows in `ps`, the variable does not"),
  )
  .option(...settingOption("redirectUri", "uri", "registered redirect URI, e.g. http://127.0.0.1:8976/callback"))
  .option(...cwdOption)
  .option("--no-browser", "print the sign-in URL without opening a browser")
  .option("--timeout <seconds>", "how long to wait for the browser, in seconds", positiveInt("--timeout"), 300)
  .addHelpText(
    "after",
    `
${loginPrecedence()}.
On a terminal, login asks for what is still missing (the secret without echo). With a loopback redirect URI, login
listens there and opens the browser; otherwise it asks for the URL the browser was sent to (or the bare code).
--namespace eu writes eu:baseUrl, eu:accessToken, ... instead of helpdesk:*, for an explicit provider that reads
new pulumi.Config("eu") (several help desks in one program); helpdesk:* stays as it is.

Examples:
  $ ${CLI_EXECUTABLE} login --stack dev --base-url https://helpdesk.example.com \\
      --client-id my-app --redirect-uri http://127.0.0.1:8976/callback
  $ ${SETTINGS.clientSecret.env}=... ${CLI_EXECUTABLE} login --stack dev --no-browser
  $ ${CLI_EXECUTABLE} login            # again later: every setting, the secret too, comes from the stack config
  $ ${CLI_EXECUTABLE} login --stack dev --namespace eu --base-url https://eu.helpdesk.example.com \\
      --client-id my-app --redirect-uri http://127.0.0.1:8976/callback`,
  )
  .action(login);

program
  .command("status")
  .description("Show whether the stack is signed in: base URL, client, token presence and expiry (never values).")
  .option(...stackOption)
  .option(...namespaceOption)
  .option(...cwdOption)
  .option("--json", "print a JSON object for scripts", false)
  .addHelpText(
    "after",
    `\nExamples:\n  $ ${CLI_EXECUTABLE} status --stack dev\n  $ ${CLI_EXECUTABLE} status --stack dev --namespace eu\n  $ ${CLI_EXECUTABLE} status --stack dev --json | jq .accessToken.expired`,
  )
  .action(status);

program
  .command("refresh")
  .description(
    "Get a new access token with the refresh token and store it (and any rotated refresh token) in the stack's config.",
  )
  .option(...stackOption)
  .option(...namespaceOption)
  .option(...cwdOption)
  .addHelpText(
    "after",
    `\nExamples:\n  $ ${CLI_EXECUTABLE} refresh --stack dev\n  $ ${CLI_EXECUTABLE} refresh --stack dev --namespace eu`,
  )
  .action(refresh);

program
  .command("logout")
  .description("Remove the tokens from the stack's config (client settings stay for the next login).")
  .option(...stackOption)
  .option(...namespaceOption)
  .option(...cwdOption)
  .addHelpText(
    "after",
    `\nExamples:\n  $ ${CLI_EXECUTABLE} logout --stack dev\n  $ ${CLI_EXECUTABLE} logout --stack dev --namespace eu`,
  )
  .action(logout);

program
  .command("import")
  .description(
    "Adopt the help desk's existing webhooks into the stack in one `pulumi import` run (no request to the help desk), and print their declarations.",
  )
  .requiredOption(
    "--from <file>",
    "CSV (header id,event,url[,name]) or JSON array of the webhooks; - reads standard input",
  )
  .option(...stackOption)
  .option(...namespaceOption)
  .option(...cwdOption)
  .option("--protect", "adopt them protected, as pulumi import does (the default)")
  .option("--no-protect", "adopt them unprotected: a pulumi up of a program that does not declare them deletes them")
  .addHelpText("after", importHelpAfter())
  .action(importWebhooks);

program
  .command("migrate")
  .description(
    `Move every dynamic Webhook of the stack to the native ${WEBHOOK_TYPE} with the same id, event and url (no request to the help desk), and print the declarations that replace them.`,
  )
  .option(...stackOption)
  .option(...cwdOption)
  .option("--dry-run", "list the webhooks that would move and change nothing", false)
  .addHelpText("after", migrateHelpAfter())
  .action(migrate);

program
  .command("emulator")
  .description("Run the local help-desk API emulator in the foreground (Ctrl-C to stop).")
  .option("-p, --port <port>", "port on 127.0.0.1 (0 = any free port)", positiveInt("--port"), 8080)
  .option("--client-id <id>", "OAuth client id to register", DEFAULT_CLIENT.clientId)
  .option(
    "--client-secret <secret>",
    "OAuth client secret to register (the default is a public demo value)",
    DEFAULT_CLIENT.clientSecret,
  )
  .option("--redirect-uri <uri>", "redirect URI to register for the client", DEFAULT_CLIENT.redirectUri)
  .option("--auto-approve", "approve authorization requests without the consent page (headless use)", false)
  .option("--token-ttl <seconds>", "access token lifetime in seconds", positiveInt("--token-ttl"), 7200)
  .option("--rotate-refresh-tokens", "issue a new refresh token on each use and revoke the old one", false)
  .option(
    "--data <file>",
    "keep clients, tokens, webhooks and the delivery log in this SQLite file (a JSON data file of earlier versions is imported once)",
  )
  .option(
    "--synchronous <level>",
    "data file commits: full (survive a power loss; default) or normal (survive a crash of the emulator)",
    (v: string) => {
      if (v !== "full" && v !== "normal")
        throw new InvalidArgumentError(`--synchronous must be full or normal, got ${JSON.stringify(v)}`);
      return v;
    },
    "full",
  )
  .option(
    "--delivery-log-limit <n>",
    "delivery log entries kept per account",
    positiveInt("--delivery-log-limit"),
    1000,
  )
  .option("--log", "log each request (method, path, status, time) to stderr", false)
  .option("--latency <ms>", "fault: added delay before each API request, in milliseconds", positiveInt("--latency"), 0)
  .option(
    "--rate-429 <share>",
    "fault: share (0..1) of API requests that get 429 with Retry-After",
    share("--rate-429"),
    0,
  )
  .option(
    "--rate-503 <share>",
    "fault: share (0..1) of API requests that get 503 with Retry-After",
    share("--rate-503"),
    0,
  )
  .option("--rate-500 <share>", "fault: share (0..1) of API requests that get 500", share("--rate-500"), 0)
  .option(
    "--drop-rate <share>",
    "fault: share (0..1) of API connections dropped without a response",
    share("--drop-rate"),
    0,
  )
  .addHelpText(
    "after",
    `\nExamples:\n  $ ${CLI_EXECUTABLE} emulator --port 8080 --auto-approve\n  $ ${CLI_EXECUTABLE} emulator --data ./helpdesk.db --rate-429 0.3 --latency 200`,
  )
  .action(runEmulator);

program
  .command("trigger")
  .description("Make a running emulator deliver an event to the webhooks registered for it, and show the deliveries.")
  .argument("<event>", `one of: ${EVENTS.join(", ")}`)
  .option(...settingOption("baseUrl", "url", "emulator base URL", `default ${DEFAULT_EMULATOR_URL}`))
  .option("--account <name>", "account whose webhooks receive it (default: the emulator's first account)")
  .option("--wait <seconds>", "how long to wait for the deliveries, in seconds", positiveInt("--wait"), 30)
  .addHelpText("after", `\nExample:\n  $ ${CLI_EXECUTABLE} trigger ticket_opened --base-url http://127.0.0.1:8080`)
  .action(trigger);

const plugin = program
  .command("plugin")
  .description(
    `Make the native provider plugin ${PLUGIN_EXECUTABLE} (resources ${PULUMI_PACKAGE}:index:*) findable by Pulumi.`,
  );

plugin
  .command("path")
  .description(
    `Print the folder holding the plugin's launcher, for Pulumi.yaml \`plugins: providers: - name: ${PULUMI_PACKAGE}, path: <folder>\`.`,
  )
  .action(pluginPath);

plugin
  .command("install")
  .description(
    "Install the plugin into Pulumi's plugin cache (runs `pulumi plugin install resource helpdesk <version> --file ...`).",
  )
  .option("--pulumi <path>", "the pulumi executable to run (default: pulumi on PATH)")
  .addHelpText("after", `\nExamples:\n  $ npx ${CLI_EXECUTABLE} plugin install\n  $ npx ${CLI_EXECUTABLE} plugin path`)
  .action(pluginInstall);

// No top-level await: the release executable bundles this module as CommonJS (bin/release.ts).
program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof CliError) {
    printError(error.message);
    process.exitCode = error.exitCode;
  } else if (error && typeof error === "object" && "exitCode" in error && "code" in error) {
    // commander's own exits already printed their message: help asked for (`--help`, `help <command>`) and the
    // version exit 0, usage errors (and help shown for a command missing) 2.
    process.exitCode = (error as { exitCode: number }).exitCode === 0 ? 0 : 2;
  } else {
    printError(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  }
});
