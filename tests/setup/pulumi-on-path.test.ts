/**
 * scripts/setup.sh's Pulumi step (`ensure_pulumi`) takes a `pulumi` of the pinned version already on `PATH`, as
 * CONTRIBUTING.md says: with an empty `PULUMI_HOME` and such a CLI on `PATH` (with its Node.js language host beside
 * it, as the official install has them), it downloads nothing and builds nothing, and `$PULUMI_HOME/versions/<v>/bin`
 * then holds that CLI and host (hard links) and the dynamic provider's launcher. A `pulumi` of another version is not
 * taken. The step runs as setup.sh defines it (the script sourced, which defines its steps without running them);
 * `go` and `curl` are replaced on `PATH` by scripts that record their call and fail, so a download or a build shows.
 * The real CLI is the one the suite runs (`npm test` sets it up).
 */

import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { required } from "../../kernel/required.js";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { pulumiAvailable } from "../support/pulumi.js";

/** The pinned Pulumi version: package.json's `@pulumi/pulumi`, which setup.sh holds equal to its CLI pin. */
const version = required(
  (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { devDependencies: Record<string, string> })
    .devDependencies["@pulumi/pulumi"],
  "the devDependency @pulumi/pulumi",
);

const work = mkdtempSync(join(tmpdir(), "helpdesk-setup-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Hard-links a file into a folder (a copy across file systems). */
function place(file: string, folder: string, name: string): void {
  try {
    linkSync(file, join(folder, name));
  } catch {
    copyFileSync(file, join(folder, name));
    chmodSync(join(folder, name), 0o755);
  }
}

/** Writes `go` and `curl` that record their call in `<folder>/called` and fail. */
function tripwires(folder: string): string {
  mkdirSync(folder, { recursive: true });
  for (const tool of ["go", "curl"]) {
    writeFileSync(join(folder, tool), `#!/bin/sh\necho ${tool} >> '${join(folder, "called")}'\nexit 1\n`, {
      mode: 0o755,
    });
  }
  return join(folder, "called");
}

/**
 * Runs setup.sh's Pulumi step with an empty PULUMI_HOME and PATH: the tripwires, `official`, then the runner's PATH
 * without the runner's own Pulumi folder.
 */
function pulumiStep(name: string, official: string) {
  const home = join(work, name, "pulumi-home");
  const stubs = join(work, name, "stubs");
  const called = tripwires(stubs);
  const runnersPulumi = dirname(execFileSync("sh", ["-c", "command -v pulumi"], { encoding: "utf8" }).trim());
  const path = [
    stubs,
    official,
    ...(process.env.PATH ?? "").split(delimiter).filter((entry) => entry !== runnersPulumi),
  ];
  const ran = spawnSync("bash", ["-c", ". scripts/setup.sh && ensure_pulumi"], {
    cwd: repoRoot,
    encoding: "utf8",
    // A cache of its own: a failed build's log goes there, not into the runner's toolchain cache.
    env: { ...process.env, PULUMI_HOME: home, HELPDESK_CACHE: join(work, name, "cache"), PATH: path.join(delimiter) },
  });
  return {
    ran,
    bin: join(home, "versions", version, "bin"),
    called: existsSync(called) ? readFileSync(called, "utf8") : "",
  };
}

describe.runIf(pulumiAvailable())("scripts/setup.sh's Pulumi step", () => {
  const real = dirname(execFileSync("sh", ["-c", "command -v pulumi"], { encoding: "utf8" }).trim());

  it(`takes a pulumi v${version} on PATH, with its Node.js host, into an empty PULUMI_HOME: no download, no build`, () => {
    const official = join(work, "official", "bin");
    mkdirSync(official, { recursive: true });
    for (const tool of ["pulumi", "pulumi-language-nodejs"]) place(join(real, tool), official, tool);

    const { ran, bin, called } = pulumiStep("taken", official);
    expect(ran.status, ran.stderr).toBe(0);
    expect(called, "setup downloaded or built").toBe("");
    expect(ran.stderr).toContain(`Taking the Pulumi CLI v${version} on PATH (${official}) into ${bin}`);
    expect(ran.stderr).not.toContain("Installing the Pulumi CLI");
    for (const tool of ["pulumi", "pulumi-language-nodejs"])
      expect(statSync(join(bin, tool)).ino, `${tool} is the one on PATH`).toBe(statSync(join(official, tool)).ino);
    expect(existsSync(join(bin, "pulumi-resource-pulumi-nodejs")), "the dynamic provider's launcher beside it").toBe(
      true,
    );
    expect(execFileSync(join(bin, "pulumi"), ["version"], { encoding: "utf8" }).trim()).toBe(`v${version}`);
  });

  it("does not take a pulumi of another version: it goes on to the download, then the build", () => {
    const other = join(work, "other", "bin");
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, "pulumi"), "#!/bin/sh\necho v3.1.0\n", { mode: 0o755 });
    place(join(real, "pulumi-language-nodejs"), other, "pulumi-language-nodejs");

    const { ran, called } = pulumiStep("other", other);
    expect(ran.status).not.toBe(0);
    expect(ran.stderr).not.toContain("Taking the Pulumi CLI");
    expect(called.split("\n").filter(Boolean), "it tried the download (curl), then the build (go)").toEqual(
      expect.arrayContaining(["curl", "go"]),
    );
  });
});
