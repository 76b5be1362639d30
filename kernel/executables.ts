/**
 * The names the self-contained executable goes by (`scripts/release/executable.ts` builds it, `cli/bin.ts` chooses
 * its program by the name it was started as, `pulumi-helpdesk plugin install` installs it): one home for them.
 */

/** The plugin's name, as Pulumi runs the resource plugin of the package `helpdesk` (`pulumi-resource-<package>`). */
export const PLUGIN_EXECUTABLE = "pulumi-resource-helpdesk";
/** The CLI's name. */
export const CLI_EXECUTABLE = "pulumi-helpdesk";

/**
 * The plugin executable's file name on a platform: Windows finds programs by their `.exe`, and so does Pulumi's
 * search for a plugin there.
 *
 * @param platform a Node.js platform name (`process.platform`), e.g. `"linux"`, `"win32"`
 * @returns `pulumi-resource-helpdesk`, or `pulumi-resource-helpdesk.exe` on `win32`
 */
export function pluginExecutableFile(platform: NodeJS.Platform): string {
  return platform === "win32" ? `${PLUGIN_EXECUTABLE}.exe` : PLUGIN_EXECUTABLE;
}
