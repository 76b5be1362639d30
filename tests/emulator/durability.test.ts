/**
 * Durability of the SQLite data file (issue 12): nothing acknowledged is lost when the emulator process is killed
 * (SIGKILL, real processes of the built CLI: run `bash scripts/build.sh` first), a version-1 JSON data file is
 * imported once and kept, an unknown or damaged file is refused and left unchanged, two emulators share one file,
 * the delivery log is bounded per account, dead entries are purged at start, and a failed commit is never
 * acknowledged.
 */

import { readdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, test } from "vitest";
import type { EmulatorOptions, RunningEmulator } from "../../emulator/index.js";
import { DataFileError, DEFAULT_CLIENT, StoreError, startEmulator } from "../../emulator/index.js";
import { hashPassword, sha256 } from "../../emulator/secrets.js";
import { CODE_TTL_MS } from "../../emulator/store/codes.js";
import { GroupCommit } from "../../emulator/store/commits.js";
import { SCHEMA_VERSION } from "../../emulator/store/schema.js";
import { DEAD_TOKEN_RETENTION_MS } from "../../emulator/store/tokens.js";
import { required } from "../../kernel/required.js";
import { waitFor } from "../../scripts/lib/processes.ts";
import { testTempDir } from "../support/temp.js";
import { bearer, type EmulatorProcess, exchange, getCode, http, login, loginAs, spawnEmulator } from "./helpers.js";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function dataFile(name = "helpdesk.db"): Promise<string> {
  return join(testTempDir("helpdesk-durability-"), name);
}
async function emulator(options: EmulatorOptions): Promise<RunningEmulator> {
  const e = await startEmulator({ autoApprove: true, notice: () => undefined, ...options });
  cleanups.push(() => e.close());
  return e;
}
async function emulatorProcess(file: string, umask?: string): Promise<EmulatorProcess> {
  const p = await spawnEmulator(["--data", file], umask);
  cleanups.push(() => p.stop("SIGKILL"));
  return p;
}
const createHook = (base: string, token: string, url = "https://x.test/hook") =>
  http(`${base}/v1/webhooks`, { method: "POST", headers: bearer(token), json: { event: "ticket_opened", url } });
const heldIds = async (base: string) =>
  ((await http(`${base}/_emulator/webhooks`)).json.webhooks as Array<{ id: string }>).map((w) => w.id);
