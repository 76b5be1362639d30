/**
 * The release: `scripts/release.sh` (what `npm run release` runs, here without `npm pack`, which would rebuild dist/
 * under the suites running beside this one) builds the self-contained executable and the plugin archives; then, from
 * the extracted linux-amd64 archive, with NO Node.js on PATH (PATH is an empty folder):
 *
 * - as `pulumi-resource-helpdesk` it is the plugin: GetPluginInfo, GetSchema, CheckConfig, Configure, Create and
 *   Delete of a Webhook against an emulator, over gRPC as the engine calls them;
 * - as `pulumi-helpdesk` (the archive's link) it is the CLI: `--version`, and the emulator (node:sqlite, HTTP, OAuth)
 *   with a data file, signed in to;
 * - the archives' names and layout, SHA256SUMS, and the one version in all of them, GetPluginInfo and the schema;
 * - it exits within 5 s of its engine no longer answering, and not while the engine answers.
 *
 * - the Python SDK's wheel and sdist: their `pulumi_helpdesk/pulumi-plugin.json` names this plugin with the version
 *   and download URL that GetPluginInfo and the served schema give; so does the TypeScript SDK's npm tarball, in
 *   its package.json "pulumi" section.
 *
 * The release is built once per test run (tests/support/release.ts, shared with tests/no-node): ~25 s the first time
 * (the executables are cached by their inputs: ~10 s after that), plus the download of Node.js for linux-arm64 once.
 * A missing tool (tar, npm, the registry, Python) fails the suite: nothing is skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { startEmulator, signInAutoApproved, type RunningEmulator } from "../../emulator/index.js";
import { emptyPb, pluginPb, providerGrpc, providerPb, structPb, type PropertyMap } from "../../provider/native/proto.js";
import { isSecret } from "../../provider/native/properties.js";
import { buildSchema, nodejsSdkPackageOf, pluginDownloadUrlOf } from "../../provider/native/schema.js";
import { githubRepository } from "../../sdk/repository.js";
import { heldWebhooks } from "../support/emulator.js";
import { repoRoot } from "../support/package.js";
import { waitFor } from "../support/processes.js";
import { sharedRelease } from "../support/release.js";

const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string; repository: { url: string } };
const ARCHIVES = [`pulumi-resource-helpdesk-v${pkg.version}-linux-amd64.tar.gz`, `pulumi-resource-helpdesk-v${pkg.version}-linux-arm64.tar.gz`];
const PYTHON = [`pulumi_helpdesk-${pkg.version}-py3-none-any.whl`, `pulumi_helpdesk-${pkg.version}.tar.gz`];
/** The TypeScript SDK's tarball, as `npm pack` names `@<scope>/<name>`. */
const NODEJS_SDK = `${nodejsSdkPackageOf(githubRepository()).slice(1).replace("/", "-")}-${pkg.version}.tgz`;

/** One file of a zip archive (a wheel), read with Python's zipfile (the release needs Python anyway). */
function fromZip(zip: string, member: string): string {
  const read = "import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())";
  return execFileSync(process.env.HELPDESK_PYTHON || "python3", ["-c", read, zip, member], { encoding: "utf8" });
}

/** A running executable: its process, what it printed, and how it ended. */
interface Running {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

let work: string;
let releaseDir: string;
let installed: string;
/** The environment every run of the executable gets: no Node.js, no npm, nothing on PATH at all. */
let bareEnv: NodeJS.ProcessEnv;
const running: Running[] = [];

/** Starts the extracted executable under `name` (the plugin's or the CLI's) with the bare environment. */
function start(name: string, args: string[]): Running {
  const child = spawn(join(installed, name), args, { env: bareEnv, cwd: work, stdio: ["ignore", "pipe", "pipe"] });
  const run: Running = {
    child,
    stdout: "",
    stderr: "",
    exited: new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, at: Date.now() }))),
  };
  child.stdout!.on("data", (chunk: Buffer) => (run.stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (run.stderr += chunk.toString()));
  running.push(run);
  return run;
}

