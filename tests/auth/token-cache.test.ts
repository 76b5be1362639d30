/**
 * The token cache's files, on a real file system: modes enforced on every open (0700 directory, 0600 files, even
 * when they existed with wider modes), atomic durable writes, the index from every refresh token of a grant, and a
 * damaged file as a clear, typed error that names it, never a silent fallback.
 */

import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { afterEach, describe, expect, it } from "vitest";
import {
  type CacheEntry,
  entryFile,
  findEntry,
  grantIdOf,
  readEntry,
  refreshTokenHash,
  TokenCacheError,
  withGrantLock,
  writeEntry,
} from "../../auth/token-cache.js";
import { required } from "../../kernel/required.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0).reverse()) rmSync(dir, { recursive: true, force: true });
});

/** A fresh parent directory; the cache directory inside it does not exist yet. */
function cacheDir(): string {
  const parent = mkdtempSync(join(tmpdir(), "helpdesk-cache-test-"));
  dirs.push(parent);
  return join(parent, "tokens");
}

const mode = (path: string): number => statSync(path).mode & 0o777;

/** An entry of a grant whose refresh tokens were `tokens` (the last is the newest). */
function entryOf(tokens: string[], accessToken = "access-token-newest-0001"): CacheEntry {
  const hashes = tokens.map(refreshTokenHash);
  return {
    format: 1,
    lineage: grantIdOf(required(hashes[0], "a refresh token")),
    baseUrl: "http://127.0.0.1:1",
    clientId: "c",
    accessToken,
    refreshToken: required(tokens.at(-1), "a refresh token"),
    expiresAt: "2030-01-01T00:00:00.000Z",
    lifetimeSeconds: 7200,
    refreshTokenHashes: hashes,
    rotation: "rotates",
    pending: null,
    updatedAt: new Date().toISOString(),
  };
}

function cacheError(run: () => unknown): TokenCacheError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(TokenCacheError);
    return error as TokenCacheError;
  }
  throw new Error("expected a TokenCacheError");
}

