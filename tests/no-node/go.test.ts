/**
 * examples/go with no Node.js (see no-node-desks.ts): the Go program of the Automation API, built beforehand with `go`
 * from a copy of examples/go whose go.mod takes the Go SDK from the repository's sdk/go (a set-up step, as a person
 * builds it before the SDK is published), then run as `helpdesk-go up` / `helpdesk-go destroy` in a folder holding
 * examples/go's Pulumi.yaml, as it is. The Go SDK (sdk/go) passes the plugin's version and download URL as default
 * resource options, so the engine downloads the plugin when the program registers its first webhook. PATH: the
 * Pulumi CLI and `systemWithoutNode` (Go programs need no language host).
 */
import { join } from "node:path";
import { copyExample } from "../support/examples.js";
import { go, goModuleOfRepositorySdk } from "../support/go.js";
import { describeDownloadedPlugin, goExampleSteps } from "./no-node-desks.js";

describeDownloadedPlugin(
  "examples/go with no Node.js: the plugin downloaded by Pulumi from the Go SDK's resource options",
  {
    hosts: [],
    project: "helpdesk-go",
    ...goExampleSteps(async (work) => {
      const source = copyExample("go", join(work, "source"));
      await goModuleOfRepositorySdk(source);
      const program = join(work, "helpdesk-go");
      await go(["build", "-o", program, "."], source);
      return program;
    }),
  },
);
