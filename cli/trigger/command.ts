/**
 * The `trigger` command: its argument, options, help and example; the call to the running emulator (`./trigger.ts`)
 * is loaded only when it runs.
 */
import { Command } from "commander";
import { EVENTS } from "../../kernel/events.js";
import { CLI_EXECUTABLE } from "../../kernel/names.js";
import { DEFAULT_EMULATOR_URL, positiveInt, settingOption } from "../shared/options.js";
import type { TriggerOptions } from "./trigger.js";

/** `pulumi-helpdesk trigger <event>`. */
export const triggerCommand = new Command("trigger")
  .description("Make a running emulator deliver an event to the webhooks registered for it, and show the deliveries.")
  .argument("<event>", `one of: ${EVENTS.join(", ")}`)
  .addOption(settingOption("baseUrl", "url", "emulator base URL", `default ${DEFAULT_EMULATOR_URL}`))
  .option("--account <name>", "account whose webhooks receive it (default: the emulator's first account)")
  .option("--wait <seconds>", "how long to wait for the deliveries, in seconds", positiveInt("--wait"), 30)
  .addHelpText("after", `\nExample:\n  $ ${CLI_EXECUTABLE} trigger ticket_opened --base-url ${DEFAULT_EMULATOR_URL}`)
  .action(async (event: string, options: TriggerOptions) => (await import("./trigger.js")).trigger(event, options));
