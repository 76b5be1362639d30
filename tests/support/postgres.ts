/**
 * Test support: a throw-away PostgreSQL server from Debian's packages, for Pulumi's DIY PostgreSQL state backend.
 *
 * Each call of {@link startPostgres} creates its own cluster (`initdb`) in a new temporary directory, starts it with
 * `pg_ctl` on a free port of 127.0.0.1 (its unix socket in that directory too, never /var/run/postgresql), and
 * `stop()` stops it and removes the directory. PostgreSQL refuses to run as root: as root, every server command runs
 * as the `postgres` system user (`runuser -u postgres --`) on a directory owned by it; as any other user, as that user.
 *
 * Without PostgreSQL, suites skip locally and FAIL under `CI=true` (`scripts/setup.sh --test` installs it).
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { test } from "vitest";
import { freePort } from "./cli.js";

const exec = promisify(execFile);

/** The role and database the tests use (the role is the cluster's superuser; it owns the database). */
const ROLE = "pulumi";
const DATABASE = "pulumi_state";

/**
 * The directory of PostgreSQL's server programs: `$PG_BINDIR`, else Debian's `/usr/lib/postgresql/<newest>/bin`,
 * else undefined.
 */
export function postgresBinDir(): string | undefined {
  const fromEnv = process.env.PG_BINDIR;
  if (fromEnv) return existsSync(join(fromEnv, "initdb")) ? fromEnv : undefined;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], "bin");
}

/**
 * Tells whether a PostgreSQL server can be started here; under `CI=true` a missing one registers a failing test in
 * the calling file (a missing server is never a silent skip in CI).
 */
export function postgresAvailable(): boolean {
  const bin = postgresBinDir();
  const asRoot = process.getuid?.() === 0;
  const missing = !bin
    ? 'PostgreSQL\'s server programs are not installed (no /usr/lib/postgresql/<version>/bin/initdb, and PG_BINDIR is not set): install the Debian package "postgresql" (scripts/setup.sh --test does)'
    : asRoot && systemUser("postgres") === undefined
      ? 'running as root, but there is no `postgres` system user to run PostgreSQL as (the Debian package "postgresql" creates it)'
      : undefined;
  if (missing && process.env.CI === "true") {
    test("a PostgreSQL server can be started (required when CI=true)", () => {
      throw new Error(missing);
    });
  }
  if (missing) console.warn(`SKIPPING PostgreSQL suites: ${missing}`);
  return missing === undefined;
}

/** A running throw-away PostgreSQL server. */
export interface PostgresServer {
  /** The `PULUMI_BACKEND_URL` of Pulumi's DIY PostgreSQL backend for this server's database. */
  backendUrl: string;
  port: number;
  /** Runs one SQL statement with `psql` and returns its rows, one string per row, columns separated by `|`. */
  query(sql: string): Promise<string[]>;
  /** Stops the server (fast shutdown) and removes its directory. */
  stop(): Promise<void>;
}

/** uid and gid of a system user, from /etc/passwd. */
function systemUser(name: string): { uid: number; gid: number } | undefined {
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${name}:`));
  const [, , uid, gid] = line?.split(":") ?? [];
  return uid === undefined || gid === undefined ? undefined : { uid: Number(uid), gid: Number(gid) };
}

/**
 * Initializes and starts a cluster on 127.0.0.1 with one password-protected role and one database.
 *
 * The cluster trades durability for speed (`fsync=off`): it lives for one test file.
 *
 * @throws Error naming the step (initdb, pg_ctl start, createdb) and carrying its output and the server log
 */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL is not installed (see postgresAvailable)");
  const owner = process.getuid?.() === 0 ? systemUser("postgres") : undefined;
  const dir = mkdtempSync(join(tmpdir(), "helpdesk-pg-"));
  const data = join(dir, "data");
  const log = join(dir, "server.log");
  const password = randomBytes(12).toString("hex");
  writeFileSync(join(dir, "password"), password, { mode: 0o600 });
  if (owner) for (const path of [dir, join(dir, "password")]) chownSync(path, owner.uid, owner.gid);

  /** Runs a PostgreSQL program as the cluster's owner. */
  const run = async (program: string, args: string[], timeoutMs = 60_000): Promise<string> => {
    const [command, argv] = owner
      ? ["runuser", ["-u", "postgres", "--", join(bin, program), ...args]]
      : [join(bin, program), args];
    try {
      // Checkpoints are large (hundreds of kilobytes each, as base64): room for many in one answer.
      return (
        await exec(command, argv, { cwd: dir, timeout: timeoutMs, encoding: "utf8", maxBuffer: 512 * 1024 * 1024 })
      ).stdout;
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string; message: string };
      const serverLog = existsSync(log) ? readFileSync(log, "utf8").slice(-2000) : "";
      const output = `${e.stdout ?? ""}${e.stderr ?? ""}`.slice(-2000);
      throw new Error(
        `${program} ${args[0] ?? ""} failed: ${e.message.split("\n")[0]}\n${output}${serverLog ? `\n--- server log\n${serverLog}` : ""}`,
      );
    }
  };
  const stop = async (): Promise<void> => {
    if (existsSync(join(data, "postmaster.pid")))
      await run("pg_ctl", ["stop", "-D", data, "-m", "fast", "-w", "-t", "30"]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    // Password authentication over TCP (what Pulumi uses), trust over the socket in this private directory.
    await run("initdb", [
      "-D",
      data,
      "-U",
      ROLE,
      `--pwfile=${join(dir, "password")}`,
      "--auth-host=scram-sha-256",
      "--auth-local=trust",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync",
    ]);
    let port = 0;
    for (let attempt = 1; ; attempt++) {
      // A port that was free a moment ago may be taken by the time the server binds it: try another.
      port = await freePort();
      const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c full_page_writes=off`;
      try {
        await run("pg_ctl", ["start", "-D", data, "-l", log, "-w", "-t", "60", "-o", options]);
        break;
      } catch (error) {
        if (attempt >= 3) throw error;
      }
    }
    const psql = (sql: string, database = DATABASE) =>
      run("psql", [
        "-h",
        dir,
        "-p",
        String(port),
        "-U",
        ROLE,
        "-d",
        database,
        "-v",
        "ON_ERROR_STOP=1",
        "-At",
        "-c",
        sql,
      ]);
    await psql(`CREATE DATABASE ${DATABASE}`, "postgres");
    return {
      // lib/pq (Pulumi's driver) defaults to sslmode=require; this local server has no TLS.
      backendUrl: `postgres://${ROLE}:${password}@127.0.0.1:${port}/${DATABASE}?sslmode=disable`,
      port,
      query: async (sql) => (await psql(sql)).split("\n").filter(Boolean),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
