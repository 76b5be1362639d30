/**
 * Test support: tests leave no trace on the machine. Every test file runs in a sandbox of its own: `HOME`,
 * `PULUMI_HOME`, the `XDG_*` folders (so the token cache's default, `$XDG_CACHE_HOME/pulumi-helpdesk/tokens`) and
 * `TMPDIR` point into one folder of the test run, set in `process.env` before the file is imported, so in-process
 * code (the token cache, the Automation API) and every child process (the CLI, `pulumi`, the provider, npm, Chromium,
 * PostgreSQL) write there. The file's sandbox is removed after its last hook.
 *
 * Layout of a run folder (`$HELPDESK_TEST_RUN`, made by scripts/test.sh, else by the global setup):
 * - `tmp/`: the `TMPDIR` of the test run's own processes (vitest itself); empty when the run ends.
 * - `home/`: the `HOME` of the run, which workers start with before their file's sandbox is set.
 * - `f-XXXXXX/{home,tmp}`: one sandbox per test file (its file `test-file` names the test file). The names are
 *   short because programs put unix sockets under `TMPDIR`, whose paths may not exceed 107 bytes: Chromium's
 *   `org.chromium.Chromium.XXXXXX/SingletonSocket` (46 more bytes), PostgreSQL's `helpdesk-pg-XXXXXX/.s.PGSQL.<port>`.
 *
 * The sandbox reads, never writes, the real places it cannot copy cheaply: the Pulumi CLI and its language hosts by
 * `PATH` (scripts/lib/env.sh puts `$PULUMI_HOME/versions/<v>/bin` there as an absolute path, so an empty
 * `PULUMI_HOME` still finds them), and the caches named in {@link sharedCaches}.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { tokenCacheDir } from "../../auth/token-cache.js";

/** The environment variable that names the run folder (see the module doc). */
export const RUN_FOLDER = "HELPDESK_TEST_RUN";

/** The start of the name of a test file's sandbox folder in the run folder. */
export const SANDBOX_PREFIX = "f-";

/** The variables a sandbox sets: where programs write their state, caches and temporary files. */
export const SANDBOXED = [
  "HOME",
  "PULUMI_HOME",
  "XDG_CACHE_HOME",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_STATE_HOME",
  "TMPDIR",
] as const;

/**
 * The environment of a sandbox at `root`: `root/home` as `HOME` with the usual layout under it, `root/tmp` as
 * `TMPDIR`. Creates the folders. `tmp` is mode 1777 like /tmp and `root` is 0755: PostgreSQL's server runs as the
 * `postgres` user (tests/support/postgres.ts) in a folder under `TMPDIR`, and must be able to reach it.
 */
