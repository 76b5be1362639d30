/** The `status` command: its options, help and examples; the report (`./status.ts`) is loaded only when it runs. */
import { Command } from "commander";
import { CLI_EXECUTABLE } from "../../kernel/names.js";
import { cwdOption, namespaceOption, stackOption } from "../shared/options.js";
import type { StatusOptions } from "./status.js";

/** `pulumi-helpdesk status`. */
export const statusCommand = new Command("status")
  .description("Show whether the stack is signed in: base URL, client, token presence and expiry (never values).")
  .addOption(stackOption())
  .addOption(namespaceOption())
  .addOption(cwdOption())
  .option("--json", "print a JSON object for scripts", false)
  .addHelpText(
    "after",
    `\nExamples:\n  $ ${CLI_EXECUTABLE} status --stack dev\n  $ ${CLI_EXECUTABLE} status --stack dev --namespace eu\n  $ ${CLI_EXECUTABLE} status --stack dev --json | jq .accessToken.expired`,
  )
  .action(async (options: StatusOptions) => (await import("./status.js")).status(options));
