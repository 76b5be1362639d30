/**
 * The `pulumi-helpdesk` command: the program (its name, version, top-level help and error exit) and its wings, one
 * `addCommand` line each. Exit codes: 0 success, 1 the operation failed, 2 bad usage.
 *
 * Each wing's `command.ts` declares its command (options, help, examples) and imports its action only when it runs,
 * so that `--version`, `--help` and any command's `--help` load no action, no emulator and no Automation API
 * (tests/cli/lazy-loading.test.ts). CONTRIBUTING.md "Adding a command" shows what a new command takes.
 */
import { Command } from "commander";
import { CLI_EXECUTABLE } from "../kernel/names.js";
import { packageVersion } from "../kernel/package-version.js";
import { emulatorCommand } from "./emulator/command.js";
import { importCommand } from "./import/command.js";
import { loginCommand } from "./login/command.js";
import { logoutCommand } from "./logout/command.js";
import { migrateCommand } from "./migrate/command.js";
import { pluginCommand } from "./plugin/command.js";
import { refreshCommand } from "./refresh/command.js";
import { programHelpAfter } from "./shared/help.js";
import { CliError, endQuietlyWhenOutputCloses, error as printError } from "./shared/output.js";
import { statusCommand } from "./status/command.js";
import { triggerCommand } from "./trigger/command.js";

endQuietlyWhenOutputCloses();

/** The installed package's version for `--version` (kernel/package-version.ts), or "unknown" on a broken installation. */
function versionForCli(): string {
  try {
    return packageVersion();
  } catch {
    return "unknown";
  }
}

const program: Command = new Command()
  .name(CLI_EXECUTABLE)
  .version(versionForCli(), "-V, --version", `print the version of ${CLI_EXECUTABLE} and exit`)
  .description("Manage help-desk webhooks as code: sign a Pulumi stack in to the help desk, run the local emulator.")
  .showHelpAfterError()
  .exitOverride()
  // A function: the list of environment variables is read off the wings, and only when help is shown.
  .addHelpText("after", (): string => programHelpAfter(program));

program.addCommand(loginCommand);
program.addCommand(statusCommand);
program.addCommand(refreshCommand);
program.addCommand(logoutCommand);
program.addCommand(importCommand);
program.addCommand(migrateCommand);
program.addCommand(emulatorCommand);
program.addCommand(triggerCommand);
program.addCommand(pluginCommand);

/**
 * Gives every command under `parent` the program's settings (the exit override, help after an error, the output), as
 * `.command()` gives them to the commands it creates: "for safety, `.addCommand()` does not automatically copy the
 * inherited settings from the parent command" (commander's README, "Commands").
 */
function inheritSettings(parent: Command): void {
  for (const command of parent.commands) {
    command.copyInheritedSettings(parent);
    inheritSettings(command);
  }
}
inheritSettings(program);

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
