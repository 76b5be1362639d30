/**
 * The refusals of the workflows' step scripts (scripts/ci/), each run as its job runs it, on inputs made here: each
 * stops with one line that names what is wrong (and the platform, where one is at stake) before doing anything. What
 * they do when all is well: tests/workflows/release-jobs.test.ts plays the jobs.
 */

import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLUGIN_EXECUTABLE, PYTHON_PACKAGE } from "../../kernel/names.js";
import { runCommand } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { releasePythonDistributions, releasePythonFiles } from "../../scripts/publish/packages.ts";

const VERSION = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
let work: string;

/** Runs a script of scripts/ci/ in `cwd` with the test's Node.js first on PATH. */
function ci(script: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  return runCommand("bash", [join(repoRoot, "scripts/ci", script), ...args], {
    cwd,
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}`, ...env },
  });
}

/** A folder of files with their SHA256SUMS. */
function released(dir: string, files: Record<string, string>): string {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  writeFileSync(join(dir, "SHA256SUMS"), execFileSync("sha256sum", Object.keys(files), { cwd: dir, encoding: "utf8" }));
  return dir;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "helpdesk-ci-scripts-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("scripts/ci/release-build.sh (the build job)", () => {
  it("refuses a tag that is not package.json's version, before building anything", async () => {
    const ran = await ci("release-build.sh", [], work, { GITHUB_REF_NAME: "v99.0.0" });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(
      `error: the tag v99.0.0 is not package.json's version v${VERSION}: tag the commit whose package.json says the version\n`,
    );
  });

  it("refuses a version no registry could take as it is (a prerelease of another form), before building anything", async () => {
    // A copy of what the script reads, with package.json at such a version.
    const copy = join(work, "next-version");
    for (const path of ["scripts/ci", "scripts/lib", "scripts/publish/prerelease.ts"])
      cpSync(join(repoRoot, path), join(copy, path), { recursive: true });
    const pkg = readFileSync(join(repoRoot, "package.json"), "utf8").replace(
      `"version": "${VERSION}"`,
      `"version": "9.0.0-next.1"`,
    );
    writeFileSync(join(copy, "package.json"), pkg);
    const ran = await runCommand("bash", [join(copy, "scripts/ci/release-build.sh")], {
      cwd: copy,
      env: {
        ...process.env,
        PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
        GITHUB_REF_NAME: "v9.0.0-next.1",
      },
    });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('error: "9.0.0-next.1" is not a release version');
    expect(ran.stderr).toContain("error: the tag v9.0.0-next.1 cannot be released (above)");
  });
});

describe("scripts/ci/assemble-release.sh (the sign job)", () => {
  it("joins the darwin-arm64 archive and its line, and every file matches SHA256SUMS", async () => {
    const release = released(join(work, "ok", "release"), { "a-linux-amd64.tar.gz": "linux" });
    const darwin = released(join(work, "ok", "darwin"), { "a-darwin-arm64.tar.gz": "darwin" });
    const ran = await ci("assemble-release.sh", [release, darwin], work);
    expect(ran.code, ran.stderr).toBe(0);
    expect(readdirSync(release).sort()).toEqual(["SHA256SUMS", "a-darwin-arm64.tar.gz", "a-linux-amd64.tar.gz"]);
    expect(readFileSync(join(release, "SHA256SUMS"), "utf8").trim().split("\n")).toHaveLength(2);
  });

  it("holds the release back, naming the platform, when the darwin-arm64 job's archive is missing", async () => {
    const release = released(join(work, "missing", "release"), { "a-linux-amd64.tar.gz": "linux" });
    mkdirSync(join(work, "missing", "darwin"));
    const ran = await ci("assemble-release.sh", [release, join(work, "missing", "darwin")], work);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(
      /^error: darwin-arm64: .* holds 0 archives, not 1: .*; the release waits for this platform\n$/,
    );
  });

  it("refuses a release whose file no longer matches its SHA256SUMS", async () => {
    const release = released(join(work, "changed", "release"), { "a-linux-amd64.tar.gz": "linux" });
    const darwin = released(join(work, "changed", "darwin"), { "a-darwin-arm64.tar.gz": "darwin" });
    writeFileSync(join(release, "a-linux-amd64.tar.gz"), "changed");
    const ran = await ci("assemble-release.sh", [release, darwin], work);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(`error: a file of ${release} does not match SHA256SUMS`);
  });
});

describe("the other steps' refusals", () => {
  it("pypi-dist.sh copies each distribution's wheel and sdist only, and refuses a release without them", async () => {
    const python = releasePythonFiles(VERSION);
    const release = released(join(work, "pypi", "release"), {
      ...Object.fromEntries(python.map((name) => [name, name])),
      [`${PLUGIN_EXECUTABLE}-v${VERSION}-linux-amd64.tar.gz`]: "plugin",
    });
    expect(releasePythonDistributions().length).toBeGreaterThan(1);
    const ok = await ci("pypi-dist.sh", [release, join(work, "pypi", "dist")], work);
    expect(ok.code, ok.stderr).toBe(0);
    expect(readdirSync(join(work, "pypi", "dist")).sort()).toEqual([...python].sort());
    const none = released(join(work, "pypi-none"), { "other.txt": "x" });
    const refused = await ci("pypi-dist.sh", [none, join(work, "pypi-none-dist")], work);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: pypi: .* lists 0 Python files, not a wheel and an sdist/);
    const sdist = `${PYTHON_PACKAGE}-${VERSION}.tar.gz`;
    const half = released(
      join(work, "pypi-half"),
      Object.fromEntries(python.filter((name) => name !== sdist).map((name) => [name, name])),
    );
    const lacking = await ci("pypi-dist.sh", [half, join(work, "pypi-half-dist")], work);
    expect(lacking.code).toBe(1);
    expect(lacking.stderr).toMatch(new RegExp(`^error: pypi: .* without its sdist ${sdist.replace(/\./g, "\\.")}: `));
  });

  it("sign-sums.sh refuses to run without cosign, or outside the release workflow", async () => {
    const release = released(join(work, "sign"), { "a.tar.gz": "a" });
    const ran = await ci("sign-sums.sh", [release], work, { PATH: "/usr/bin:/bin" });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe("error: cosign is not on PATH: the job installs it with sigstore/cosign-installer\n");
  });

  it("publish.sh names the targets it publishes, and where PyPI goes instead", async () => {
    const ran = await ci("publish.sh", ["pypi"], work);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(
      "scripts/ci/publish.sh publishes github, npm, maven or go (PyPI: pypa/gh-action-pypi-publish",
    );
  });

  it("darwin.sh and debian-packages.sh name what they take", async () => {
    const darwin = await ci("darwin.sh", ["x64"], work);
    expect(darwin.stderr).toBe("error: usage: scripts/ci/darwin.sh arm64|amd64 (got: x64)\n");
    const debian = await ci("debian-packages.sh", ["deploy"], work);
    expect(debian.stderr).toBe(
      "error: usage: scripts/ci/debian-packages.sh test|release-build|verify [--check] (got: deploy)\n",
    );
  });
});