/** Starts the plugin and waits for the port it prints. */
async function startPlugin(args: string[] = []): Promise<{ run: Running; port: number; ms: number }> {
  const began = Date.now();
  const run = start("pulumi-resource-helpdesk", args);
  const line = await waitFor(`the plugin's port (stderr: ${run.stderr})`, () => (run.stdout.includes("\n") ? run.stdout.split("\n")[0] : undefined), 20_000, 5);
  expect(line).toMatch(/^\d+$/);
  return { run, port: Number(line), ms: Date.now() - began };
}

/** A unary gRPC call as a promise. */
function ask<T>(call: (done: (error: grpc.ServiceError | null, response?: T) => void) => unknown): Promise<T> {
  return new Promise((resolve, reject) => call((error, response) => (error ? reject(error) : resolve(response!))));
}

/** A `Struct` of plain properties. */
function struct(properties: PropertyMap): InstanceType<typeof structPb.Struct> {
  return structPb.Struct.fromJavaScript(properties as Parameters<typeof structPb.Struct.fromJavaScript>[0]);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "helpdesk-release-"));
  releaseDir = await sharedRelease();
  installed = join(work, "installed");
  mkdirSync(installed);
  execFileSync("tar", ["-xzf", join(releaseDir, ARCHIVES[0]!), "-C", installed]);
  const emptyPath = join(work, "empty-path");
  mkdirSync(emptyPath);
  bareEnv = { PATH: emptyPath, HOME: work, NO_COLOR: "1", CI: "true" };
}, 300_000);

afterAll(async () => {
  for (const run of running) run.child.kill("SIGKILL");
  await Promise.all(running.map((run) => run.exited));
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the release folder", () => {
  it("holds the linux-amd64 and linux-arm64 plugin archives, the TypeScript SDK, the Python wheel and sdist, and their SHA256SUMS", () => {
    const artefacts = [...ARCHIVES, NODEJS_SDK, ...PYTHON];
    expect(readdirSync(releaseDir).sort()).toEqual([...artefacts, "SHA256SUMS"].sort());
    const sums = readFileSync(join(releaseDir, "SHA256SUMS"), "utf8");
    expect(sums.trim().split("\n")).toHaveLength(artefacts.length);
    for (const name of artefacts) {
      const hash = createHash("sha256").update(readFileSync(join(releaseDir, name))).digest("hex");
      expect(sums).toContain(`${hash}  ${name}\n`);
    }
  });

  it("archives the executable at the root (0755), pulumi-helpdesk as a link to it, and LICENSE", () => {
    for (const name of ARCHIVES) {
      const listing = execFileSync("tar", ["-tvzf", join(releaseDir, name)], { encoding: "utf8" }).trim().split("\n");
      expect(listing).toHaveLength(3);
      expect(listing[0]).toMatch(/^-rwxr-xr-x 0\/0 +\d+ .* pulumi-resource-helpdesk$/);
      expect(listing[1]).toMatch(/^l\S+ 0\/0 +0 .* pulumi-helpdesk -> pulumi-resource-helpdesk$/);
      expect(listing[2]).toMatch(/^-rw-r--r-- 0\/0 +\d+ .* LICENSE$/);
    }
  });

  it("builds the linux-arm64 executable for aarch64, with the blob injected", () => {
    const dir = join(work, "arm64");
    mkdirSync(dir);
    execFileSync("tar", ["-xzf", join(releaseDir, ARCHIVES[1]!), "-C", dir]);
    const binary = readFileSync(join(dir, "pulumi-resource-helpdesk"));
    // ELF header: e_machine (offset 18, little-endian) 0xB7 is AArch64.
    expect(binary.subarray(0, 4).toString("latin1")).toBe("\x7fELF");
    expect(binary.readUInt16LE(18)).toBe(0xb7);
    // postject flips Node's SEA fuse from :0 to :1 when it injects the blob.
    expect(binary.includes("NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1")).toBe(true);
  });
});