describe("permissions", () => {
  it("creates the directory 0700 and files 0600", () => {
    const dir = cacheDir();
    const file = writeEntry(dir, entryOf(["refresh-token-root-0001"]));
    expect(mode(dir)).toBe(0o700);
    expect(mode(file)).toBe(0o600);
  });

  it("tightens a directory that already exists with mode 0755, and a file with 0644, on the next open", () => {
    const dir = cacheDir();
    const entry = entryOf(["refresh-token-root-0002"]);
    const file = writeEntry(dir, entry);
    chmodSync(dir, 0o755);
    chmodSync(file, 0o644);
    expect(findEntry(refreshTokenHash("refresh-token-root-0002"), dir)?.file).toBe(file); // a read-only open
    expect(mode(dir)).toBe(0o700);
    expect(mode(file)).toBe(0o600);
  });

  it("tightens a 0755 directory that existed before any write", () => {
    const dir = cacheDir();
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    expect(mode(dir)).toBe(0o755);
    writeEntry(dir, entryOf(["refresh-token-root-0003"]));
    expect(mode(dir)).toBe(0o700);
  });

  it("refuses a cache path that is a file, naming it", () => {
    const dir = cacheDir();
    mkdirSync(join(dir, ".."), { recursive: true });
    writeFileSync(dir, "not a directory");
    const error = cacheError(() => writeEntry(dir, entryOf(["refresh-token-root-0004"])));
    expect(error.code).toBe("cache_inaccessible");
    expect(error.message).toContain(dir);
  });

  it("refuses a cache directory that is a symbolic link, reading or writing, and chmods nothing at its target", () => {
    const dir = cacheDir();
    const target = join(dir, "..", "elsewhere");
    mkdirSync(target);
    chmodSync(target, 0o755);
    symlinkSync(target, dir);
    for (const path of [dir, `${dir}/`]) {
      for (const open of [
        () => writeEntry(path, entryOf(["refresh-token-root-0005"])),
        () => findEntry(refreshTokenHash("refresh-token-root-0005"), path),
      ]) {
        const error = cacheError(open);
        expect(error.code).toBe("cache_inaccessible");
        expect(error.message).toContain(`the token cache ${path} is a symbolic link`);
        expect(error.message).toContain(
          "replace the link with a directory of your own, or set HELPDESK_TOKEN_CACHE_DIR to a private directory",
        );
      }
    }
    expect(mode(target)).toBe(0o755);
    expect(readdirSync(target)).toEqual([]);
  });

  it("refuses a directory another user owns, and leaves its mode alone", () => {
    // As root (how the suite runs here), a fresh folder given to nobody (65534); as anyone else, `/` is root's.
    const uid = required(process.getuid, "process.getuid (POSIX)").call(process);
    const asRoot = uid === 0;
    const dir = asRoot ? cacheDir() : "/";
    if (asRoot) {
      mkdirSync(dir, { mode: 0o755 });
      chownSync(dir, 65534, 65534);
    }
    const before = statSync(dir).mode;
    const error = cacheError(() => writeEntry(dir, entryOf(["refresh-token-root-0006"])));
    expect(error.code).toBe("cache_inaccessible");
    expect(error.message).toContain(
      `the token cache ${dir} belongs to another user (uid ${statSync(dir).uid}, not yours: ${uid})`,
    );
    expect(error.message).toContain("use a directory of your own, or set HELPDESK_TOKEN_CACHE_DIR");
    expect(statSync(dir).mode).toBe(before);
    if (asRoot) expect(readdirSync(dir)).toEqual([]);
  });

  it("refuses a wider directory of yours that holds other files (say $HOME), and does not chmod it", () => {
    const dir = cacheDir();
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, ".profile"), "");
    const error = cacheError(() => writeEntry(dir, entryOf(["refresh-token-root-0007"])));
    expect(error.code).toBe("cache_inaccessible");
    expect(error.message).toContain(
      `the token cache ${dir} is mode 0755 and holds other files (1, such as ".profile")`,
    );
    expect(error.message).toContain("point it at a folder of its own, or set HELPDESK_TOKEN_CACHE_DIR");
    expect(mode(dir)).toBe(0o755);
    expect(readdirSync(dir)).toEqual([".profile"]);
  });

  it("refuses a folder inside one every user may write to without the sticky bit, as named or behind a link; a sticky one like /tmp is fine", () => {
    const top = join(cacheDir(), "..");
    const open = join(top, "open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    const dir = join(open, "tokens");
    const error = cacheError(() => writeEntry(dir, entryOf(["refresh-token-root-0009"])));
    expect(error.code).toBe("cache_inaccessible");
    expect(error.message).toBe(
      `the token cache ${dir} is inside ${open}, which every user may write to (mode 0777, no sticky bit): they could rename the cache folder and put another ` +
        "(or a symbolic link) in its place: use a folder inside folders only you or root can change, or set HELPDESK_TOKEN_CACHE_DIR to a private directory (a new path is created with mode 0700).",
    );
    expect(readdirSync(dir)).toEqual([]);
    // A folder reached through a link from a safe place: the folders above its real path count too.
    const sub = join(open, "sub");
    mkdirSync(join(sub, "tokens"), { recursive: true, mode: 0o700 });
    chmodSync(sub, 0o755);
    const link = join(top, "link");
    symlinkSync(sub, link);
    expect(
      cacheError(() => findEntry(refreshTokenHash("refresh-token-root-0009"), join(link, "tokens"))).message,
    ).toContain(`is inside ${open}, which every user may write to`);
    // With the sticky bit only an entry's owner may rename it: allowed, and so is the real /tmp.
    chmodSync(open, 0o1777);
    writeEntry(dir, entryOf(["refresh-token-root-0009"]));
    expect(readdirSync(dir)).toHaveLength(1);
    expect(statSync("/tmp").mode & 0o1002).toBe(0o1002);
    const inTmp = mkdtempSync("/tmp/helpdesk-cache-test-");
    dirs.push(inTmp);
    writeEntry(join(inTmp, "tokens"), entryOf(["refresh-token-root-0010"]));
  });

  it.skipIf(process.getuid?.() !== 0)(
    "refuses a folder inside one of another user's (not root's), who could rename it (chown needs root)",
    () => {
      const dir = cacheDir();
      const parent = join(dir, "..");
      chmodSync(parent, 0o755);
      chownSync(parent, 65534, 65534);
      const error = cacheError(() => writeEntry(dir, entryOf(["refresh-token-root-0011"])));
      expect(error.code).toBe("cache_inaccessible");
      expect(error.message).toContain(
        `the token cache ${dir} is inside ${parent}, which belongs to another user (uid 65534): they could rename the cache folder`,
      );
      expect(error.message).toContain("or set HELPDESK_TOKEN_CACHE_DIR");
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  // The audit's case c: another user's 0700 folder, opened as uid 65534, used to end in a raw EACCES from the cleanup.
  it.skipIf(process.getuid?.() !== 0)(
    "as another user (setpriv, needs root), a folder it cannot enter is cache_inaccessible, never a raw EACCES",
    () => {
      const dir = cacheDir();
      chmodSync(join(dir, ".."), 0o755);
      mkdirSync(dir, { mode: 0o700 });
      // The other user may not read this checkout (a clone under a 0700 folder): the module goes beside the cache
      // folder, whose parent it can search, as one bundled file.
      const module = join(dir, "..", "token-cache.cjs");
      buildSync({
        entryPoints: [fileURLToPath(new URL("../../dist/auth/token-cache.js", import.meta.url))],
        bundle: true,
        platform: "node",
        format: "cjs",
        keepNames: true,
        outfile: module,
        logLevel: "error",
      });
      chmodSync(module, 0o644);
      const script = `const { writeEntry } = require(${JSON.stringify(module)});
const { readFileSync } = require("node:fs");
try { writeEntry(process.argv[1], JSON.parse(readFileSync(0, "utf8"))); console.log("written"); }
catch (error) { console.log(JSON.stringify({ name: error.constructor.name, code: error.code, message: error.message })); }`;
      const run = spawnSync(
        "setpriv",
        ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "-e", script, dir],
        {
          cwd: join(dir, ".."), // Node.js looks for a package.json upwards from here
          encoding: "utf8",
          input: JSON.stringify(entryOf(["refresh-token-root-0008"])), // the tokens go on stdin, never on a command line
        },
      );
      expect(run.stderr).toBe("");
      const outcome = JSON.parse(run.stdout) as { name: string; code: string; message: string };
      expect(outcome).toMatchObject({ name: "TokenCacheError", code: "cache_inaccessible" });
      expect(outcome.message).toContain(`the token cache ${dir} belongs to another user (uid 0, not yours: 65534)`);
      expect(outcome.message).not.toContain("EACCES");
      expect(readdirSync(dir)).toEqual([]);
    },
  );
});