export function sandboxEnv(root: string): Record<(typeof SANDBOXED)[number], string> {
  const home = join(root, "home");
  const env = {
    HOME: home,
    PULUMI_HOME: join(home, ".pulumi"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    TMPDIR: join(root, "tmp"),
  };
  for (const dir of Object.values(env)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(root, 0o755);
  chmodSync(env.TMPDIR, 0o1777);
  return env;
}

/** The caches and settings {@link sharedCaches} always names, and those it adds when the person has them. */
type SharedCaches = Record<"npm_config_cache" | "GOPATH" | "GOMODCACHE" | "GOCACHE" | "GOENV", string> &
  Record<string, string>;

/**
 * Where the caches live that tests share with the machine on purpose, as the variables that name them, computed from
 * the real home folder before any sandbox replaces `HOME`. Each is set explicitly, so a sandboxed `HOME` does not
 * move it:
 * - `npm_config_cache`: npm's cache (default `~/.npm`). tests/user-projects runs `npm install --prefer-offline` of
 *   the packed tarball in several projects: with a cache in the sandbox each run would fetch every dependency from the
 *   registry again (slow, and a failure when the registry is out of reach). npm only adds to it (content-addressed).
 * - `npm_config_userconfig`: the person's `~/.npmrc` (the registry and its settings), read only.
 * - `GIT_CONFIG_GLOBAL`: the person's `~/.gitconfig` (e.g. `safe.directory` for `git ls-files` in
 *   tests/support/package.ts), read only.
 * - `HELPDESK_CACHE`, `HELPDESK_PYTHON_VENV`: the project's toolchain cache (scripts/lib/env.sh: Node, the Python
 *   virtualenv with Pulumi's Python SDK, the SDK generator), written by scripts/setup.sh before the tests, read by them.
 * - `GOPATH`, `GOMODCACHE`, `GOCACHE`, `GOENV`: Go's module and build caches and settings (setup.sh builds the Pulumi
 *   CLI and hosts with them); any `go` run by a test reuses them instead of starting cold in the sandbox.
 *
 * @param env the environment with the real `HOME`
 */
export function sharedCaches(env: NodeJS.ProcessEnv = process.env): SharedCaches {
  const home = env.HOME || homedir();
  const cacheHome = env.XDG_CACHE_HOME || join(home, ".cache");
  const configHome = env.XDG_CONFIG_HOME || join(home, ".config");
  const helpdeskCache = env.HELPDESK_CACHE || join(cacheHome, "pulumi-helpdesk");
  const gopath = env.GOPATH || join(home, "go");
  const [firstGopath = gopath] = gopath.split(":");
  const shared: SharedCaches = {
    npm_config_cache: env.npm_config_cache || join(home, ".npm"),
    HELPDESK_CACHE: helpdeskCache,
    HELPDESK_PYTHON_VENV: env.HELPDESK_PYTHON_VENV || join(helpdeskCache, "python-venv"),
    GOPATH: gopath,
    GOMODCACHE: env.GOMODCACHE || join(firstGopath, "pkg", "mod"),
    GOCACHE: env.GOCACHE || join(cacheHome, "go-build"),
    GOENV: env.GOENV || join(configHome, "go", "env"),
  };
  const npmrc = env.npm_config_userconfig || join(home, ".npmrc");
  if (existsSync(npmrc)) shared.npm_config_userconfig = npmrc;
  const gitconfig = env.GIT_CONFIG_GLOBAL || join(home, ".gitconfig");
  if (existsSync(gitconfig)) shared.GIT_CONFIG_GLOBAL = gitconfig;
  return shared;
}

/**
 * What tools the tests run leave in `TMPDIR` by design, beyond a test's reach (removed with the sandbox):
 * - `ts-node-<hash>`: ts-node's compile cache (Pulumi's Node.js SDK runs TypeScript programs with ts-node);
 * - `pulumi-node-pipes<n>`: the pipes of the Node.js language host (v3.68), which it does not remove;
 * - `node-compile-cache`: Node's module compile cache, which npm 11 turns on in the temp folder.
 */
const TOOLS_OWN_TEMP = [/^ts-node-[0-9a-f]{64}$/, /^pulumi-node-pipes\d+$/, /^node-compile-cache$/];

/** A test file's sandbox. */
export interface Sandbox {
  /** The sandbox folder (its `home/` and `tmp/`). */
  root: string;
  /** The variables it set in `process.env`. */
  env: Record<(typeof SANDBOXED)[number], string>;
  /** What is left in the sandbox's `TMPDIR`, as paths relative to it (a file or folder a test did not remove). */
  leftInTmp(): string[];
  /** Removes the sandbox (what test processes still write there afterwards is removed with the run folder). */
  remove(): void;
}

/**
 * Creates a sandbox for one test file under the run folder and points `process.env` at it.
 *
 * @param testFile the test file's path (written into the sandbox, for a person looking at a run folder)
 * @throws Error when `$HELPDESK_TEST_RUN` is not set (vitest.config.ts's global setup sets it)
 */
export function enterSandbox(testFile: string): Sandbox {
  const run = process.env[RUN_FOLDER];
  if (!run)
    throw new Error(
      `${RUN_FOLDER} is not set: run the tests with vitest.config.ts (its globalSetup makes the run folder)`,
    );
  const root = mkdtempSync(join(run, SANDBOX_PREFIX));
  writeFileSync(join(root, "test-file"), `${testFile}\n`);
  const env = sandboxEnv(root);
  Object.assign(process.env, env);
  // The token cache follows XDG_CACHE_HOME into the sandbox; a directory named by the person's shell would not.
  delete process.env.HELPDESK_TOKEN_CACHE_DIR;
  // `npm test` exports this repository's .npmrc to its children as npm_config_*; its install-script policy is for
  // this repository's own `npm ci`, not for the user projects the tests install the packed package into, which must
  // install as a person's npm does (the lockfile of @pulumi/pulumi's dependencies has scripts this policy names not).
  delete process.env.npm_config_strict_allow_scripts;
  return {
    root,
    env,
    leftInTmp: () =>
      existsSync(env.TMPDIR)
        ? readdirSync(env.TMPDIR)
            .filter((name) => !TOOLS_OWN_TEMP.some((own) => own.test(name)))
            .sort()
        : [],
    remove: () => rmSync(root, { recursive: true, force: true, maxRetries: 3 }),
  };
}

/** How a watched path is listed: its entries' names only, or every entry below it with its size and time. */
type Depth = "names" | "tree";

/** A listing: path → what is compared (`dir`, `link <target>`, `file <size> <mtime>`; `-` for names only). */
export type Listing = Map<string, string>;

/** One place of the real home folder that tests must leave alone. */
interface Watched {
  path: string;
  depth: Depth;
}

/**
 * The places of the real home folder that a test run must not change (see {@link findTraces}):
 * - recursively, every entry with its size and modification time: the token cache (the product's default location,
 *   and `$HELPDESK_TOKEN_CACHE_DIR` when the person's shell sets it), `$PULUMI_HOME/workspaces` (the stack each
 *   project last selected), `$PULUMI_HOME/plugins`, `$PULUMI_HOME/credentials.json` (backend logins);
 * - the names in `$HOME`, `$PULUMI_HOME`, `~/.cache`, `~/.config`, `~/.local/share`, `~/.local/state`: a new
 *   folder there is a program writing state into the real home (a Chromium profile, a Pulumi log, a pip cache). Only
 *   new and removed names count: existing files there change for reasons of their own (shell history).
 *
 * @param env the environment with the real `HOME` (before any sandbox)
 */
export function watchedPlaces(env: NodeJS.ProcessEnv = process.env): Watched[] {
  const home = env.HOME || homedir();
  const pulumiHome = env.PULUMI_HOME || join(home, ".pulumi");
  const real = { ...env, XDG_CACHE_HOME: env.XDG_CACHE_HOME || join(home, ".cache") };
  const tree = [tokenCacheDir(real), tokenCacheDir({ ...real, HELPDESK_TOKEN_CACHE_DIR: undefined })];
  tree.push(...["workspaces", "plugins", "credentials.json"].map((name) => join(pulumiHome, name)));
  const names = [
    home,
    pulumiHome,
    real.XDG_CACHE_HOME,
    env.XDG_CONFIG_HOME || join(home, ".config"),
    env.XDG_DATA_HOME || join(home, ".local", "share"),
    env.XDG_STATE_HOME || join(home, ".local", "state"),
  ];
  return [...new Set(tree)]
    .map((path): Watched => ({ path, depth: "tree" }))
    .concat([...new Set(names)].map((path) => ({ path, depth: "names" })));
}

/**
 * Paths below the watched places that change legitimately during a run, each with its reason:
 * - npm's cache and Go's caches and settings ({@link sharedCaches}): tests share them on purpose;
 * - `~/.local/share/vitest`: the vitest process itself (not a test) keeps its API token there, made on its first run.
 * The toolchain cache `~/.cache/pulumi-helpdesk` (Node, the Python virtualenv, built tools) needs no exclusion:
 * scripts/setup.sh fills it before the snapshot, and only its `tokens/` (the token cache's default) is watched.
 *
 * @param env the environment with the real `HOME` (before any sandbox)
 */
export function legitimateChanges(env: NodeJS.ProcessEnv = process.env): string[] {
  const shared = sharedCaches(env);
  const home = env.HOME || homedir();
  return [
    shared.npm_config_cache,
    shared.GOMODCACHE,
    shared.GOCACHE,
    join(shared.GOENV, ".."),
    ...shared.GOPATH.split(":"),
    join(env.XDG_DATA_HOME || join(home, ".local", "share"), "vitest"),
  ];
}

/** Lists `path` (nothing when it does not exist), leaving out `excluded` paths and what is below them. */
function list(path: string, depth: Depth, excluded: string[], into: Listing): void {
  const isExcluded = (p: string): boolean => excluded.some((e) => p === e || p.startsWith(`${e}/`));
  const describe = (p: string): string | undefined => {
    try {
      const stats = lstatSync(p);
      if (stats.isSymbolicLink()) return `link ${readlinkSync(p)}`;
      return stats.isDirectory() ? "dir" : `file ${stats.size} ${stats.mtimeMs}`;
    } catch {
      return undefined; // gone meanwhile
    }
  };
  const self = describe(path);
  if (self === undefined || isExcluded(path)) return;
  if (depth === "tree") into.set(path, self);
  if (self !== "dir") return;
  for (const name of readdirSync(path)) {
    const child = join(path, name);
    if (isExcluded(child)) continue;
    if (depth === "names") into.set(child, "-");
    else list(child, "tree", excluded, into);
  }
}

/**
 * Lists everything below `path` with its size and modification time, as {@link findTraces} compares it (e.g. the
 * account's Maven repository, which a test must not write).
 *
 * @returns the listing; empty when `path` does not exist
 */
export function listTree(path: string): Listing {
  const listing: Listing = new Map();
  list(path, "tree", [], listing);
  return listing;
}

/** Lists the watched places of the real home folder (see {@link watchedPlaces}). */
export function snapshotHome(env: NodeJS.ProcessEnv = process.env): Listing {
  const listing: Listing = new Map();
  const excluded = legitimateChanges(env);
  for (const watched of watchedPlaces(env)) list(watched.path, watched.depth, excluded, listing);
  return listing;
}

/**
 * What changed between two listings, one line per path: `new <path>`, `changed <path>`, `removed <path>`.
 */
export function findTraces(before: Listing, after: Listing): string[] {
  const traces: string[] = [];
  for (const [path, what] of after) {
    const was = before.get(path);
    if (was === undefined) traces.push(`new ${path}`);
    else if (was !== what) traces.push(`changed ${path}`);
  }
  for (const path of before.keys()) if (!after.has(path)) traces.push(`removed ${path}`);
  return traces.sort((a, b) => a.slice(a.indexOf(" ")).localeCompare(b.slice(b.indexOf(" "))));
}
