/**
 * Test support: the programs of examples/ as a test runs them. The examples are written as users write them: no
 * `plugins:` section (the SDK, or the YAML program's resource options, names the plugin and where Pulumi downloads
 * it). A test that runs an example against this repository's build instead copies it and gives the copy a `plugins:`
 * section naming the repository's launcher (plugin/), which needs only the build's dist/.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { PLUGIN_EXECUTABLE } from "../../kernel/names.js";

/** The repository's examples folder. */
export const EXAMPLES_DIR = fileURLToPath(new URL("../../examples/", import.meta.url));

/** The folder of this repository's plugin launcher (`plugin/pulumi-resource-helpdesk`, which runs the build's dist/). */
export const LOCAL_PLUGIN_DIR = fileURLToPath(new URL("../../plugin/", import.meta.url));

/** What a copy of an example leaves out: build output, installed dependencies, stack files, state. */
const NOT_COPIED = [
  /^target$/,
  /^node_modules$/,
  /^venv$/,
  /^\.pulumi$/,
  /^Pulumi\.(?!yaml$)[^/]+\.yaml$/,
  /^__pycache__$/,
];

/**
 * Copies examples/<name> into `dest` as a user's project (what `git clone` would give: no build output, installed
 * dependencies or stack files).
 *
 * @param name the example's folder name, e.g. `"yaml"`
 * @param dest the folder to write (created)
 * @returns `dest`
 */
export function copyExample(name: string, dest: string): string {
  const source = join(EXAMPLES_DIR, name);
  cpSync(source, dest, {
    recursive: true,
    filter: (path) =>
      !relative(source, path)
        .split(sep)
        .some((part) => NOT_COPIED.some((pattern) => pattern.test(part))),
  });
  return dest;
}

/**
 * A Pulumi.yaml with a `plugins:` section that makes Pulumi run the `helpdesk` plugin from a folder.
 *
 * @param pulumiYaml the project file's text
 * @param pluginDir the folder holding `pulumi-resource-helpdesk`
 * @returns the text with the section appended
 * @throws Error when the text already has a `plugins:` section (the examples must not: users do not write one)
 */
export function withLocalPlugin(pulumiYaml: string, pluginDir: string): string {
  if (/^plugins:/m.test(pulumiYaml))
    throw new Error("the program already has a plugins: section: examples name no plugin path");
  return `${pulumiYaml.replace(/\n*$/, "\n")}\n# Added by the test: this repository's plugin.\nplugins:\n  providers:\n    - name: helpdesk\n      path: ${pluginDir}\n`;
}

/**
 * Copies examples/<name> into `dest` ({@link copyExample}) and points its Pulumi.yaml at this repository's plugin
 * launcher ({@link withLocalPlugin}).
 *
 * @returns `dest`
 */
export function copyExampleWithLocalPlugin(name: string, dest: string): string {
  copyExample(name, dest);
  const project = join(dest, "Pulumi.yaml");
  writeFileSync(project, withLocalPlugin(readFileSync(project, "utf8"), localPluginIn(dest)));
  return dest;
}

/**
 * A plugin folder of the test's own for this repository's launcher: a copy of it with a `package-root` file naming
 * this checkout (the launcher runs that package's dist/). Pulumi caches a plugin's schema beside the folder a
 * `plugins:` path names (`schema-helpdesk.json` in its parent, by the language hosts of v3.68): with the repository's
 * own plugin/ folder, that would be the repository's root, a trace a test must not leave.
 *
 * @param dest the test's project folder, which gets the subfolder `helpdesk-plugin/pulumi-resource-helpdesk`
 * @returns the plugin folder
 */
export function localPluginIn(dest: string): string {
  const dir = join(dest, "helpdesk-plugin");
  mkdirSync(dir, { recursive: true });
  cpSync(join(LOCAL_PLUGIN_DIR, PLUGIN_EXECUTABLE), join(dir, PLUGIN_EXECUTABLE));
  writeFileSync(join(dir, "package-root"), fileURLToPath(new URL("../..", import.meta.url)));
  return dir;
}