describe("durable writes and the index", () => {
  it("replaces the entry atomically, leaving no temp file", () => {
    const dir = cacheDir();
    const first = entryOf(["refresh-token-root-0005"]);
    writeEntry(dir, first);
    writeEntry(dir, entryOf(["refresh-token-root-0005", "refresh-token-next-0005"]));
    expect(readdirSync(dir)).toEqual([`${first.lineage}.json`]);
    expect(readEntry(dir, first.lineage)?.entry.refreshToken).toBe("refresh-token-next-0005");
  });

  it("finds a grant by any refresh token it ever had, and by no other", () => {
    const dir = cacheDir();
    const tokens = ["refresh-token-root-0006", "refresh-token-second-0006", "refresh-token-third-0006"];
    writeEntry(dir, entryOf(tokens));
    writeEntry(dir, entryOf(["refresh-token-other-grant-0006"]));
    for (const token of tokens) expect(findEntry(refreshTokenHash(token), dir)?.entry.refreshToken).toBe(tokens[2]);
    expect(findEntry(refreshTokenHash("refresh-token-never-seen-0006"), dir)).toBeUndefined();
  });

  it("keeps tokens out of file names: only hashes are keys", () => {
    const dir = cacheDir();
    writeEntry(dir, entryOf(["refresh-token-root-0007"]));
    expect(readdirSync(dir).join(" ")).not.toContain("refresh-token");
  });

  it("runs one holder of a grant's lock at a time", async () => {
    const dir = cacheDir();
    const order: string[] = [];
    const hold = (name: string) =>
      withGrantLock(dir, "0".repeat(32), async () => {
        order.push(`${name} in`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        order.push(`${name} out`);
      });
    await Promise.all([hold("a"), hold("b")]);
    expect(order).toSatisfy(
      (o: string[]) => o.join() === "a in,a out,b in,b out" || o.join() === "b in,b out,a in,a out",
    );
    expect(readdirSync(dir)).toEqual([]); // the lock is gone after release
  });

  it("takes over a lock left by a dead process once it is stale (10 s untouched)", async () => {
    const dir = cacheDir();
    const id = "1".repeat(32);
    mkdirSync(join(dir, `${id}.lock`), { recursive: true });
    const old = new Date(Date.now() - 11_000);
    utimesSync(join(dir, `${id}.lock`), old, old);
    const started = performance.now();
    expect(await withGrantLock(dir, id, async () => "held")).toBe("held");
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe("a damaged cache is an error that names the file", () => {
  const token = "refresh-token-damaged-0008";
  const damage: [string, (file: string, entry: CacheEntry) => void][] = [
    ["not JSON", (file) => writeFileSync(file, `{"accessToken": "${token}", truncated`)],
    ["the wrong shape", (file, entry) => writeFileSync(file, JSON.stringify({ ...entry, refreshTokenHashes: "x" }))],
    [
      "an index that does not match the refresh token",
      (file, entry) => writeFileSync(file, JSON.stringify({ ...entry, refreshToken: `${token}-edited` })),
    ],
    ["a newer format", (file, entry) => writeFileSync(file, JSON.stringify({ ...entry, format: 2 }))],
    ["an empty file", (file) => writeFileSync(file, "")],
  ];
  for (const [what, write] of damage) {
    it(`${what}: cache_damaged, the file named, what to do, no token in the message`, () => {
      const dir = cacheDir();
      const entry = entryOf([token], "access-token-damaged-0008");
      const file = writeEntry(dir, entry);
      write(file, entry);
      const error = cacheError(() => findEntry(refreshTokenHash(token), dir));
      expect(error.code).toBe("cache_damaged");
      expect(error.file).toBe(file);
      expect(error.message).toContain(file);
      expect(error.message).toMatch(/pulumi-helpdesk login --stack <stack>.*then delete/);
      expect(error.forStack("dev").message).toContain("pulumi-helpdesk login --stack dev");
      expect(error.message).not.toContain(token);
      expect(error.message).not.toContain("access-token-damaged");
      console.log(`  ${what}: ${error.message}`);
    });
  }

  it("a damaged file of another grant does not hide an intact match (index sets are disjoint)", () => {
    const dir = cacheDir();
    writeEntry(dir, entryOf(["refresh-token-intact-0009"]));
    const other = writeEntry(dir, entryOf(["refresh-token-other-0009"]));
    writeFileSync(other, "garbage");
    expect(findEntry(refreshTokenHash("refresh-token-intact-0009"), dir)?.entry.refreshToken).toBe(
      "refresh-token-intact-0009",
    );
    // ...but a token found nowhere intact might be in the damaged file: that is an error, not "no entry".
    expect(cacheError(() => findEntry(refreshTokenHash("refresh-token-unknown-0009"), dir)).file).toBe(other);
  });

  it("reads a missing entry as none", () => {
    const dir = cacheDir();
    expect(readEntry(dir, "2".repeat(32))).toBeUndefined();
    expect(findEntry(refreshTokenHash("x"), dir)).toBeUndefined();
    expect(entryFile(dir, "2".repeat(32))).toBe(join(dir, `${"2".repeat(32)}.json`));
  });
});
