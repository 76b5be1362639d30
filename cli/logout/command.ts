/** The `logout` command: its options, help and examples; the removal (`./logout.ts`) is loaded only when it runs. */
import { Command } from "commander";
import { CLI_EXECUTABLE } from "../../kernel/names.js";
import { cwdOption, namespaceOption, stackOption } from "../shared/options.js";
import type { LogoutOptions } from "./logout.js";

/** `pulumi-helpdesk logout`. */
export const logoutCommand = new Command("logout")
  .description("Remove the tokens from the stack's config (client settings stay for the next login).")
  .addOption(stackOption())
  .addOption(namespaceOption())
  .addOption(cwdOption())
  .addHelpText(
    "after",
    `\nExamples:\n  $ ${CLI_EXECUTABLE} logout --stack dev\n  $ ${CLI_EXECUTABLE} logout --stack dev --namespace eu`,
  )
  .action(async (options: LogoutOptions) => (await import("./logout.js")).logout(options));