/** Reads a data file with a connection of its own (read-only), alongside any emulator using it. */
function query<T>(file: string, sql: string): T[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

describe("SIGKILL right after the last 201: every acknowledged change is there after a restart", () => {
  test("3 rounds of 20 webhooks (10 one after another, 10 at once), each checked with DELETE → 204 and its own token", async () => {
    const file = await dataFile();
    let running = await emulatorProcess(file);
    const rounds: Array<{ token: string; ids: string[] }> = [];
    for (let round = 0; round < 3; round++) {
      const token = (await login(running.url)).access_token;
      const ids: string[] = [];
      const killed = new Promise<void>((resolve) => running.child.once("exit", () => resolve()));
      const create = async (i: number) => {
        const res = await createHook(running.url, token, `https://x.test/${round}/${i}`);
        expect(res.status).toBe(201);
        ids.push(res.json.webhook.id);
        if (ids.length === 20) running.child.kill("SIGKILL"); // at once, in the callback of the last 201
      };
      for (let i = 0; i < 10; i++) await create(i);
      await Promise.all(Array.from({ length: 10 }, (_, i) => create(10 + i)));
      await killed;
      rounds.push({ token, ids });
      running = await emulatorProcess(file);
      expect(new Set(await heldIds(running.url))).toEqual(new Set(rounds.flatMap((r) => r.ids)));
    }
    // Every token still works (it was acknowledged too), and so does every webhook: DELETE each → 204.
    for (const { token, ids } of rounds) {
      for (const id of ids)
        expect(
          (await http(`${running.url}/v1/webhooks/${id}`, { method: "DELETE", headers: bearer(token) })).status,
        ).toBe(204);
    }
    expect(await heldIds(running.url)).toEqual([]);
  });

  test("a delivery running when the process is killed is closed by the next start: ok false, the reason logged", async () => {
    const file = await dataFile();
    const silent = await receiver(() => undefined); // takes the request, never answers
    const a = await emulatorProcess(file);
    const token = (await login(a.url)).access_token;
    const hook = (await createHook(a.url, token, silent.url)).json.webhook.id as string;
    expect((await http(`${a.url}/_emulator/events`, { method: "POST", json: { event: "ticket_opened" } })).status).toBe(
      202,
    );
    await waitFor("the delivery attempt", () => silent.requests() === 1, 5000);
    await a.stop("SIGKILL");
    const b = await emulatorProcess(file);
    const [entry] = (await http(`${b.url}/_emulator/deliveries`)).json.deliveries;
    expect(entry).toMatchObject({
      webhookId: hook,
      done: true,
      ok: false,
      error: "emulator stopped before the delivery finished",
    });
  });
});

/** A receiver on 127.0.0.1 whose handling of each request is `answer` (which may never answer). */
async function receiver(
  answer: (res: import("node:http").ServerResponse) => void,
): Promise<{ url: string; requests(): number }> {
  let count = 0;
  const server: Server = createServer((req, res) => {
    count++;
    req.resume();
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, requests: () => count };
}

describe("a version-1 JSON data file is imported once and kept", () => {
  const access = "v1-access-token-0123456789abcdefghijklmnopqrstu";
  const refresh = "v1-refresh-token-0123456789abcdefghijklmnopqrst";
  const time = "2026-01-02T03:04:05.000Z";
  const client = { clientId: DEFAULT_CLIENT.clientId, redirectUri: DEFAULT_CLIENT.redirectUri };
  const grant = { ...client, account: "demo", grantId: "grant_v1" };
  /** A file as the JSON store of the previous emulator wrote it (before commit 6a1ad81: `JSON.stringify(state, null, 1)` in `store.ts`, written by `persist.ts`). */
  function v1File(): string {
    const later = Date.now() + 3600_000;
    return JSON.stringify(
      {
        version: 1,
        clients: [{ ...client, secretHash: sha256(DEFAULT_CLIENT.clientSecret), name: "demo" }],
        accounts: [
          { username: "demo", passwordHash: hashPassword("demo") },
          { username: "alice", passwordHash: hashPassword("wonderland") },
        ],
        codes: [
          {
            hash: sha256("a-used-code"),
            ...client,
            account: "demo",
            expiresAt: later,
            usedAt: Date.now(),
            grantId: "grant_v1",
          },
        ],
        tokens: [
          { hash: sha256(access), kind: "access", ...grant, expiresAt: later, revoked: false },
          { hash: sha256(refresh), kind: "refresh", ...grant, revoked: false },
          { hash: sha256("an-old-refresh-token"), kind: "refresh", ...grant, revoked: true },
        ],
        webhooks: [
          {
            id: "wh_v1v1v1v1v1v1v1v1",
            event: "ticket_opened",
            url: "https://x.test/v1",
            state: "active",
            account: "demo",
            createdAt: time,
          },
        ],
        deliveries: [
          {
            id: "dlv_done",
            time,
            webhookId: "wh_v1v1v1v1v1v1v1v1",
            event: "ticket_opened",
            url: "https://x.test/v1",
            account: "demo",
            status: 200,
            attempts: 1,
            ok: true,
            done: true,
          },
          {
            id: "dlv_running",
            time,
            webhookId: "wh_v1v1v1v1v1v1v1v1",
            event: "ticket_opened",
            url: "https://x.test/v1",
            account: "demo",
            status: 503,
            attempts: 2,
            ok: false,
            done: false,
            error: "receiver responded with HTTP 503",
          },
        ],
      },
      null,
      1,
    );
  }

  test("imported into an SQLite database at the same path; the JSON kept byte for byte as <file>.v1.json; said once", async () => {
    const file = await dataFile("helpdesk.json");
    const original = v1File();
    await writeFile(file, original);
    const notices: string[] = [];
    const a = await startEmulator({ dataFile: file, notice: (line) => notices.push(line) });
    expect(notices).toEqual([
      expect.stringMatching(
        /helpdesk\.json: imported the version-1 JSON data file \(1 clients, 2 accounts, 1 webhooks, 3 tokens, 1 codes, 2 deliveries\).*kept unchanged as .*helpdesk\.json\.v1\.json/,
      ),
    ]);
    expect(await readFile(`${file}.v1.json`, "utf8")).toBe(original);
    expect((await readFile(file)).subarray(0, 16).toString("latin1")).toBe("SQLite format 3\0");
    expect(query<{ user_version: number }>(file, "PRAGMA user_version")[0]?.user_version).toBe(SCHEMA_VERSION);
    // Everything came along: the webhook, the tokens (a clear token still works), the passwords, the delivery log.
    expect(await heldIds(a.url)).toEqual(["wh_v1v1v1v1v1v1v1v1"]);
    const created = await createHook(a.url, access);
    expect(created.status).toBe(201);
    const refreshed = await http(`${a.url}/oauth/token`, {
      method: "POST",
      form: {
        grant_type: "refresh_token",
        refresh_token: refresh,
        client_id: DEFAULT_CLIENT.clientId,
        client_secret: DEFAULT_CLIENT.clientSecret,
      },
    });
    expect(refreshed.status).toBe(200);
    expect((await loginAs(a.url, "alice", "wonderland")).access_token).toBeTruthy();
    const log = (await http(`${a.url}/_emulator/deliveries`)).json.deliveries;
    expect(log).toEqual([
      expect.objectContaining({ id: "dlv_done", ok: true, done: true, status: 200 }),
      // It was running when the old emulator stopped: closed, its last error kept.
      expect.objectContaining({ id: "dlv_running", ok: false, done: true, error: "receiver responded with HTTP 503" }),
    ]);
    await a.close();
    expect((await readdir(join(file, ".."))).sort()).toEqual(["helpdesk.json", "helpdesk.json.v1.json"]);

    // Once: the next start opens the database, says nothing, and keeps what the first one added.
    notices.length = 0;
    const b = await emulator({ dataFile: file, notice: (line) => notices.push(line) });
    expect(notices).toEqual([]);
    expect(await heldIds(b.url)).toEqual(["wh_v1v1v1v1v1v1v1v1", created.json.webhook.id]);
    expect(await readFile(`${file}.v1.json`, "utf8")).toBe(original);
  });

  test("the CLI says so on stderr", async () => {
    const file = await dataFile("state.json");
    await writeFile(file, v1File());
    const p = await emulatorProcess(file);
    expect(p.stderr()).toMatch(
      /state\.json: imported the version-1 JSON data file .* kept unchanged as .*state\.json\.v1\.json/,
    );
    expect(await heldIds(p.url)).toEqual(["wh_v1v1v1v1v1v1v1v1"]);
  });

  test("a name taken by another file: refused, nothing changed", async () => {
    const file = await dataFile("helpdesk.json");
    const original = v1File();
    await writeFile(file, original);
    await writeFile(`${file}.v1.json`, "something else");
    await expect(startEmulator({ dataFile: file, notice: () => undefined })).rejects.toThrow(
      /helpdesk\.json\.v1\.json, where it would be kept, exists with other content/,
    );
    expect(await readFile(file, "utf8")).toBe(original);
    expect((await readdir(join(file, ".."))).sort()).toEqual(["helpdesk.json", "helpdesk.json.v1.json"]);
  });
});

describe("a file that is neither, or damaged, is refused with its name and what is wrong, and never changed", () => {
  const valid = { version: 1, clients: [], accounts: [], codes: [], tokens: [], webhooks: [], deliveries: [] };
  /** A database written by the emulator, with a few webhooks (several pages). */
  async function emulatorDatabase(): Promise<{ file: string; bytes: Buffer }> {
    const file = await dataFile();
    const e = await startEmulator({ autoApprove: true, dataFile: file, notice: () => undefined });
    const token = (await login(e.url)).access_token;
    for (let i = 0; i < 200; i++) await createHook(e.url, token, `https://x.test/${"p".repeat(200)}/${i}`);
    await e.close();
    return { file, bytes: await readFile(file) };
  }
  /** A version-1 JSON data file: {@link valid} with `changes`. */
  const version1 = (changes: Record<string, unknown>) => async (): Promise<{ file: string; bytes: Buffer }> => ({
    file: await dataFile(),
    bytes: Buffer.from(JSON.stringify({ ...valid, ...changes })),
  });
  const cases: Array<[string, () => Promise<{ file: string; bytes: Buffer }>, RegExp]> = [
    [
      "text that is neither",
      async () => ({ file: await dataFile(), bytes: Buffer.from("webhooks:\n  - ticket_opened\n") }),
      /it is neither an SQLite database nor a version-1 JSON data file \(it begins with "webhooks:/,
    ],
    [
      "truncated JSON",
      async () => ({ file: await dataFile(), bytes: Buffer.from(JSON.stringify(valid, null, 1).slice(0, 40)) }),
      /it looks like a version-1 JSON data file but is damaged: not valid JSON/,
    ],
    [
      "JSON of another version",
      async () => ({ file: await dataFile(), bytes: Buffer.from('{"version":99}') }),
      /JSON data file of unsupported version 99/,
    ],
    [
      "JSON without a version",
      async () => ({ file: await dataFile(), bytes: Buffer.from("[1,2,3]") }),
      /neither .* \(JSON without a "version"\)/,
    ],
    [
      "a version-1 file with values of the wrong type",
      version1({
        webhooks: [{ id: "wh_1", event: "ticket_opened", url: 5, state: "active", account: "demo", createdAt: "x" }],
        tokens: [{ hash: "h", kind: "access", clientId: "c", account: "a", grantId: "g", revoked: "no" }],
      }),
      /version-1 JSON data file with invalid content: tokens\.0\.revoked: .*; webhooks\.0\.url: /,
    ],
    [
      "a version-1 file with an unknown event",
      version1({
        webhooks: [
          {
            id: "wh_1",
            event: "ticket_exploded",
            url: "https://x.test",
            state: "active",
            account: "demo",
            createdAt: "x",
          },
        ],
      }),
      /webhooks\.0\.event/,
    ],
    [
      "a database with a damaged page",
      async () => {
        const { file, bytes } = await emulatorDatabase();
        bytes.fill(0xab, 4096 * 3, 4096 * 4);
        return { file, bytes };
      },
      /it is a damaged SQLite database/,
    ],
    [
      "a truncated database",
      async () => {
        const { file, bytes } = await emulatorDatabase();
        return { file, bytes: bytes.subarray(0, Math.floor(bytes.length / 2)) };
      },
      /it is a damaged SQLite database/,
    ],
    [
      "a database of another program",
      async () => {
        const file = await dataFile();
        const db = new DatabaseSync(file);
        db.exec("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine')");
        db.close();
        return { file, bytes: await readFile(file) };
      },
      /it is an SQLite database of another program \(application_id 0,/,
    ],
    [
      "a database of a newer emulator",
      async () => {
        const { file } = await emulatorDatabase();
        const db = new DatabaseSync(file);
        db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
        db.close();
        return { file, bytes: await readFile(file) };
      },
      new RegExp(
        `written by a newer emulator \\(schema version ${SCHEMA_VERSION + 1}; this one knows versions up to ${SCHEMA_VERSION}\\)`,
      ),
    ],
  ];
  for (const [what, make, reason] of cases) {
    test(what, async () => {
      const { file, bytes } = await make();
      await writeFile(file, bytes);
      const before = (await readdir(join(file, ".."))).sort();
      const error = await startEmulator({ dataFile: file, notice: () => undefined }).then(
        (e) => e.close().then(() => expect.unreachable("it started")),
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(DataFileError);
      expect((error as DataFileError).file).toBe(file);
      expect((error as Error).message).toContain(`emulator data file ${file}: `);
      expect((error as Error).message).toMatch(reason);
      expect((error as Error).message).toMatch(/the file was left unchanged$/);
      expect((await readFile(file)).equals(bytes)).toBe(true);
      expect((await readdir(join(file, ".."))).sort()).toEqual(before);
    });
  }

  test("the CLI exits 1 with the error on stderr", async () => {
    const file = await dataFile("notes.txt");
    await writeFile(file, "my notes\n");
    await expect(spawnEmulator(["--data", file])).rejects.toThrow(
      /code 1[\s\S]*error: emulator data file .*notes\.txt: it is neither an SQLite database/,
    );
    expect(await readFile(file, "utf8")).toBe("my notes\n");
  });
});

describe("two emulators on one data file both work", () => {
  test("each sees the other's changes at once; tokens and webhooks are shared; both survive SIGKILL", async () => {
    const file = await dataFile();
    const [a, b] = [await emulatorProcess(file), await emulatorProcess(file)];
    const token = (await login(a.url)).access_token;
    const created = await Promise.all(
      Array.from({ length: 40 }, (_, i) => createHook(i % 2 ? a.url : b.url, token, `https://x.test/${i}`)),
    );
    expect(created.map((r) => r.status)).toEqual(Array(40).fill(201));
    const ids = created.map((r) => r.json.webhook.id as string);
    expect(new Set(await heldIds(a.url))).toEqual(new Set(ids));
    expect(new Set(await heldIds(b.url))).toEqual(new Set(ids));
    // Created at one, deleted at the other (each DELETE once: the second sees it gone).
    for (const [i, id] of ids.slice(0, 10).entries()) {
      expect(
        (await http(`${(i % 2 ? b : a).url}/v1/webhooks/${id}`, { method: "DELETE", headers: bearer(token) })).status,
      ).toBe(204);
      expect(
        (await http(`${(i % 2 ? a : b).url}/v1/webhooks/${id}`, { method: "DELETE", headers: bearer(token) })).status,
      ).toBe(404);
    }
    await a.stop("SIGKILL");
    const late = await createHook(b.url, token);
    expect(late.status).toBe(201);
    await b.stop("SIGKILL");
    const c = await emulatorProcess(file);
    expect(new Set(await heldIds(c.url))).toEqual(new Set([...ids.slice(10), late.json.webhook.id]));
  });

  test("a code exchanged at both at once: one wins, the other is a reuse, which revokes the winner's tokens", async () => {
    const file = await dataFile();
    const [a, b] = [await emulatorProcess(file), await emulatorProcess(file)];
    for (let round = 0; round < 5; round++) {
      const code = await getCode(a.url);
      const answers = await Promise.all([exchange(a.url, code), exchange(b.url, code)]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 400]);
      const winner = required(
        answers.find((r) => r.status === 200),
        "the response that won",
      ).json.access_token as string;
      expect(answers.find((r) => r.status === 400)?.json.error).toBe("invalid_grant");
      for (const e of [a, b])
        expect((await createHook(e.url, winner)).json.error_description).toBe("The access token has been revoked");
    }
  });

  test("a delivery running at one is not closed by the other starting; it ends ok at the one that runs it", async () => {
    const file = await dataFile();
    let release: () => void = () => undefined;
    const slow = await receiver((res) => (release = () => res.writeHead(200).end()));
    const a = await emulatorProcess(file);
    const token = (await login(a.url)).access_token;
    await createHook(a.url, token, slow.url);
    await http(`${a.url}/_emulator/events`, { method: "POST", json: { event: "ticket_opened" } });
    await waitFor("the delivery attempt", () => slow.requests() === 1, 5000);
    const b = await emulatorProcess(file);
    expect((await http(`${b.url}/_emulator/deliveries`)).json.deliveries).toEqual([
      expect.objectContaining({ done: false }),
    ]);
    release();
    await waitFor(
      "the delivery to end",
      async () => (await http(`${b.url}/_emulator/deliveries`)).json.deliveries[0].done,
      5000,
    );
    expect((await http(`${b.url}/_emulator/deliveries`)).json.deliveries).toEqual([
      expect.objectContaining({ done: true, ok: true, status: 200 }),
    ]);
  });
});

describe("bounds and purging", () => {
  test("the delivery log keeps the newest deliveryLogLimit entries of each account; a lower limit trims at start", async () => {
    const file = await dataFile();
    const accounts = [
      { username: "demo", password: "demo" },
      { username: "other", password: "other" },
    ];
    const sink = await receiver((res) => res.writeHead(204).end());
    const e = await emulator({ dataFile: file, accounts, autoApprove: false, deliveryLogLimit: 3 });
    for (const { username, password } of accounts) {
      const token = (await loginAs(e.url, username, password)).access_token;
      await createHook(e.url, token, sink.url);
    }
    const trigger = async (account: string) =>
      (await http(`${e.url}/_emulator/events`, { method: "POST", json: { event: "ticket_opened", account } })).json
        .deliveries[0] as string;
    const demo: string[] = [];
    for (let i = 0; i < 5; i++) demo.push(await trigger("demo"));
    const other = [await trigger("other"), await trigger("other")];
    await waitFor("7 deliveries", () => sink.requests() === 7, 5000);
    const logged = async (base: string, account: string) =>
      ((await http(`${base}/_emulator/deliveries?account=${account}`)).json.deliveries as Array<{ id: string }>).map(
        (d) => d.id,
      );
    expect(await logged(e.url, "demo")).toEqual(demo.slice(-3));
    expect(await logged(e.url, "other")).toEqual(other);
    expect(e.state().deliveries).toBe(5);
    await e.close();
    cleanups.pop();
    const f = await emulator({ dataFile: file, accounts, deliveryLogLimit: 1 });
    expect(await logged(f.url, "demo")).toEqual(demo.slice(-1));
    expect(await logged(f.url, "other")).toEqual(other.slice(-1));
  });

  test("dead tokens and codes are purged from the file at start; live ones stay", async () => {
    const file = await dataFile();
    let now = Date.now();
    const a = await startEmulator({
      autoApprove: true,
      dataFile: file,
      now: () => now,
      accessTokenTtlSeconds: 60,
      notice: () => undefined,
    });
    for (let i = 0; i < 3; i++) await login(a.url);
    await getCode(a.url); // never exchanged
    await a.close();
    const count = (sql: string) => required(query<{ n: number }>(file, sql)[0], `the row of ${sql}`).n;
    expect([
      count("SELECT count(*) AS n FROM tokens WHERE kind = 'access'"),
      count("SELECT count(*) AS n FROM codes"),
    ]).toEqual([3, 4]);
    now += 60_000 + DEAD_TOKEN_RETENTION_MS + 2 * CODE_TTL_MS;
    const b = await emulator({ dataFile: file, now: () => now });
    expect([
      count("SELECT count(*) AS n FROM tokens WHERE kind = 'access'"),
      count("SELECT count(*) AS n FROM codes"),
    ]).toEqual([0, 0]);
    expect(count("SELECT count(*) AS n FROM tokens WHERE kind = 'refresh'")).toBe(3); // refresh tokens do not expire
    expect(b.state().tokens).toHaveLength(3);
  });

  test("the data file is readable by its owner only, as the JSON file was", async () => {
    const file = await dataFile();
    await emulator({ dataFile: file });
    const { statSync } = await import("node:fs");
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test("the folders it creates for the data file are private (0700) even under umask 000; existing ones are kept", async () => {
    const { mkdirSync, statSync } = await import("node:fs");
    const existing = testTempDir("helpdesk-durability-");
    mkdirSync(join(existing, "shared"), { mode: 0o755 });
    const file = join(existing, "shared", "nested", "dir", "helpdesk.db");
    const p = await emulatorProcess(file, "000");
    const mode = (path: string) => statSync(path).mode & 0o777;
    expect([mode(join(existing, "shared", "nested")), mode(join(existing, "shared", "nested", "dir"))]).toEqual([
      0o700, 0o700,
    ]);
    expect(mode(join(existing, "shared"))).toBe(0o755);
    expect(mode(file)).toBe(0o600);
    await p.stop();
  });
});

describe("a change that does not reach the file is never acknowledged", () => {
  test("a failed commit: the response is 500, the webhook absent, the notice told; the next request works", async () => {
    const file = await dataFile();
    const notices: string[] = [];
    const e = await emulator({ dataFile: file, notice: (line) => notices.push(line) });
    const token = (await login(e.url)).access_token;
    // From outside: a trigger that makes the commit of a webhook with /poison in its URL fail (a deferred foreign key).
    const db = new DatabaseSync(file);
    db.exec(`
      CREATE TABLE parent (id INTEGER PRIMARY KEY);
      CREATE TABLE child (parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);
      CREATE TRIGGER poison AFTER INSERT ON webhooks WHEN NEW.url LIKE '%/poison%' BEGIN INSERT INTO child VALUES (42); END;
    `);
    db.close();
    const failed = await createHook(e.url, token, "https://x.test/poison");
    expect(failed.status).toBe(500);
    expect(failed.json).toEqual({
      error: "internal_error",
      message: expect.stringMatching(/could not be committed .*FOREIGN KEY.*did not take effect/),
    });
    expect(failed.headers.location).toBeUndefined();
    expect(await heldIds(e.url)).toEqual([]);
    expect(notices).toEqual([expect.stringContaining("could not be committed")]);
    expect((await createHook(e.url, token)).status).toBe(201);
  });

  test("the write lock held by another process past the busy timeout: 503 with Retry-After, nothing changed", async () => {
    const file = await dataFile();
    const e = await emulator({ dataFile: file });
    const token = (await login(e.url)).access_token;
    const holder = new DatabaseSync(file);
    holder.exec("BEGIN IMMEDIATE");
    try {
      const res = await createHook(e.url, token);
      expect(res.status).toBe(503);
      expect(res.headers["retry-after"]).toBe("1");
      expect(res.json).toEqual({
        error: "service_unavailable",
        message: expect.stringContaining("is locked by another process"),
      });
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }
    expect(await heldIds(e.url)).toEqual([]);
    expect((await createHook(e.url, token)).status).toBe(201);
  });
});

describe("GroupCommit", () => {
  function database(file: string): DatabaseSync {
    const db = new DatabaseSync(file, { timeout: 50 });
    db.exec("PRAGMA journal_mode = WAL; CREATE TABLE IF NOT EXISTS t (v TEXT NOT NULL)");
    return db;
  }

  test("the changes of one turn share one commit; others see them once it is done", async () => {
    const file = await dataFile();
    const db = database(file);
    const other = database(file);
    const commits = new GroupCommit(db, "test db", () => undefined);
    const mark = commits.mark();
    commits.write(() => db.prepare("INSERT INTO t VALUES ('a')").run());
    commits.write(() => db.prepare("INSERT INTO t VALUES ('b')").run());
    expect(db.isTransaction).toBe(true);
    expect(other.prepare("SELECT count(*) AS n FROM t").get()?.n).toBe(0);
    await commits.committed(mark);
    expect(db.isTransaction).toBe(false);
    expect(other.prepare("SELECT count(*) AS n FROM t").get()?.n).toBe(2);
    other.close();
    db.close();
  });

  test("a change that throws is rolled back alone; the rest of its turn commits", async () => {
    const db = database(await dataFile());
    const commits = new GroupCommit(db, "test db", () => undefined);
    const mark = commits.mark();
    commits.write(() => db.prepare("INSERT INTO t VALUES ('kept')").run());
    expect(() =>
      commits.write(() => {
        db.prepare("INSERT INTO t VALUES ('dropped')").run();
        db.prepare("INSERT INTO t VALUES (NULL)").run(); // NOT NULL
      }),
    ).toThrow(/NOT NULL/);
    await commits.committed(mark);
    expect(
      db
        .prepare("SELECT v FROM t")
        .all()
        .map((r) => r.v),
    ).toEqual(["kept"]);
    db.close();
  });

  test("a failed commit fails every waiting answer of its turn, not those of later turns", async () => {
    const db = database(await dataFile());
    db.exec(
      "CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (p INTEGER REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED)",
    );
    const failures: StoreError[] = [];
    const commits = new GroupCommit(db, "test db", (error) => failures.push(error));
    const mark = commits.mark();
    commits.write(() => db.prepare("INSERT INTO t VALUES ('lost')").run());
    commits.write(() => db.prepare("INSERT INTO c VALUES (1)").run());
    const error = await commits.committed(mark).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({
      code: "commit",
      message: expect.stringMatching(/^test db: the changes could not be committed/),
    });
    expect(failures).toEqual([error]);
    expect(db.prepare("SELECT count(*) AS n FROM t").get()?.n).toBe(0);
    const later = commits.mark();
    commits.write(() => db.prepare("INSERT INTO t VALUES ('next')").run());
    await expect(commits.committed(later)).resolves.toBeUndefined();
    db.close();
  });

  test("the write lock held elsewhere past the busy timeout: StoreError busy, nothing begun", async () => {
    const file = await dataFile();
    const db = database(file);
    const holder = database(file);
    holder.exec("BEGIN IMMEDIATE");
    const commits = new GroupCommit(db, "test db", () => undefined);
    expect(() => commits.write(() => db.prepare("INSERT INTO t VALUES ('x')").run())).toThrow(
      expect.objectContaining({ code: "busy" }),
    );
    expect(db.isTransaction).toBe(false);
    holder.exec("ROLLBACK");
    commits.write(() => db.prepare("INSERT INTO t VALUES ('x')").run());
    commits.flush();
    expect(holder.prepare("SELECT count(*) AS n FROM t").get()?.n).toBe(1);
    holder.close();
    db.close();
  });
});
