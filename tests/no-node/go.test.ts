/**
 * examples/go with no Node.js (see no-node-desks.ts): the Go program of the Automation API, built beforehand with `go`
 * (a set-up step, as a person builds it), then run as `helpdesk-go up` / `helpdesk-go destroy` in a folder holding
 * examples/go's Pulumi.yaml without its `plugins:` section. The Go SDK (sdk/go) passes the plugin's version and
 * download URL as default resource options, so the engine downloads the plugin when the program registers its first
 * webhook. PATH: the Pulumi CLI and `systemWithoutNode` (Go programs need no language host).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { go } from "../support/go.js";
import { repoRoot } from "../support/package.js";
import { runCommand, shown } from "../support/processes.js";
import { describeDownloadedPlugin, systemWithoutNode, withoutPluginsSection } from "./no-node-desks.js";

let program = "";

describeDownloadedPlugin("examples/go with no Node.js: the plugin downloaded by Pulumi from the Go SDK's resource options", {
  hosts: [],
  project: "helpdesk-go",
  prepare: async (work, programDir) => {
    const example = join(repoRoot, "examples", "go");
    program = join(work, "helpdesk-go");
    await go(["build", "-o", program, "."], example);
    writeFileSync(join(programDir, "Pulumi.yaml"), withoutPluginsSection(readFileSync(join(example, "Pulumi.yaml"), "utf8"), "examples/go/Pulumi.yaml"));
    return { pathDirs: [systemWithoutNode(join(work, "system"))] };
  },
  operate: async (operation, stack, programDir, env) => {
    const ran = await runCommand(program, ["-stack", stack, operation], { cwd: programDir, env });
    if (ran.code !== 0) throw new Error(shown(`helpdesk-go -stack ${stack} ${operation}`, ran));
  },
});
