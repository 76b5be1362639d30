/**
 * examples/yaml, a Pulumi program in YAML, run by the real `pulumi` with pulumi-language-yaml (built by
 * scripts/setup.sh --test from pulumi-yaml v1.19.1) against two emulators: see two-helpdesks.ts.
 */

import { onPath, toolAvailable } from "../support/tools.js";
import { describeTwoHelpdesks, pluginBuilt } from "./two-helpdesks.js";

describeTwoHelpdesks("a YAML program with two help desks (examples/yaml)", {
  example: "yaml",
  ready: () =>
    toolAvailable("the Pulumi CLI", onPath("pulumi")) &&
    toolAvailable("pulumi-language-yaml", onPath("pulumi-language-yaml")) &&
    toolAvailable(
      "the provider plugin (plugin/pulumi-resource-helpdesk and the build's dist/provider/native/)",
      pluginBuilt(),
    ),
  prepare: async (env) => env,
});
