/**
 * examples/yaml with no Node.js (see no-node-desks.ts): the program as a person writes it once the plugin comes from
 * the release, i.e. examples/yaml/Pulumi.yaml without its `plugins:` section (which points at this repository's
 * launcher) and with the version and download URL given the way Pulumi YAML gives them, as resource options
 * (`options: { version, pluginDownloadURL }`, read by pulumi-yaml v1.19.1 `GetReferencedPackages` and sent to the
 * engine as the program's required packages) on the default provider's first webhook and on the explicit provider.
 * The URL is the schema's `pluginDownloadURL` with the version filled in: `${VERSION}` would be a YAML interpolation.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pluginDownloadUrl } from "../../kernel/names.js";
import { repoRoot } from "../support/package.js";
import { describeDownloadedPlugin, VERSION } from "./no-node-desks.js";

/**
 * examples/yaml/Pulumi.yaml, its plugin given by version and download URL instead of a local path.
 *
 * @param text examples/yaml/Pulumi.yaml
 * @returns the program
 * @throws Error when the example no longer has the parts this rewrites
 */
export function withDownloadedPlugin(text: string): string {
  const options = `    options:\n      version: ${VERSION}\n      pluginDownloadURL: ${pluginDownloadUrl().replace("${VERSION}", VERSION)}\n`;
  const edits: Array<[RegExp, (found: string) => string]> = [
    [/^plugins:\n(?:(?:[ \t].*)?\n)*/m, () => ""],
    [/^ {2}ticketsOpened:\n {4}type: helpdesk:index:Webhook\n/m, (found) => found + options],
    [/^ {2}euHelpdesk:\n {4}type: pulumi:providers:helpdesk\n/m, (found) => found + options],
  ];
  return edits.reduce((program, [pattern, edit]) => {
    if (!pattern.test(program)) throw new Error(`examples/yaml/Pulumi.yaml has no ${pattern}: update tests/no-node/yaml.test.ts`);
    return program.replace(pattern, edit);
  }, text);
}

describeDownloadedPlugin("examples/yaml with no Node.js: the plugin downloaded by Pulumi from resource options", {
  hosts: ["pulumi-language-yaml"],
  project: "helpdesk-yaml",
  prepare: async (_work, programDir) => {
    const program = withDownloadedPlugin(readFileSync(join(repoRoot, "examples", "yaml", "Pulumi.yaml"), "utf8"));
    writeFileSync(join(programDir, "Pulumi.yaml"), program);
    return {};
  },
});
