/**
 * Writes the release artefacts of pulumi-helpdesk into one folder (default `release/`, ignored by git); run by
 * `npm run release` (scripts/release.sh, which picks the project's Node.js first):
 *
 * - `pulumi-resource-helpdesk-v<version>-<os>-<arch>.tar.gz` per buildable platform (linux-amd64, linux-arm64,
 *   windows-amd64, darwin-amd64), the plugin archive as Pulumi downloads and installs it (pulumi/pulumi
 *   `sdk/go/common/workspace/plugins.go`): the self-contained executable `pulumi-resource-helpdesk` at the archive's
 *   root (mode 0755), beside it `pulumi-helpdesk` and `pulumi-analyzer-helpdesk`, symbolic links to it (the same
 *   executable is the CLI and the policy pack under those names; a link costs nothing, a copy would double the
 *   download), and `LICENSE`; the darwin archive alike. The Windows archive holds `pulumi-resource-helpdesk.exe` and `LICENSE` only (see
 *   {@link archiveEntries} for why no other name);
 * - the npm package (`npm pack`, which builds dist/ through `prepack`);
 * - the TypeScript SDK's npm package `@pulumi-helpdesk/helpdesk` (scripts/release/nodejs-sdk.ts);
 * - the Python SDK's wheel and sdist (`python -m build` of the generated sdk/python/: scripts/release/python.ts);
 * - the receiver kits' packages (scripts/release/receiver.ts): the TypeScript kit's npm package
 *   `@pulumi-helpdesk/receiver`, packed from dist/, and the Python kit's wheel and sdist (`pulumi-helpdesk-receiver`);
 *   the Go kit is its module in receiver/go, which `npm run publish` tags;
 * - `SHA256SUMS` of all of them, in `sha256sum -c` format.
 *
 * The archives' own bytes are deterministic (owner 0, the last commit's mtime, gzip without a name or time stamp);
 * the linux-arm64 executable is reproducible from the same tree and Node.js, the linux-amd64 one is not quite: V8's
 * code cache in its blob differs from build to build (measured: ~0.7 MB of 122 MB).
 *
 * Options: `--out <dir>`; `--targets linux-x64,linux-arm64,win32-x64,darwin-x64` (Node.js platform names; default all of
 * {@link BUILDABLE_TARGETS}; the machine's own platform too, as the release workflow builds darwin-arm64 on a Mac); `--no-npm-package` (skip `npm pack`, which rebuilds dist/, as tests running beside
 * others must; the TypeScript SDK and the receiver kit are then packed from the dist/ already built); `--no-python` (no
 * wheels and sdists). Prints one line per artefact: name, size, sha256.
 */

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  createReadStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ANALYZER_EXECUTABLE, CLI_EXECUTABLE, PLUGIN_EXECUTABLE } from "../../dist/kernel/names.js"; // from the build, as executable.ts says
import { required } from "../../kernel/required.ts";
import {
  BUILDABLE_TARGETS,
  buildExecutable,
  canBuild,
  executableName,
  ROOT,
  releaseFacts,
  type Target,
} from "./executable.ts";
import { packNodejsSdk } from "./nodejs-sdk.ts";
import { buildPythonPackages } from "./python.ts";
import { buildReceiverPython, packReceiverNpm } from "./receiver.ts";

/** Pulumi's operating system names (Go's GOOS) for Node.js's. */
const PULUMI_OS: Record<Target["os"], string> = { linux: "linux", win32: "windows", darwin: "darwin" };
/** Pulumi's architecture names (Go's GOARCH) for Node.js's. */
const PULUMI_ARCH: Record<Target["arch"], string> = { x64: "amd64", arm64: "arm64" };

/**
 * The plugin archive's file name, as the Pulumi engine asks for it under the plugin download URL.
 *
 * @param version e.g. `"0.1.0"`
 * @param target e.g. `{ os: "linux", arch: "x64" }`
 * @returns e.g. `"pulumi-resource-helpdesk-v0.1.0-linux-amd64.tar.gz"`, `"...-v0.1.0-windows-amd64.tar.gz"`,
 *   `"...-v0.1.0-darwin-amd64.tar.gz"`
 */
export function archiveName(version: string, target: Target): string {
  return `${PLUGIN_EXECUTABLE}-v${version}-${PULUMI_OS[target.os]}-${PULUMI_ARCH[target.arch]}.tar.gz`;
}

/** The names under which the Linux and macOS archives link the executable: the CLI's and the policy pack's (`bin/release.ts`). */
const LINKED_NAMES = [CLI_EXECUTABLE, ANALYZER_EXECUTABLE];

/**
 * The names of the files a target's archive holds, in order.
 *
 * Linux and macOS: the executable, `pulumi-helpdesk` and `pulumi-analyzer-helpdesk` (symbolic links to it: the CLI's
 * and the policy pack's names), `LICENSE`. Windows: the executable `pulumi-resource-helpdesk.exe` and `LICENSE`, no other name. A symbolic link is a poor fit there: creating
 * one needs a privilege that ordinary accounts lack unless Developer Mode is on, so an archive holding one could fail
 * to install as a whole, the plugin with it; a hard link is not something every extractor makes; a copy would double a
 * ~40 MB download for a name. The executable is the CLI when its first argument is the CLI's name (`bin/release.ts`):
 * `pulumi-resource-helpdesk.exe pulumi-helpdesk login ...`; a user who wants the short name can copy or hard-link it
 * to `pulumi-helpdesk.exe`, or to `pulumi-analyzer-helpdesk.exe` for the policy pack (`bin/release.ts` drops the `.exe`
 * before it looks at the name).
 *
 * @param target the platform
 * @returns e.g. `["pulumi-resource-helpdesk", "pulumi-helpdesk", "pulumi-analyzer-helpdesk", "LICENSE"]`
 */