describe("the executable, with no Node.js on PATH", () => {
  it("runs where no node can be found", () => {
    expect(() => execFileSync("/bin/sh", ["-c", "command -v node || command -v npm"], { env: bareEnv, stdio: "pipe" })).toThrow();
  });

  describe("as pulumi-resource-helpdesk, the plugin", () => {
    let emulator: RunningEmulator;
    let client: InstanceType<typeof providerGrpc.ResourceProviderClient>;
    let accessToken: string;
    const urn = "urn:pulumi:dev::release-test::helpdesk:index:Webhook::opened";

    beforeAll(async () => {
      const oauth = { clientId: "release-test", clientSecret: "release-test-client-secret", redirectUri: "http://127.0.0.1:1/callback", name: "release test" };
      emulator = await startEmulator({ port: 0, autoApprove: true, clients: [oauth] });
      accessToken = (await signInAutoApproved({ baseUrl: emulator.url, ...oauth })).accessToken;
      const { port, ms } = await startPlugin();
      console.log(`the plugin printed its port after ${ms} ms (one start, under test load)`);
      client = new providerGrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    });

    afterAll(async () => {
      client?.close();
      await emulator?.close();
    });

    it("reports the release version in GetPluginInfo and serves the schema of the sources, with the download URL", async () => {
      const info = await ask<InstanceType<typeof pluginPb.PluginInfo>>((done) => client.getPluginInfo(new emptyPb.Empty(), done));
      expect(info.getVersion()).toBe(pkg.version);
      const served = await ask<InstanceType<typeof providerPb.GetSchemaResponse>>((done) => client.getSchema(new providerPb.GetSchemaRequest(), done));
      const schema = JSON.parse(served.getSchema()) as ReturnType<typeof buildSchema>;
      expect(schema).toEqual(buildSchema());
      expect(schema.version).toBe(pkg.version);
      expect(schema.pluginDownloadURL).toBe(pluginDownloadUrlOf(pkg.repository));
      // The engine's download URL for this archive: the schema's URL, version filled in, plus the archive's name.
      expect(`${schema.pluginDownloadURL.replace("${VERSION}", pkg.version)}${ARCHIVES[0]}`).toMatch(
        new RegExp(`/releases/download/v${pkg.version.replace(/\./g, "\\.")}/pulumi-resource-helpdesk-v`),
      );
    });

    it("is the plugin the Python wheel and sdist and the TypeScript SDK name: same version and download URL as GetPluginInfo and the schema", async () => {
      const info = await ask<InstanceType<typeof pluginPb.PluginInfo>>((done) => client.getPluginInfo(new emptyPb.Empty(), done));
      const served = await ask<InstanceType<typeof providerPb.GetSchemaResponse>>((done) => client.getSchema(new providerPb.GetSchemaRequest(), done));
      const schema = JSON.parse(served.getSchema()) as ReturnType<typeof buildSchema>;
      const expected = { resource: true, name: "helpdesk", version: info.getVersion(), server: schema.pluginDownloadURL };
      expect(expected.version).toBe(pkg.version);
      expect(JSON.parse(fromZip(join(releaseDir, PYTHON[0]!), "pulumi_helpdesk/pulumi-plugin.json"))).toEqual(expected);
      const metadata = fromZip(join(releaseDir, PYTHON[0]!), `pulumi_helpdesk-${pkg.version}.dist-info/METADATA`);
      expect(metadata).toMatch(new RegExp(`^Version: ${pkg.version.replace(/\./g, "\\.")}$`, "m"));
      expect(metadata).toMatch(/^Requires-Dist: pulumi<4\.0\.0,>=3\.0\.0$/m);
      const inSdist = execFileSync("tar", ["-xzOf", join(releaseDir, PYTHON[1]!), `pulumi_helpdesk-${pkg.version}/pulumi_helpdesk/pulumi-plugin.json`], { encoding: "utf8" });
      expect(JSON.parse(inSdist)).toEqual(expected);
      // The TypeScript SDK: its package.json's "pulumi" section, which the Node.js language host reads.
      const npm = JSON.parse(execFileSync("tar", ["-xzOf", join(releaseDir, NODEJS_SDK), "package/package.json"], { encoding: "utf8" })) as { name: string; version: string; pulumi: unknown };
      expect(npm).toMatchObject({ name: nodejsSdkPackageOf(githubRepository()), version: pkg.version, pulumi: expected });
    });

    it("checks the provider config: a bad base URL fails, the token comes back secret", async () => {
      const bad = await ask<InstanceType<typeof providerPb.CheckResponse>>((done) =>
        client.checkConfig(new providerPb.CheckRequest().setUrn("urn:pulumi:dev::release-test::pulumi:providers:helpdesk::default").setNews(struct({ baseUrl: "not a url" })), done),
      );
      expect(bad.getFailuresList().map((failure) => failure.getProperty())).toEqual(["baseUrl"]);
      const good = await ask<InstanceType<typeof providerPb.CheckResponse>>((done) =>
        client.checkConfig(new providerPb.CheckRequest().setUrn("urn:pulumi:dev::release-test::pulumi:providers:helpdesk::default").setNews(struct({ baseUrl: emulator.url, accessToken })), done),
      );
      expect(good.getFailuresList()).toEqual([]);
      expect(isSecret(good.getInputs()!.toJavaScript().accessToken)).toBe(true);
    });

    it("creates and deletes a webhook on the emulator", async () => {
      await ask((done) => client.configure(new providerPb.ConfigureRequest().setArgs(struct({ baseUrl: emulator.url, accessToken })), done));
      const inputs = { event: "ticket_opened", url: "https://hooks.example.com/release-test" };
      const created = await ask<InstanceType<typeof providerPb.CreateResponse>>((done) =>
        client.create(new providerPb.CreateRequest().setUrn(urn).setType("helpdesk:index:Webhook").setProperties(struct(inputs)), done),
      );
      const id = created.getId();
      expect(id).not.toBe("");
      expect((await heldWebhooks(emulator)).map((hook) => ({ id: hook.id, event: hook.event, url: hook.url }))).toEqual([{ id, ...inputs }]);
      await ask((done) =>
        client.delete(new providerPb.DeleteRequest().setUrn(urn).setType("helpdesk:index:Webhook").setId(id).setProperties(created.getProperties()!), done),
      );
      expect(await heldWebhooks(emulator)).toEqual([]);
    });
  });

  describe("as pulumi-helpdesk (the archive's link), the CLI", () => {
    it("prints its version", async () => {
      const run = start("pulumi-helpdesk", ["--version"]);
      expect((await run.exited).code).toBe(0);
      expect(run.stdout.trim()).toBe(pkg.version);
    });

    it("runs the emulator on a data file (node:sqlite), which a sign-in reaches", async () => {
      const oauth = { clientId: "cli-emulator", clientSecret: "cli-emulator-client-secret", redirectUri: "http://127.0.0.1:1/callback" };
      const run = start("pulumi-helpdesk", [
        "emulator",
        "--port",
        "0",
        "--auto-approve",
        "--client-id",
        oauth.clientId,
        "--client-secret",
        oauth.clientSecret,
        "--redirect-uri",
        oauth.redirectUri,
        "--data",
        join(work, "emulator.sqlite"),
      ]);
      const url = await waitFor(`the emulator's URL (stderr: ${run.stderr})`, () => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(run.stderr + run.stdout)?.[1], 20_000);
      const tokens = await signInAutoApproved({ baseUrl: url, ...oauth });
      expect(tokens.accessToken).not.toBe("");
      run.child.kill("SIGINT");
      expect((await run.exited).code).toBe(0);
      expect(readdirSync(work)).toContain("emulator.sqlite");
    });
  });

  it("as a plugin, exits within 5 s of its engine no longer answering, and not while it answers", async () => {
    // The engine's stand-in: a gRPC server with no service (it answers the health check UNIMPLEMENTED: alive).
    const engine = new grpc.Server();
    const enginePort = await new Promise<number>((resolve, reject) =>
      engine.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port))),
    );
    const { run } = await startPlugin(["--logtostderr", `127.0.0.1:${enginePort}`]);
    const stillRunning = await Promise.race([run.exited.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 5_000))]);
    expect(stillRunning, `the plugin exited while its engine answered: ${run.stderr}`).toBe(true);
    const stopped = Date.now();
    engine.forceShutdown();
    const end = await Promise.race([run.exited, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 8_000))]);
    expect(end, "the plugin still runs 8 s after its engine stopped").toBeDefined();
    expect(end!.code).toBe(0);
    expect(end!.at - stopped).toBeLessThan(5_000);
    expect(run.stderr).toContain(`the engine at 127.0.0.1:${enginePort} has not answered`);
  });
});
