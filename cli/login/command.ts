/**
 * The `login` command: its options, help and examples; the sign-in itself (`./login.ts`) is loaded only when it runs.
 */
import { Command } from "commander";
import { CLI_EXECUTABLE } from "../../kernel/names.js";
import { SETTINGS } from "../../kernel/settings.js";
import { precedencePhrase } from "../shared/help.js";
import { cwdOption, namespaceOption, positiveInt, settingOption, stackOption } from "../shared/options.js";
import type { LoginOptions } from "./login.js";

/** `login --help`'s sentence on where its settings come from, in the order of the settings' precedence. */
function loginPrecedence(): string {
  return `Settings come from ${precedencePhrase({ explicit: "flags", config: "the stack's existing config (in the namespace)", environment: "the environment" })}`;
}

/** `pulumi-helpdesk login`. */
export const loginCommand = new Command("login")
  .description(
    "Sign in with the help desk's OAuth authorization-code flow and store the tokens in the stack's config (as secrets).",
  )
  .addOption(stackOption())
  .addOption(namespaceOption())
  .addOption(settingOption("baseUrl", "url", "help-desk API base URL"))
  .addOption(settingOption("clientId", "id", "OAuth client id"))
  .addOption(
    settingOption("clientSecret", "secret", "OAuth client secret", "a flag shows in `ps`, the variable does not"),
  )
  .addOption(settingOption("redirectUri", "uri", "registered redirect URI, e.g. http://127.0.0.1:8976/callback"))
  .addOption(cwdOption())
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
  .action(async (options: LoginOptions) => (await import("./login.js")).login(options));
