/**
 * examples/yaml with no Node.js (see no-node-desks.ts): the program as it is. It names the plugin's version and
 * download URL the way Pulumi YAML gives them, as resource options (`options: { version, pluginDownloadURL }`, read by
 * pulumi-yaml v1.19.1 `GetReferencedPackages` and sent to the engine as the program's required packages) on the
 * default provider's first webhook and on the explicit provider (tests/examples/examples.test.ts checks they are the
 * release's), so the engine downloads the plugin.
 */
import { copyExample } from "../support/examples.js";
import { describeDownloadedPlugin } from "./no-node-desks.js";

describeDownloadedPlugin("examples/yaml with no Node.js: the plugin downloaded by Pulumi from resource options", {
  hosts: ["pulumi-language-yaml"],
  project: "helpdesk-yaml",
  prepare: async (_work, programDir) => {
    copyExample("yaml", programDir);
    return {};
  },
});
