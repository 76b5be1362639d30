/**
 * The receiving half end to end, with the real Pulumi CLI and the emulator on 127.0.0.1:
 *
 * - a TypeScript program (the dynamic `Webhook`, tests/e2e/receiving/typescript) declares one webhook per event with a
 *   delivery token for a receiver built with the TypeScript kit; a Python program (the native SDK from the release's
 *   wheel and the release's plugin executable, no Node.js on PATH, tests/e2e/receiving/python) declares one per event
 *   for a receiver built with the Python kit, and two for a receiver built with the Go kit. The receivers are
 *   examples/receivers/*, run from copies, each kit installed as a service installs it (the packed npm package, the
 *   wheel in a fresh virtualenv with no index, the Go module);
 * - `pulumi-helpdesk trigger` of every event reaches each receiver, which prints typed fields of the record;
 * - forged POSTs (no token, a wrong token, another webhook's token) are refused with 401 and handled by nothing;
 * - no token appears in any output of `pulumi`, the CLI or the receivers, nor in plain text in either state file;
 * - rotating ticket_opened's token by `pulumi up` while the emulator delivers it continuously loses no delivery: the
 *   emulator's delivery log has every delivery accepted by the receiver, which accepts both tokens.
 */
import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { EmulatorInspectionClient, signInAutoApproved as signIn } from "../../emulator-client/index.js";
import { DELIVERY_EVENT_PARAM, DELIVERY_TOKEN_PARAM, splitRegisteredUrl } from "../../kernel/delivery-token.js";
import { EVENTS, type WebhookEvent } from "../../kernel/events.js";
import { EVENT_RECORD } from "../../kernel/record-schemas.js";
import { type RunningProcess, runCommand, shown, startProcess, waitFor } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { buildReceiverPython, packReceiverNpm } from "../../scripts/release/receiver.ts";
import { linkTools, releaseWheelVenv, systemWithoutNode, unpackRelease, VERSION } from "../no-node/no-node-desks.js";
import { createTestProject, freePort, runCli } from "../support/cli.js";
import { heldWebhooks } from "../support/emulator.js";
import { EXAMPLES_DIR, withLocalPlugin } from "../support/examples.js";
import { go } from "../support/go.js";
import {
  configAsLoginWrites,
  createTestStack,
  pulumiAvailable,
  readStateFile,
  type TestStack,
} from "../support/pulumi.js";
import { pulumi, pulumiEnv } from "../support/pulumi-cli.js";
import { onPath, toolAvailable } from "../support/tools.js";

const here = fileURLToPath(new URL("./receiving", import.meta.url));
const client = { clientId: "receiving", clientSecret: "receiving-client-secret", redirectUri: "http://127.0.0.1:1/cb" };
/** What each example receiver prints for a delivery, by the kind of record its event carries. */
const PRINTED = {
  ticket: "ticket #\\d+",
  customer: "customer \\S+",
  agent: "agent \\S+",
  message: "message note=(true|false)",
} as const;
const GO_EVENTS: WebhookEvent[] = ["ticket_closed", "agent_invited"];

/** A token of the right shape that no webhook has. */
const newToken = (): string => `e2e_${randomBytes(24).toString("base64url")}`;

const ready = (): boolean =>
  pulumiAvailable() &&
  toolAvailable("pulumi-language-python", onPath("pulumi-language-python") && onPath("pulumi-language-python-exec")) &&
  toolAvailable("python3", onPath("python3")) &&
  toolAvailable("go", onPath("go"));

