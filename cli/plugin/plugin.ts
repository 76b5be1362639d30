/**
 * `pulumi-helpdesk plugin path` and `pulumi-helpdesk plugin install`: make the native provider plugin
 * `pulumi-resource-helpdesk` (package `helpdesk`) findable by Pulumi.
 *
 * Two ways work with the Pulumi CLI (measured with v3.259.0):
 * - A project's Pulumi.yaml names the folder: `plugins: { providers: [{ name: helpdesk, path: <folder> }] }`, where
 *   the folder is the package's `plugin/` (`plugin path` prints it). Pulumi runs the launcher there, which finds the
 *   package beside it. Run as the release's executable, `plugin path` prints the folder holding that executable.
 * - `pulumi plugin install resource helpdesk <version> --file <folder>` copies a folder into the plugin cache
 *   (`$PULUMI_HOME/plugins/resource-helpdesk-v<version>/`), for every project of the user. A copy of the package's
 *   `plugin/` alone would not find the package from there, so `plugin install` installs a folder holding the launcher
 *   and a `package-root` file naming this installed package.
 *
 * Run as the self-contained executable of a release (`pulumi-helpdesk` from the plugin archive), `plugin install`
 * installs that executable itself as `pulumi-resource-helpdesk`: a copy that stands alone, needing no Node.js and no
 * package. (Not the archive's `pulumi-helpdesk` link beside it: `pulumi plugin install --file <folder>` copies a link
 * as a second 130 MB file; the CLI is already where this command was run from.)
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PLUGIN_EXECUTABLE, PULUMI_PACKAGE, pluginCacheFolder, pluginExecutableFile } from "../../kernel/names.js";
import { builtInFacts, PACKAGE_NAME, packageRoot, packageVersion } from "../../kernel/package-version.js";
import { CliError, info, result, success } from "../shared/output.js";

/**
 * @returns the absolute path of the folder holding the launcher in the installed package, e.g.
 *   `/work/app/node_modules/pulumi-helpdesk/plugin`
 */
export function pluginFolder(): string {
  return join(packageRoot(), "plugin");
}

/**
 * `plugin path`: prints the plugin folder on stdout (for Pulumi.yaml `plugins.providers[].path`): the npm package's
 * `plugin/`, or, run as the release's self-contained executable (which has no package folder), the folder of that
 * executable, where `pulumi-resource-helpdesk` is (the archive's folder, or the plugin cache's copy).
 *
 * @throws CliError (exit 1) when the self-contained executable's folder holds no `pulumi-resource-helpdesk` (it was
 *   copied there under another name alone)
 */
export function pluginPath(): void {
  if (!builtInFacts()) {
    result(pluginFolder());
    return;
  }
  const folder = dirname(process.execPath); // the executable's real path: links (`pulumi-helpdesk`) resolved
  const plugin = pluginExecutableFile(process.platform);
  if (!existsSync(join(folder, plugin))) {
    throw new CliError(
      "failed",
      `${process.execPath} is the plugin, but its folder holds no ${plugin}, the name Pulumi looks for there: copy it there under that name, or run \`plugin install\``,
    );
  }
  result(folder);
}

/** Options of `plugin install`. */
export interface PluginInstallOptions {
  /** The `pulumi` executable to run (default: `pulumi` on PATH). */
  pulumi?: string;
}

/**
 * Stages what `plugin install` installs: the running self-contained executable, else the launcher and a `package-root` file naming this installed package.
 *
 * @param staging an empty folder
 * @returns what the installed plugin runs, for the message
 */
function stagePlugin(staging: string): string {
  if (builtInFacts()) {
    const name = pluginExecutableFile(process.platform);
    copyFileSync(process.execPath, join(staging, name));
    chmodSync(join(staging, name), 0o755);
    return "its own copy of this self-contained executable (no Node.js needed)";
  }
  // The npm package's launcher is a shell script (Linux and macOS), named as Pulumi looks for it there.
  copyFileSync(join(pluginFolder(), PLUGIN_EXECUTABLE), join(staging, PLUGIN_EXECUTABLE));
  writeFileSync(join(staging, "package-root"), `${packageRoot()}\n`);
  return `${join(packageRoot(), "dist", "provider", "native", "main.js")}; run this command again if that package moves or is upgraded`;
}

/**
 * `plugin install`: installs the plugin into Pulumi's plugin cache at this package's version (the running
 * self-contained executable itself, or a launcher pointing at this installed package), by running
 * `pulumi plugin install resource helpdesk <version> --file <folder> --reinstall`.
 * Prints the command and where the plugin now is.
 *
 * @throws CliError (exit 1) when the Pulumi CLI cannot be run or the install fails (its output is shown)
 */
export async function pluginInstall(options: PluginInstallOptions): Promise<void> {
  const version = packageVersion();
  const staging = mkdtempSync(join(tmpdir(), `${PACKAGE_NAME}-plugin-`));
  try {
    const runs = stagePlugin(staging);
    const pulumi = options.pulumi ?? "pulumi";
    const args = ["plugin", "install", "resource", PULUMI_PACKAGE, version, "--file", staging, "--reinstall"];
    info(`Running: ${pulumi} ${args.join(" ")}`);
    const ran = spawnSync(pulumi, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    if (ran.error)
      throw new CliError(
        "failed",
        `could not run ${pulumi}: ${ran.error.message}. Install the Pulumi CLI, or pass --pulumi <path>.`,
      );
    if (ran.status !== 0) {
      throw new CliError(
        "failed",
        `${pulumi} plugin install failed (exit ${ran.status ?? ran.signal}):\n${`${ran.stdout}${ran.stderr}`.trim()}`,
      );
    }
    const home = process.env.PULUMI_HOME || join(homedir(), ".pulumi");
    success(
      `Installed the ${PULUMI_PACKAGE} resource plugin ${version} into ${join(home, "plugins", pluginCacheFolder(version))}`,
    );
    info(`It runs ${runs}.`);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
