/**
 * The Go receiver kit's own tests (receiver/go, `go test ./...`) and checks (`go vet`, `gofmt -l`: the generated
 * files are formatted as gofmt writes them), run by `npm test`; and the module needs nothing but the standard library
 * (its go.mod requires no module, so there is no go.sum).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { receiverGoModulePath } from "../../kernel/names.js";
import { runCommand, shown } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { go, goEnv } from "../support/go.js";
import { onPath, toolAvailable } from "../support/tools.js";

const kit = join(repoRoot, "receiver", "go");

describe.skipIf(!toolAvailable("go", onPath("go")))("the Go receiver kit", () => {
  it("is the module of the repository's receiver/go path, requiring nothing", () => {
    const mod = readFileSync(join(kit, "go.mod"), "utf8");
    expect(mod).toMatch(new RegExp(`^module ${receiverGoModulePath().replaceAll(".", "\\.")}\\n`));
    expect(mod).not.toMatch(/\brequire\b/);
    expect(existsSync(join(kit, "go.sum"))).toBe(false);
  });

  it("passes go vet and its tests, and is formatted as gofmt writes it", async () => {
    await go(["vet", "./..."], kit);
    const tested = await go(["test", "-count=1", "-v", "./..."], kit);
    expect(tested.stdout).toMatch(/^--- PASS: TestSharedCases /m);
    expect(tested.stdout).toMatch(/^ok\s/m);
    const gofmt = await runCommand("gofmt", ["-l", "."], { cwd: kit, env: goEnv() });
    expect(gofmt.code, shown("gofmt -l", gofmt)).toBe(0);
    expect(gofmt.stdout).toBe("");
  }, 600_000);
});