export function archiveEntries(target: Target): string[] {
  return target.os === "win32"
    ? [executableName(target), "LICENSE"]
    : [executableName(target), ...LINKED_NAMES, "LICENSE"];
}

/** The time stamp of the artefacts' entries, in seconds: the last commit's (reproducible), or now outside a git checkout. */
function entryTime(): string {
  try {
    return execFileSync("git", ["log", "-1", "--format=%ct"], { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    return String(Math.floor(Date.now() / 1000));
  }
}

/**
 * Writes one plugin archive, holding {@link archiveEntries}.
 *
 * @param executable the built executable, named {@link executableName} for `target`
 * @param archive the `.tar.gz` to write
 * @param target the platform it is for
 */
export function writeArchive(executable: string, archive: string, target: Target): void {
  const staging = mkdtempSync(join(dirname(archive), ".staging-"));
  try {
    // The executable is archived from where it was built (no 130 MB copy); the rest comes from the staging folder.
    const [name, ...rest] = archiveEntries(target);
    if (basename(executable) !== name) throw new Error(`${executable} must be named ${name}`);
    for (const link of LINKED_NAMES.filter((linked) => rest.includes(linked))) symlinkSync(name, join(staging, link));
    copyFileSync(join(ROOT, "LICENSE"), join(staging, "LICENSE"));
    // The archive's bytes must not depend on the builder's machine: modes set here, whatever the umask (LICENSE
    // 0644; the executable is 0755 from buildExecutable, and `u=rwX,go=rX` records 0755/0644 whatever the files
    // say), owner 0, the commit's time, GNU format (tar's default format is a build option), names in the order
    // given (--sort=name orders what tar would read from a folder), and gzip without a name or time stamp.
    chmodSync(join(staging, "LICENSE"), 0o644);
    const common = [
      "--format=gnu",
      "--sort=name",
      "--owner=0",
      "--group=0",
      "--numeric-owner",
      `--mtime=@${entryTime()}`,
      "--mode=u=rwX,go=rX",
    ];
    execFileSync("tar", [
      "--create",
      "--file",
      archive,
      "--use-compress-program=gzip -n",
      ...common,
      "-C",
      dirname(executable),
      name,
      "-C",
      staging,
      ...rest,
    ]);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * @param file a file
 * @returns its SHA-256, lower-case hex
 */
export async function sha256Of(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** What {@link release} wrote. */
export interface ReleaseResult {
  version: string;
  /** absolute path of the folder */
  out: string;
  /** file names in the folder, SHA256SUMS last */
  files: string[];
}

/**
 * Writes the release artefacts.
 *
 * @param options `out`: the folder (created; earlier artefacts in it are removed); `targets`; `npmPackage`: whether
 *   to `npm pack` (default true); `python`: whether to build the Python SDK's and the Python receiver kit's wheel
 *   and sdist (default true)
 * @returns what was written
 * @throws Error when a build step fails
 */
export async function release(options: {
  out: string;
  targets?: readonly Target[];
  npmPackage?: boolean;
  python?: boolean;
}): Promise<ReleaseResult> {
  const { version } = releaseFacts();
  const out = resolve(options.out);
  mkdirSync(out, { recursive: true });
  for (const name of readdirSync(out)) {
    if (
      name.endsWith(".tar.gz") ||
      name.endsWith(".tgz") ||
      name.endsWith(".whl") ||
      name === "SHA256SUMS" ||
      name.startsWith(".staging-")
    )
      rmSync(join(out, name), { recursive: true, force: true });
  }
  const files: string[] = [];
  for (const target of options.targets ?? BUILDABLE_TARGETS) {
    const built = await buildExecutable(target);
    const name = archiveName(version, target);
    writeArchive(built.path, join(out, name), target);
    files.push(name);
  }
  if (options.npmPackage ?? true) {
    const packed = execFileSync("npm", ["pack", "--silent", "--pack-destination", out], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    files.push(required(packed.trim().split("\n").at(-1), "the file npm pack wrote"));
  }
  files.push(packNodejsSdk(out));
  files.push(packReceiverNpm(out, version));
  if (options.python ?? true) {
    files.push(...buildPythonPackages(out, version, entryTime()));
    files.push(...buildReceiverPython(out, version, entryTime()));
  }
  const sums = await Promise.all(files.map(async (name) => `${await sha256Of(join(out, name))}  ${name}\n`));
  writeFileSync(join(out, "SHA256SUMS"), sums.join(""));
  return { version, out, files: [...files, "SHA256SUMS"] };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const flagValue = (flag: string): string | undefined => {
    const at = args.indexOf(flag);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const targets = flagValue("--targets")
    ?.split(",")
    .map((name) => {
      const [os, arch] = name.split("-");
      const target = { os, arch } as Target;
      if (!canBuild(target))
        throw new Error(
          `cannot build ${name} here (buildable: ${BUILDABLE_TARGETS.map((t) => `${t.os}-${t.arch}`).join(", ")})`,
        );
      return target;
    });
  const result = await release({
    out: flagValue("--out") ?? join(ROOT, "release"),
    ...(targets ? { targets } : {}),
    npmPackage: !args.includes("--no-npm-package"),
    python: !args.includes("--no-python"),
  });
  const sums = new Map(
    readFileSync(join(result.out, "SHA256SUMS"), "utf8")
      .trim()
      .split("\n")
      .map((line) => [line.slice(66), line.slice(0, 64)] as const),
  );
  for (const name of result.files) {
    const size = (statSync(join(result.out, name)).size / 1e6).toFixed(1);
    process.stdout.write(
      `${join(result.out, name)}  ${size} MB${sums.has(name) ? `  sha256 ${sums.get(name)}` : ""}\n`,
    );
  }
}
