/**
 * Where people run `pulumi-helpdesk`: outside a Pulumi project, in a subdirectory of one, with a wrong `--cwd`,
 * without the Pulumi CLI on PATH, and `--version`. The built CLI runs as a child process, as a person runs it. And
 * what `import` and `migrate` read of the project file (its name and runtime): whatever YAML Pulumi reads.
 */

import { execFileSync } from "node:child_process";
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
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { LocalWorkspace } from "@pulumi/pulumi/automation/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProjectFacts, readProjectFacts } from "../../cli/shared/stack-config.js";
import { createTestProject, runCli, type TestProject } from "../support/cli.js";
import { pulumiAvailable } from "../support/pulumi.js";

const NO_PROJECT = (dir: string) =>
  `error: no Pulumi.yaml in ${dir} or any parent directory: run pulumi-helpdesk from your Pulumi project's directory, or pass --cwd <dir> with that directory\n`;
const NO_PULUMI =
  "error: the Pulumi CLI (`pulumi`) was not found on PATH: install it (https://www.pulumi.com/docs/install/) or add its directory to PATH, then check with `pulumi version`\n";

/** The same project and environment, with the CLI started in another directory. */
const runningIn = (project: TestProject, dir: string): TestProject => ({ ...project, dir });

/** Every directory from `dir` up to the root (what the CLI searches for Pulumi.yaml). */
function selfAndParents(dir: string): string[] {
  const dirs = [dir];
  for (let at = dir; dirname(at) !== at; at = dirname(at)) dirs.push(dirname(at));
  return dirs;
}

