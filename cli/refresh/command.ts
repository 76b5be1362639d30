/** The `refresh` command: its options, help and examples; the refresh (`./refresh.ts`) is loaded only when it runs. */
import { Command } from "commander";
import { CLI_EXECUTABLE } from "../../kernel/names.js";
import { cwdOption, namespaceOption, stackOption } from "../shared/options.js";
import type { RefreshOptions } from "./refresh.js";

/** `pulumi-helpdesk refresh`. */
export const refreshCommand = new Command("refresh")
  .description(
    "Get a new access token with the refresh token and store it (and any rotated refresh token) in the stack's config.",
  )
  .addOption(stackOption())
  .addOption(namespaceOption())
  .addOption(cwdOption())
  .addHelpText(
    "after",
    `\nExamples:\n  $ ${CLI_EXECUTABLE} refresh --stack dev\n  $ ${CLI_EXECUTABLE} refresh --stack dev --namespace eu`,
  )
  .action(async (options: RefreshOptions) => (await import("./refresh.js")).refresh(options));
