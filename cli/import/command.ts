/**
 * The `import` command: its options, help (the file's form and rules, what is trusted, where the urls go) and examples;
 * the adoption (`./import.ts`) is loaded only when it runs.
 */
import { Command } from "commander";
import { CLI_EXECUTABLE } from "../../kernel/names.js";
import { ID_RULE_DESCRIPTION } from "../../kernel/webhook-rules.js";
import { WEBHOOK_URLS_KEY } from "../adopt/declarations.js";
import { wrap } from "../shared/help.js";
import { cwdOption, namespaceOption, stackOption } from "../shared/options.js";
import { NAME_RULE, OPTIONAL_COLUMNS, REQUIRED_COLUMNS } from "./columns.js";
import type { ImportOptions } from "./import.js";

/**
 * `import --help`'s text after the options: the file's form and rules (from `./columns.ts` and the webhook rule's
 * home), what is trusted, where the urls go, the exit codes.
 */
function importHelpAfter(): string {
  return [
    "",
    ...wrap(
      `The file: CSV whose header names the columns ${REQUIRED_COLUMNS.join(",")} (and optionally ${OPTIONAL_COLUMNS.join(",")}: the resource name, ` +
        "by default the event and the id), or a JSON array of objects with those fields. Every row is checked first: the event is one of the " +
        `help desk's events, the url follows the url rule, ${ID_RULE_DESCRIPTION}, ${NAME_RULE}; no id or name twice, and none held by ` +
        "another webhook of the stack. A bad row ends the command with exit code 2, its row number and what is wrong (never the url), and " +
        "nothing changed. Rows already adopted are skipped, so a rerun is harmless.",
    ),
    "",
    ...wrap(
      "The help desk cannot be asked (no read endpoint): event and url are recorded as the file gives them. They are adopted in one " +
        `\`pulumi import\` run, each url a secret; the urls go to the secret stack config ${WEBHOOK_URLS_KEY}, which the printed ` +
        "declarations read, so no url lands in code. Under the default provider, or with --namespace <ns> under the stack's explicit provider " +
        "configured from <ns>:*. Protected, as pulumi import protects (the declarations say so too): a pulumi up before " +
        "they are in the program fails, naming them, instead of deleting them; --no-protect adopts them unprotected.",
    ),
    "",
    "Examples:",
    `  $ ${CLI_EXECUTABLE} import --stack dev --from webhooks.csv`,
    `  $ ${CLI_EXECUTABLE} import --stack dev --namespace eu --from webhooks.json`,
    `  $ cat webhooks.csv | ${CLI_EXECUTABLE} import --from -`,
  ].join("\n");
}

/** `pulumi-helpdesk import`. */
export const importCommand = new Command("import")
  .description(
    "Adopt the help desk's existing webhooks into the stack in one `pulumi import` run (no request to the help desk), and print their declarations.",
  )
  .requiredOption(
    "--from <file>",
    "CSV (header id,event,url[,name]) or JSON array of the webhooks; - reads standard input",
  )
  .addOption(stackOption())
  .addOption(namespaceOption())
  .addOption(cwdOption())
  .option("--protect", "adopt them protected, as pulumi import does (the default)")
  .option("--no-protect", "adopt them unprotected: a pulumi up of a program that does not declare them deletes them")
  .addHelpText("after", importHelpAfter())
  .action(async (options: ImportOptions) => (await import("./import.js")).importWebhooks(options));
