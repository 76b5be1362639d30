/**
 * The `migrate` command: its options, help (the two steps, what a failure leaves, what is checked first) and examples;
 * the move (`./migrate.ts`) is loaded only when it runs.
 */
import { Command } from "commander";
import { CLI_EXECUTABLE, WEBHOOK_TYPE } from "../../kernel/names.js";
import { WEBHOOK_URLS_KEY } from "../adopt/declarations.js";
import { wrap } from "../shared/help.js";
import { cwdOption, stackOption } from "../shared/options.js";
import type { MigrateOptions } from "./migrate.js";

/** The text after `migrate --help`: the two steps, what a failure leaves, what is checked first, and examples. */
function migrateHelpAfter(): string {
  return [
    "",
    ...wrap(
      "First every dynamic Webhook is checked (its event and url, its name free among the native webhooks, nothing depending on it) " +
        "and the stack's helpdesk:* config by the native provider's rules: a problem ends the command with exit code 2, all problems " +
        "listed, nothing changed.",
    ),
    "",
    ...wrap(
      "Then the native webhooks are adopted, protected, in one `pulumi import` run (each url a secret, the urls also in the secret stack " +
        `config ${WEBHOOK_URLS_KEY} that the printed declarations read), under the default provider, which reads the same helpdesk:* ` +
        "config. Only then do the dynamic ones leave the state with `pulumi state delete` (never a destroy: the help desk keeps them). " +
        "If the import fails, nothing is removed; if the removal fails, run the command again: it skips what is adopted and finishes.",
    ),
    "",
    "Examples:",
    `  $ ${CLI_EXECUTABLE} migrate --stack dev --dry-run`,
    `  $ ${CLI_EXECUTABLE} migrate --stack dev > migrated.ts`,
  ].join("\n");
}

/** `pulumi-helpdesk migrate`. */
export const migrateCommand = new Command("migrate")
  .description(
    `Move every dynamic Webhook of the stack to the native ${WEBHOOK_TYPE} with the same id, event and url (no request to the help desk), and print the declarations that replace them.`,
  )
  .addOption(stackOption())
  .addOption(cwdOption())
  .option("--dry-run", "list the webhooks that would move and change nothing", false)
  .addHelpText("after", migrateHelpAfter())
  .action(async (options: MigrateOptions) => (await import("./migrate.js")).migrate(options));
