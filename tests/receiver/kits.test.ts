/**
 * The receiver kits answer alike, over real HTTP on 127.0.0.1: the shared cases (receiver/cases.json) sent to five
 * receivers built with the three kits, each in a process of its own, as a service runs them: the TypeScript kit's
 * Node.js handler (`node:http`) and fetch handler (`@hono/node-server`), the Python kit's WSGI app (its `wsgiref`
 * server) and ASGI app (a small asyncio server of the test's, since the standard library has none), and the Go kit's
 * `net/http` handler (built with `go build`). Each answers each case with its status and error code (and the field of
 * an invalid record), and reports each accepted delivery with the same typed fields. And no token, accepted or not,
 * appears in any answer (body or header) nor in anything a receiver printed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningProcess, startProcess, waitFor } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { go } from "../support/go.js";
import { onPath, toolAvailable } from "../support/tools.js";
import {
  acceptedTokens,
  allTokens,
  bodyOf,
  type Case,
  casesFile,
  type DeliverySummary,
  targetOf,
} from "./support/cases.ts";

/** An answer as the client got it. */
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A body above which a refusal must come before the body is sent (see {@link send}). */
const UNREAD_BODY = 256 * 1024;

/**
 * Sends one case on a connection of its own, with exactly its headers (Content-Length, and Content-Type when it has
 * one) and body bytes. A case refused for what its headers say (its url, its method, its declared length) with a body
 * over {@link UNREAD_BODY} gets its headers only: the answer must come without any of the body, which proves it was
 * not read, and spares the connection the reset a receiver closing on an unread body would cause while it is sent.
 *
 * @returns the answer
 */
function send(port: number, test: Case): Promise<Answer> {
  const body = bodyOf(test);
  const headers: Record<string, string> = {};
  if (test.method !== "GET") headers["content-length"] = String(body.length);
  if (test.contentType !== undefined) headers["content-type"] = test.contentType;
  const unread = test.expect.status !== 204 && body.length > UNREAD_BODY;
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method: test.method, path: targetOf(test), headers, agent: false });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") });
        if (unread) req.destroy();
      });
      res.on("error", reject);
    });
    req.on("error", (error) => reject(new Error(`${test.name}: ${error.message}`)));
    if (unread) req.flushHeaders();
    else req.end(test.method === "GET" ? undefined : body);
  });
}

/** A receiver under test: how it is started. */
interface Kit {
  name: string;
  start: (dir: string) => Promise<RunningProcess>;
  available: () => boolean;
}

const receiverEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  RECEIVER_TOKENS: acceptedTokens.join(","),
  PYTHONPATH: join(repoRoot, "receiver", "python"),
  PYTHONDONTWRITEBYTECODE: "1",
});

const typescriptServer = join(repoRoot, "tests", "receiver", "servers", "typescript.ts");
const pythonServer = join(repoRoot, "receiver", "python", "tests", "serve.py");
const goServer = join(repoRoot, "tests", "receiver", "servers", "go");

const KITS: Kit[] = [
  {
    name: "TypeScript, Node.js handler",
    available: () => true,
    start: async () => startProcess(process.execPath, [typescriptServer, "node"], { env: receiverEnv() }),
  },
  {
    name: "TypeScript, fetch handler",
    available: () => true,
    start: async () => startProcess(process.execPath, [typescriptServer, "fetch"], { env: receiverEnv() }),
  },
  {
    name: "Python, WSGI",
    available: () => onPath("python3"),
    start: async () => startProcess("python3", [pythonServer, "wsgi"], { env: receiverEnv() }),
  },
  {
    name: "Python, ASGI",
    available: () => onPath("python3"),
    start: async () => startProcess("python3", [pythonServer, "asgi"], { env: receiverEnv() }),
  },
  {
    name: "Go, net/http",
    available: () => onPath("go"),
    start: async (dir) => {
      const binary = join(dir, "receiver-server");
      await go(["build", "-o", binary, "."], goServer);
      return startProcess(binary, [], { env: receiverEnv() });
    },
  },
];

/** What a receiver printed for each accepted delivery. */
function deliveredLines(server: RunningProcess): DeliverySummary[] {
  return [...server.stdout().matchAll(/^delivered (.*)$/gm)].map(
    (match) => JSON.parse(match[1] ?? "") as DeliverySummary,
  );
}

describe("the receiver kits answer the shared cases alike over HTTP (receiver/cases.json)", () => {
  it("reads the cases (so that a pass below means something)", () => {
    expect(casesFile.cases.length).toBeGreaterThanOrEqual(40);
    expect(new Set(casesFile.cases.map((test) => test.expect.status))).toEqual(
      new Set([204, 400, 401, 405, 413, 415, 500]),
    );
  });

  for (const kit of KITS) {
    describe.skipIf(!toolAvailable(`${kit.name}'s tool`, kit.available()))(kit.name, () => {
      let server: RunningProcess;
      let port: number;
      const answers: Array<{ test: Case; answer: Answer }> = [];

      let dir: string;

      beforeAll(async () => {
        dir = mkdtempSync(join(tmpdir(), "helpdesk-receiver-"));
        server = await kit.start(dir);
        port = Number((await server.waitFor("stdout", /^listening (\d+)$/m, `${kit.name} listening`))[1]);
      }, 600_000);

      afterAll(async () => {
        await server?.stop();
        rmSync(dir, { recursive: true, force: true });
      });

      it("answers each case with its status, error code and field, and reports each delivery's typed fields", async () => {
        for (const test of casesFile.cases) {
          const before = deliveredLines(server).length;
          const answer = await send(port, test);
          answers.push({ test, answer });
          const expected = test.expect;
          expect({ case: test.name, status: answer.status }).toEqual({ case: test.name, status: expected.status });
          if (expected.status === 204) {
            expect(answer.body, test.name).toBe("");
            await waitFor(`${test.name}'s delivery`, () => deliveredLines(server).length > before, 10_000);
            expect({ case: test.name, delivered: deliveredLines(server)[before] }).toEqual({
              case: test.name,
              delivered: expected.delivered,
            });
          } else {
            expect(answer.headers["content-type"], test.name).toBe("application/json");
            const refusal = JSON.parse(answer.body) as { error: string; message: string; field?: string };
            expect({ case: test.name, error: refusal.error, field: refusal.field }).toEqual({
              case: test.name,
              error: expected.error,
              field: expected.field,
            });
            expect(refusal.message.length, test.name).toBeGreaterThan(0);
            if (expected.status === 405) expect(answer.headers.allow, test.name).toBe("POST");
            expect(deliveredLines(server).length, `${test.name}: handled by nothing`).toBe(before);
          }
        }
        expect(deliveredLines(server).length).toBe(casesFile.cases.filter((test) => test.expect.status === 204).length);
      }, 300_000);

      it("shows no token, accepted or not, in any answer or in anything it printed", async () => {
        expect(answers.length).toBe(casesFile.cases.length);
        await server.stop();
        const printed = server.output();
        // The receiver did print: its port, its deliveries, and the handler's failure (a check that reads nothing
        // would pass).
        expect(printed).toMatch(/^listening \d+$/m);
        expect(printed).toMatch(/^delivered /m);
        expect(printed).toMatch(/fail_the_handler/);
        for (const token of allTokens) {
          for (const { test, answer } of answers) {
            expect(answer.body.includes(token), `${test.name}: the body shows a token`).toBe(false);
            expect(JSON.stringify(answer.headers).includes(token), `${test.name}: a header shows a token`).toBe(false);
          }
          expect(printed.includes(token), "the receiver printed a token").toBe(false);
        }
      });
    });
  }
});
