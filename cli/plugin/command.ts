/**
 * The `plugin` command with its subcommands `path` and `install`: their options, help and examples, and the
 * environment variables of the plugin's launcher, which the top-level help lists; the work (`./plugin.ts`) is loaded
 * only when a subcommand runs.
 */
import { Command } from "commander";
import { CLI_EXECUTABLE, PLUGIN_EXECUTABLE, PULUMI_PACKAGE } from "../../kernel/names.js";
import { PACKAGE_NAME } from "../../kernel/package-version.js";
import { readsEnvironment } from "../shared/help.js";
import type { PluginInstallOptions } from "./plugin.js";

/**
 * The environment variables the npm package's launcher (`plugin/pulumi-resource-helpdesk`, a shell script) reads, as
 * the CLI's help lists them; tests/cli/help.test.ts holds this list to the script.
 */
export const LAUNCHER_VARIABLES = [
  {
    name: "PULUMI_HELPDESK_NODE",
    meaning: "the Node.js the plugin's launcher runs the provider with (default: node on PATH)",
  },
  {
    name: "PULUMI_HELPDESK_PACKAGE_ROOT",
    meaning: `the ${PACKAGE_NAME} package the plugin's launcher runs (default: the one it belongs to)`,
  },
] as const;

/** `pulumi-helpdesk plugin`, with `plugin path` and `plugin install`. */
export const pluginCommand = readsEnvironment(
  new Command("plugin").description(
    `Make the native provider plugin ${PLUGIN_EXECUTABLE} (resources ${PULUMI_PACKAGE}:index:*) findable by Pulumi.`,
  ),
  LAUNCHER_VARIABLES,
);

pluginCommand
  .command("path")
  .description(
    `Print the folder holding the plugin's launcher, for Pulumi.yaml \`plugins: providers: - name: ${PULUMI_PACKAGE}, path: <folder>\`.`,
  )
  .action(async () => (await import("./plugin.js")).pluginPath());

pluginCommand
  .command("install")
  .description(
    "Install the plugin into Pulumi's plugin cache (runs `pulumi plugin install resource helpdesk <version> --file ...`).",
  )
  .option("--pulumi <path>", "the pulumi executable to run (default: pulumi on PATH)")
  .addHelpText("after", `\nExamples:\n  $ npx ${CLI_EXECUTABLE} plugin install\n  $ npx ${CLI_EXECUTABLE} plugin path`)
  .action(async (options: PluginInstallOptions) => (await import("./plugin.js")).pluginInstall(options));
