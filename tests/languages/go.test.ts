/**
 * examples/go, a Go program that runs its Pulumi program inline through the Automation API
 * (`auto.UpsertStackInlineSource`), built with `go` from a copy whose go.mod takes the repository's generated Go SDK
 * (sdk/go, by a `replace` directive, as its README does before the SDK is published) and run as a person runs it (`go run . up`, here the built binary) with the real
 * Pulumi CLI against two emulators: one webhook on the help desk of the stack's `helpdesk:*` config (the default
 * provider), one on that of its `eu:*` config (an explicit provider, written by the real
 * `pulumi-helpdesk login --namespace eu`); see two-helpdesks.ts. No Go language host takes part: the Go process
 * serves the program to the CLI itself. The plugin is this repository's launcher (plugin/), named by a `plugins:`
 * section the test adds to the copy's Pulumi.yaml (tests/support/examples.ts). Checks are made on the emulators' side and in the state file the backend
 * wrote (the Automation API's export would show secrets decrypted).
 */

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../emulator/index.js";
import { type Ran, runCommand, shown } from "../../scripts/lib/processes.ts";
import { heldWebhooks } from "../support/emulator.js";
import { copyExampleWithLocalPlugin } from "../support/examples.js";
import { go, goModuleOfRepositorySdk } from "../support/go.js";
import { pulumi, pulumiEnv, removeStack } from "../support/pulumi-cli.js";
import { onPath, toolAvailable } from "../support/tools.js";
import {
  type Desk,
  expectNoCredentialIn,
  expectOneWebhookEach,
  pluginBuilt,
  signInTwoHelpdesks,
} from "./two-helpdesks.js";

/** examples/go/Pulumi.yaml's `name`: the folder of the stack's state in the backend. */
const project = "helpdesk-go";
/** The first build compiles Pulumi's Go SDK and its dependencies: minutes on two cores; later builds take seconds. */
const GO_BUILD_TIMEOUT = 15 * 60_000;

describe.skipIf(
  !(
    toolAvailable("the Pulumi CLI", onPath("pulumi")) &&
    toolAvailable("go (Go >= 1.25)", onPath("go")) &&
    toolAvailable(
      "the provider plugin (plugin/pulumi-resource-helpdesk and the build's dist/provider/native/)",
      pluginBuilt(),
    )
  ),
)("a Go program with two help desks (examples/go, an Automation API inline program)", () => {
  const emulators: RunningEmulator[] = [];
  const stack = `t${Math.random().toString(16).slice(2, 10)}`;
  let desks: [Desk, Desk];
  let workDir: string;
  let program: string;
  let programDir: string;
  let env: NodeJS.ProcessEnv;

  /** Runs the example (`go run . -stack <stack> <command>`, as its built binary) in the copy of examples/go. */
  function example(...args: string[]): Promise<Ran> {
    return runCommand(program, ["-stack", stack, ...args], { cwd: programDir, env });
  }

  async function run(args: string[]): Promise<string> {
    const ran = await pulumi([...args, "--stack", stack], programDir, env);
    if (ran.code !== 0) throw new Error(shown(`pulumi ${args.join(" ")}`, ran));
    return ran.stdout;
  }

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), "helpdesk-go-"));
    mkdirSync(join(workDir, "state"));
    env = pulumiEnv(`file://${join(workDir, "state")}`, join(workDir, "token-cache"));
    program = join(workDir, "helpdesk-go");
    programDir = copyExampleWithLocalPlugin("go", join(workDir, "program"));
    await goModuleOfRepositorySdk(programDir);
    const started = Date.now();
    await go(["build", "-o", program, "."], programDir);
    console.info(`examples/go: go build took ${((Date.now() - started) / 1000).toFixed(1)} s`);
    await run(["stack", "init"]);
    desks = await signInTwoHelpdesks(programDir, stack, env, run, emulators);
  }, GO_BUILD_TIMEOUT);

  afterAll(async () => {
    if (env && program && existsSync(program)) await example("destroy").catch(() => undefined);
    if (env && programDir) await removeStack(stack, programDir, env);
    for (const emulator of emulators) await emulator.close();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it("a wrong command line prints the usage and exits with 2", async () => {
    const ran = await example("deploy");
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("up|destroy");
  });

  it("a failing up prints the engine's message and exits with 1, creating nothing", async () => {
    // A webhook url the provider's check refuses (docs/helpdesk-api.md §2.1: http or https).
    await run(["config", "set", `${project}:receiverBaseUrl`, "ftp://hooks.example.test"]);
    try {
      const ran = await example("up");
      expect(ran.code, shown("up", ran)).toBe(1);
      expect(ran.stderr).toMatch(/helpdesk-go: up failed:\n/);
      expect(ran.stderr).toMatch(/url .*ftp/);
      expect(ran.stdout).toBe("");
    } finally {
      await run(["config", "rm", `${project}:receiverBaseUrl`]);
    }
    for (const { emulator } of desks) expect(await heldWebhooks(emulator)).toEqual([]);
  });

  it("up registers one webhook on each help desk, through the default and the explicit provider", async () => {
    const ran = await example("up");
    if (ran.code !== 0) throw new Error(shown("examples/go up", ran));
    await expectOneWebhookEach(desks, JSON.parse(ran.stdout) as Record<string, string>);
  });

  it("a second up changes nothing", async () => {
    const before = await Promise.all(desks.map(({ emulator }) => heldWebhooks(emulator)));
    const ran = await example("up");
    if (ran.code !== 0) throw new Error(shown("examples/go up", ran));
    // The stack, the explicit provider and the two webhooks (the default provider is not counted).
    expect(ran.stderr).toMatch(/Resources:\n\s+4 unchanged\n/);
    expect(ran.stderr).not.toMatch(/\b(created|replaced|deleted)\b/);
    expect(await Promise.all(desks.map(({ emulator }) => heldWebhooks(emulator)))).toEqual(before);
  });

  it("the state file holds no plaintext token or client secret of either help desk", () => {
    const state = readFileSync(join(workDir, "state", ".pulumi", "stacks", project, `${stack}.json`), "utf8");
    expect(state).toContain("pulumi:providers:helpdesk");
    expectNoCredentialIn(state, desks);
  });

  it("destroy removes both webhooks from their help desks", async () => {
    const ran = await example("destroy");
    if (ran.code !== 0) throw new Error(shown("examples/go destroy", ran));
    for (const { emulator } of desks) expect(await heldWebhooks(emulator)).toEqual([]);
  });
});
