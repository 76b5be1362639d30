/**
 * Test support: running `go` on the repository's Go modules (the generated SDK sdk/go, the program examples/go).
 * Go's module and build caches are the machine's, named explicitly by the sandbox (tests/support/sandbox.ts
 * `sharedCaches`: `GOMODCACHE`, `GOCACHE`, `GOPATH`, `GOENV`), so a test compiles Pulumi's Go SDK once per machine,
 * not once per run; modules missing from the cache come from the Go module proxy through `go` itself.
 */
import { join } from "node:path";
import { GO_SDK_DIR, goModulePath } from "../../kernel/names.js";
import { type Ran, runCommand, shown } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";

/**
 * The environment of a `go` command on one of the repository's modules: the given one, with the module alone
 * (`GOWORK=off`), the installed toolchain only (`GOTOOLCHAIN=local`: no toolchain download), the committed `go.mod`
 * and `go.sum` as they are (`-mod=readonly`: a missing checksum fails instead of being added), a gentle build
 * (`-p=1`, one package at a time: the machines running the tests have two cores shared with other suites), and no
 * version-control stamp (`-buildvcs=false`: the repository may be a git worktree, which `go` need not inspect).
 *
 * @param env the base environment (the sandbox's, with the shared Go caches)
 */
export function goEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, GOWORK: "off", GOTOOLCHAIN: "local", GOFLAGS: "-mod=readonly -p=1 -buildvcs=false" };
}

/**
 * Runs `go <args>` in `cwd` and throws with its output when it fails.
 *
 * @param args the go command's arguments, e.g. `["vet", "./..."]`
 * @param cwd the module's folder
 * @param env the environment ({@link goEnv} is applied on top)
 * @returns what it printed
 * @throws Error naming the command, its exit code and its output, when it exits non-zero
 */
export async function go(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Ran> {
  const ran = await runCommand("go", args, { cwd, env: goEnv(env) });
  if (ran.code !== 0) throw new Error(shown(`go ${args.join(" ")} (in ${cwd})`, ran));
  return ran;
}

/**
 * Points a copy of a Go program (e.g. examples/go) at the repository's generated Go SDK, as a person does before the
 * SDK is published: `go mod edit -replace <module>=<repository>/sdk/go` (the module path from kernel/names.ts).
 *
 * @param moduleDir the copy's folder (its go.mod is edited)
 * @throws Error as {@link go}
 */
export async function goModuleOfRepositorySdk(moduleDir: string): Promise<void> {
  await go(["mod", "edit", "-replace", `${goModulePath()}=${join(repoRoot, GO_SDK_DIR)}`], moduleDir);
}