describe.skipIf(!ready())("receiving deliveries: programs with tokens, receivers built with the kits", () => {
  let work: string;
  let emulator: RunningEmulator;
  let ts: TestStack;
  const project = createTestProject();
  /** Everything any command or receiver printed: no token may be in it. */
  const printed: string[] = [];
  const receivers: Partial<Record<"typescript" | "python" | "go", RunningProcess>> = {};
  const ports = { typescript: 0, python: 0, go: 0 };
  let ownToken = newToken();
  let tsTokens: Record<string, string> = {};
  let pyTokens: Record<string, string> = {};
  let goTokens: Record<string, string> = {};
  let python: { dir: string; env: NodeJS.ProcessEnv; stack: string };
  let kits: { tarball: string; wheel: string };

  const allTokens = (): string[] => [ownToken, ...Object.values({ ...tsTokens, ...pyTokens, ...goTokens })];

  /** Runs `pulumi <args>` on the Python program; what it prints is kept for the last test unless it asked for secrets. */
  async function runPython(args: string[]): Promise<string> {
    const ran = await pulumi([...args, "--stack", python.stack], python.dir, python.env);
    if (!args.includes("--show-secrets")) printed.push(`pulumi ${args.join(" ")}:\n${ran.stdout}${ran.stderr}`);
    if (ran.code !== 0) throw new Error(shown(`pulumi ${args.join(" ")}`, ran));
    return ran.stdout;
  }

  /** Starts (or restarts) a receiver of examples/receivers with the given accepted tokens. */
  async function startReceiver(kind: keyof typeof ports, tokens: string[]): Promise<void> {
    const running = receivers[kind];
    if (running) {
      await running.stop();
      printed.push(`the ${kind} receiver:\n${running.output()}`);
    }
    const env = { ...process.env, PORT: String(ports[kind]), HELPDESK_DELIVERY_TOKENS: tokens.join(",") };
    const dir = join(work, "receivers", kind);
    receivers[kind] =
      kind === "typescript"
        ? startProcess(process.execPath, ["receiver.ts"], { cwd: dir, env })
        : kind === "python"
          ? startProcess(join(work, "receiver-venv", "bin", "python"), ["receiver.py"], {
              cwd: dir,
              env: { ...env, PATH: python.env.PATH, PYTHONDONTWRITEBYTECODE: "1" },
            })
          : startProcess(join(dir, "receiver"), [], { cwd: dir, env });
    await receivers[kind]?.waitFor("stdout", /^listening on /m, `the ${kind} receiver`, 60_000);
  }

  const lines = (kind: keyof typeof ports): string[] =>
    (receivers[kind]?.stdout() ?? "").split("\n").filter((line) => line !== "" && !line.startsWith("listening"));

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "helpdesk-receiving-"));
    for (const kind of Object.keys(ports) as (keyof typeof ports)[]) ports[kind] = await freePort();
    emulator = await startEmulator({ port: 0, autoApprove: true, clients: [client] });
    const tokens = await signIn({ baseUrl: emulator.url, ...client });
    const login = configAsLoginWrites(emulator.url, client, tokens);

    // The receivers, from copies of examples/receivers, each kit installed as a service installs it.
    cpSync(join(EXAMPLES_DIR, "receivers"), join(work, "receivers"), { recursive: true });
    const tarball = join(work, packReceiverNpm(work));
    const [wheel = ""] = buildReceiverPython(work, VERSION, "1700000000");
    kits = { tarball, wheel: join(work, wheel) };
    const tsDir = join(work, "receivers", "typescript");
    const install = await runCommand(
      "npm",
      ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", kits.tarball],
      { cwd: tsDir, env: process.env },
    );
    if (install.code !== 0) throw new Error(shown("npm install the kit", install));
    const goDir = join(work, "receivers", "go");
    await go(
      [
        "mod",
        "edit",
        `-replace=github.com/pulumi-helpdesk/pulumi-helpdesk/receiver/go=${join(repoRoot, "receiver", "go")}`,
      ],
      goDir,
    );
    await go(["build", "-o", "receiver", "."], goDir);

    // The Python program: the release's wheel in a fresh virtualenv, the release's plugin, no Node.js on PATH.
    const pythonDir = join(work, "python");
    cpSync(join(here, "python"), pythonDir, { recursive: true });
    const plugin = await unpackRelease(join(work, "release"));
    writeFileSync(
      join(pythonDir, "Pulumi.yaml"),
      withLocalPlugin(readFileSync(join(pythonDir, "Pulumi.yaml"), "utf8"), plugin),
    );
    const venvBin = await releaseWheelVenv(work);
    const tools = linkTools(join(work, "tools"), ["pulumi", "pulumi-language-python", "pulumi-language-python-exec"]);
    const path = [venvBin, tools, systemWithoutNode(join(work, "system"))].join(delimiter);
    mkdirSync(join(work, "state"));
    python = {
      dir: pythonDir,
      stack: `t${randomBytes(4).toString("hex")}`,
      env: {
        ...pulumiEnv(`file://${join(work, "state")}`, join(work, "token-cache")),
        PATH: path,
        PYTHONDONTWRITEBYTECODE: "1",
      },
    };
    const node = await runCommand("/bin/sh", ["-c", "command -v node || command -v npm || echo none"], {
      cwd: pythonDir,
      env: python.env,
    });
    expect(node.stdout.trim()).toBe("none");
    await runPython(["stack", "init"]);
    const setAll = Object.entries({
      ...login,
      "receiving:pythonReceiverUrl": { value: `http://127.0.0.1:${ports.python}` },
      "receiving:goReceiverUrl": { value: `http://127.0.0.1:${ports.go}` },
    }).flatMap(([key, entry]) => [
      "secret" in entry && entry.secret ? "--secret" : "--plaintext",
      `${key}=${entry.value}`,
    ]);
    await runPython(["config", "set-all", ...setAll]);
    const receiverVenv = join(work, "receiver-venv");
    const venv = await runCommand("python3", ["-m", "venv", receiverVenv], { cwd: work, env: python.env });
    if (venv.code !== 0) throw new Error(shown("python3 -m venv", venv));
    const pip = await runCommand(
      join(receiverVenv, "bin", "python"),
      ["-m", "pip", "install", "--quiet", "--no-index", "--disable-pip-version-check", kits.wheel],
      { cwd: work, env: { ...python.env, PIP_NO_INPUT: "1" } },
    );
    if (pip.code !== 0) throw new Error(shown("pip install the kit's wheel", pip));

    // The TypeScript program (the dynamic Webhook), through the Automation API.
    ts = await createTestStack(join(here, "typescript"), {
      ...login,
      "receiving:receiverUrl": { value: `http://127.0.0.1:${ports.typescript}` },
      "receiving:ownToken": { value: ownToken, secret: true },
    });
  }, 900_000);

  afterAll(async () => {
    for (const receiver of Object.values(receivers)) await receiver?.stop();
    await ts?.stack.destroy().catch(() => undefined);
    await ts?.dispose();
    if (python)
      await pulumi(["destroy", "--yes", "--stack", python.stack], python.dir, python.env).catch(() => undefined);
    if (python) await pulumi(["stack", "rm", "--yes", "--force", "--stack", python.stack], python.dir, python.env);
    await emulator?.close();
    project.dispose();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("up registers every webhook at its url with its token; the tokens are secret outputs, in no output or state in plain text", async () => {
    let output = "";
    const up = await ts.stack.up({ onOutput: (text) => (output += text) });
    printed.push(output);
    expect(up.summary.result).toBe("succeeded");
    tsTokens = up.outputs.deliveryTokens?.value as Record<string, string>;
    expect(tsTokens.ticket_opened).toBe(ownToken);
    await runPython(["up", "--yes", "--skip-preview"]);
    const outputs = JSON.parse(await runPython(["stack", "output", "--json", "--show-secrets"])) as Record<
      string,
      Record<string, string>
    >;
    pyTokens = outputs.pythonTokens ?? {};
    goTokens = outputs.goTokens ?? {};
    expect(Object.keys(tsTokens).sort()).toEqual([...EVENTS].sort());
    expect(Object.keys(pyTokens).sort()).toEqual([...EVENTS].sort());
    expect(Object.keys(goTokens).sort()).toEqual([...GO_EVENTS].sort());
    expect(new Set(allTokens()).size).toBe(allTokens().length);

    // The help desk holds each webhook at its receiver's url with its event and its token.
    const held = await heldWebhooks(emulator);
    expect(held).toHaveLength(EVENTS.length * 2 + GO_EVENTS.length);
    const registered = held.map((hook) => ({ held: hook.event, ...splitRegisteredUrl(hook.url) }));
    for (const [tokens, port] of [
      [tsTokens, ports.typescript],
      [pyTokens, ports.python],
      [goTokens, ports.go],
    ] as const)
      for (const [event, token] of Object.entries(tokens))
        expect(registered).toContainEqual({ held: event, url: `http://127.0.0.1:${port}/hooks`, event, token });

    // Secret outputs: `pulumi stack output` without --show-secrets, and the state files, hold no token.
    await runPython(["stack", "output", "--json"]);
    const states = [readStateFile(ts, "helpdesk-receiving-ts"), await runPython(["stack", "export"])];
    for (const token of allTokens()) for (const state of states) expect(state.includes(token)).toBe(false);
  }, 900_000);

  it("trigger of every event reaches its receivers, which read typed fields of the record", async () => {
    await startReceiver("typescript", Object.values(tsTokens));
    await startReceiver("python", Object.values(pyTokens));
    await startReceiver("go", Object.values(goTokens));
    for (const event of EVENTS) {
      const ran = await runCli(["trigger", event, "--base-url", emulator.url], project);
      printed.push(`trigger ${event}:\n${ran.stdout}${ran.stderr}`);
      expect(ran.code, `${event}: ${ran.stderr}`).toBe(0);
      expect(ran.stdout).toContain(`${DELIVERY_TOKEN_PARAM}=(hidden)`);
    }
    const expected = (events: readonly WebhookEvent[]) =>
      events.map((event) => new RegExp(`^${event} ${PRINTED[EVENT_RECORD[event]]}$`));
    for (const [kind, events] of [
      ["typescript", EVENTS],
      ["python", EVENTS],
      ["go", GO_EVENTS],
    ] as const) {
      await waitFor(`the ${kind} receiver's deliveries`, () => lines(kind).length >= events.length, 30_000);
      const got = lines(kind);
      expect(got, kind).toHaveLength(events.length);
      for (const pattern of expected(events))
        expect(
          got.some((line) => pattern.test(line)),
          `${kind}: ${pattern}`,
        ).toBe(true);
    }
  }, 600_000);

  it("refuses forged deliveries (no token, a wrong token, another webhook's token) with 401, and handles none", async () => {
    const body = JSON.stringify({ number: 1 });
    const forged = (kind: keyof typeof ports, token: string | undefined) =>
      fetch(
        `http://127.0.0.1:${ports[kind]}/hooks?${DELIVERY_EVENT_PARAM}=ticket_closed${token ? `&${DELIVERY_TOKEN_PARAM}=${token}` : ""}`,
        { method: "POST", body, headers: { "content-type": "application/json" } },
      );
    const others = { typescript: pyTokens.ticket_closed, python: tsTokens.ticket_closed, go: pyTokens.ticket_closed };
    for (const kind of Object.keys(ports) as (keyof typeof ports)[]) {
      const before = lines(kind).length;
      for (const token of [undefined, newToken(), others[kind]]) {
        const response = await forged(kind, token);
        const text = await response.text();
        expect(response.status, `${kind} with ${token === undefined ? "no token" : "a foreign token"}`).toBe(401);
        if (token) expect(text.includes(token)).toBe(false);
      }
      expect(lines(kind).length, `${kind}: a forged delivery was handled`).toBe(before);
    }
  }, 120_000);

  it("a rotation by pulumi up while the emulator delivers continuously loses no delivery", async () => {
    const oldToken = ownToken;
    ownToken = newToken();
    // The receiver accepts both tokens through the window (the README's rotation of your own token).
    await startReceiver("typescript", [...Object.values(tsTokens), ownToken]);
    const inspection = new EmulatorInspectionClient(emulator.url);
    const triggered: string[] = [];
    let rotating = true;
    const deliverer = (async () => {
      while (rotating) {
        const { deliveries } = await inspection.trigger("ticket_opened", {});
        triggered.push(...deliveries);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    await ts.stack.setConfig("receiving:ownToken", { value: ownToken, secret: true });
    let output = "";
    const up = await ts.stack.up({ onOutput: (text) => (output += text) });
    printed.push(output);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    rotating = false;
    await deliverer;
    expect(up.summary.resourceChanges?.replace).toBe(1);
    tsTokens = up.outputs.deliveryTokens?.value as Record<string, string>;
    expect(tsTokens.ticket_opened).toBe(ownToken);

    // The emulator's delivery log: every delivery of the window finished, accepted (2xx) by its receiver.
    await waitFor(
      "the window's deliveries to finish",
      async () => (await inspection.deliveries({})).filter((d) => triggered.includes(d.id)).every((d) => d.done),
      60_000,
    );
    const log = (await inspection.deliveries({})).filter((d) => triggered.includes(d.id));
    const toTypescript = log.filter((d) => d.url.startsWith(`http://127.0.0.1:${ports.typescript}/`));
    expect(toTypescript.length).toBeGreaterThan(5);
    expect(toTypescript.filter((d) => !d.ok).map((d) => `${d.status} ${d.error ?? ""}`)).toEqual([]);
    const tokensSeen = new Set(toTypescript.map((d) => splitRegisteredUrl(d.url).token));
    expect(tokensSeen).toEqual(new Set([oldToken, ownToken]));
    expect((await heldWebhooks(emulator)).map((hook) => splitRegisteredUrl(hook.url).token)).not.toContain(oldToken);
  }, 600_000);

  it("no token appears in anything pulumi, the CLI or the receivers printed", async () => {
    for (const receiver of Object.values(receivers)) {
      await receiver?.stop();
      printed.push(`a receiver:\n${receiver?.output() ?? ""}`);
    }
    const all = printed.join("\n");
    expect(all).toMatch(/ticket_opened ticket #\d+/); // the receivers' lines are in it: a check that reads nothing would pass
    for (const token of allTokens())
      expect(
        printed.filter((text) => text.includes(token)).map((text) => text.slice(0, 200)),
        "what printed a token",
      ).toEqual([]);
  });
});