describe("pulumi-helpdesk finds its project before it calls Pulumi", () => {
  let outside: TestProject;
  let project: TestProject;
  /** An empty directory as the whole PATH: any attempt to run `pulumi` fails. */
  let noPulumiBin: string;

  beforeAll(() => {
    outside = createTestProject({ projectFile: false });
    project = createTestProject();
    noPulumiBin = mkdtempSync(join(tmpdir(), "helpdesk-no-pulumi-"));
    // The "outside" directory is only outside a project when nothing above it is one either.
    for (const dir of selfAndParents(realpathSync(outside.dir))) {
      for (const name of ["Pulumi.yaml", "Pulumi.yml", "Pulumi.json"])
        expect(existsSync(join(dir, name)), `${join(dir, name)} must not exist`).toBe(false);
    }
  });

  afterAll(() => {
    outside?.dispose();
    project?.dispose();
    if (noPulumiBin) rmSync(noPulumiBin, { recursive: true, force: true });
  });

  it.each(["status", "login", "refresh", "logout"])(
    "%s outside a project: exit 2, names the directory searched and --cwd",
    async (command) => {
      // PATH has no `pulumi`: the message proves the CLI stopped before calling Pulumi.
      const { code, stdout, stderr } = await runCli([command], outside, { PATH: noPulumiBin });
      expect(stderr).toBe(NO_PROJECT(realpathSync(outside.dir)));
      expect(stdout).toBe("");
      expect(code).toBe(2);
    },
  );

  it("a --cwd that does not exist: exit 2, the resolved path in the message", async () => {
    const { code, stderr } = await runCli(["status", "--stack", "dev", "--cwd", "no-such-dir"], outside, {
      PATH: noPulumiBin,
    });
    expect(stderr).toBe(
      `error: --cwd ${join(realpathSync(outside.dir), "no-such-dir")} does not exist: pass the directory that holds your Pulumi project's Pulumi.yaml\n`,
    );
    expect(code).toBe(2);
  });

  it("a --cwd that is a file: exit 2, says it is not a directory", async () => {
    const file = join(outside.dir, "Pulumi.txt");
    writeFileSync(file, "not a project\n");
    const { code, stderr } = await runCli(["logout", "--cwd", file], outside, { PATH: noPulumiBin });
    expect(stderr).toBe(
      `error: --cwd ${file} is not a directory: pass the directory that holds your Pulumi project's Pulumi.yaml\n`,
    );
    expect(code).toBe(2);
  });

  it("without `pulumi` on PATH: one line that says how to install it, exit 1", async () => {
    for (const args of [["status", "--stack", "dev"], ["status"], ["refresh", "--stack", "dev"]]) {
      const { code, stderr } = await runCli([...args, "--cwd", project.dir], outside, { PATH: noPulumiBin });
      expect(stderr, args.join(" ")).toBe(NO_PULUMI);
      expect(code, args.join(" ")).toBe(1);
    }
  });

  it("login without `pulumi` on PATH stops before the browser step", async () => {
    const { code, stderr } = await runCli(
      [
        "login",
        "--stack",
        "dev",
        "--base-url",
        "http://127.0.0.1:9",
        "--client-id",
        "c",
        "--redirect-uri",
        "http://127.0.0.1:9/callback",
        "--no-browser",
      ],
      project,
      { PATH: noPulumiBin, HELPDESK_CLIENT_SECRET: "s" },
    );
    expect(stderr).toBe(NO_PULUMI);
    expect(code).toBe(1);
  });

  it.each(["--version", "-V"])("%s prints the version of package.json and exits 0", async (flag) => {
    const pkg = JSON.parse(readFileSync(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8")) as {
      version: string;
    };
    const { code, stdout, stderr } = await runCli([flag], outside, { PATH: noPulumiBin });
    expect(stdout).toBe(`${pkg.version}\n`);
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});

describe.skipIf(!pulumiAvailable())("pulumi-helpdesk in a project, with the Pulumi CLI", () => {
  let outside: TestProject;
  let project: TestProject;

  beforeAll(() => {
    outside = createTestProject({ projectFile: false });
    project = createTestProject();
    execFileSync("pulumi", ["stack", "init", "dev"], { cwd: project.dir, env: project.env, stdio: "pipe" });
  });

  afterAll(() => {
    outside?.dispose();
    project?.dispose();
  });

  it("--cwd points at the project from anywhere", async () => {
    const { code, stdout, stderr } = await runCli(
      ["status", "--stack", "dev", "--cwd", project.dir],
      runningIn(project, outside.dir),
    );
    expect(stderr).not.toContain("error:");
    expect(stdout).toContain("stack:          dev");
    expect(code).toBe(0);
  });

  it("from a subdirectory the project is found upwards, as Pulumi does (and the selected stack is read there)", async () => {
    const deep = join(project.dir, "src", "deep");
    mkdirSync(deep, { recursive: true });
    const { code, stdout, stderr } = await runCli(["status"], runningIn(project, deep));
    expect(stderr).not.toContain("error:");
    expect(stdout).toContain("stack:          dev");
    expect(code).toBe(0);
    expect(readdirSync(deep)).toEqual([]);
  });

  it("a Pulumi.yaml that Pulumi cannot read: Pulumi's own reason, not the command line it ran", async () => {
    const broken = createTestProject();
    try {
      writeFileSync(join(broken.dir, "Pulumi.yaml"), 'name: broken\nruntime: nodejs\ndescription: a "quoted": colon\n');
      const { code, stderr } = await runCli(["status"], broken);
      expect(code).not.toBe(0);
      expect(stderr).toMatch(/invalid YAML|unmarshal/);
      expect(stderr).not.toContain("Command failed");
    } finally {
      broken.dispose();
    }
  });
});

describe.skipIf(!pulumiAvailable())("the project's name and runtime, read as Pulumi reads its project file", () => {
  let folder: string;

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), "helpdesk-project-files-"));
  });

  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  /** The facts `import` and `migrate` read from a project whose Pulumi.yaml is `text`. */
  async function factsOf(text: string): Promise<ProjectFacts> {
    const dir = mkdtempSync(join(folder, "project-"));
    writeFileSync(join(dir, "Pulumi.yaml"), text);
    return readProjectFacts(await LocalWorkspace.create({ workDir: dir }));
  }

  it.each([
    [
      "a flow mapping",
      "{ name: flow-mapped, runtime: { name: python, options: { virtualenv: venv } } }\n",
      { name: "flow-mapped", runtime: "python" },
    ],
    ["block scalars", "name: >-\n  block-scalar\nruntime: |-\n  go\n", { name: "block-scalar", runtime: "go" }],
    [
      "an anchor and its alias",
      "x-runtime: &runtime\n  name: java\nname: anchored # a comment\nruntime: *runtime\n",
      { name: "anchored", runtime: "java" },
    ],
    ["quoted scalars", "name: 'quoted'\nruntime:\n  name: \"yaml\"\n", { name: "quoted", runtime: "yaml" }],
  ])("%s", async (_, text, facts) => {
    expect(await factsOf(text)).toEqual(facts);
  });

  it("a project file without a runtime: exit 2, saying which is missing", async () => {
    await expect(factsOf("name: no-runtime\n")).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/names no project runtime$/),
    });
  });
});
