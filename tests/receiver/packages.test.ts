/**
 * The receiver kits as a service installs them, with no Pulumi anywhere (scripts/release/receiver.ts):
 *
 * - the TypeScript kit's npm package, packed from the build, installed by `npm install` in a fresh project that
 *   has nothing else: it brings zod and nothing more; a TypeScript file that uses its types compiles against it; a
 *   server started from it (on this Node.js, and on Node.js 20 when `npm test` set one up) receives a delivery and
 *   refuses a forged one;
 * - the Python kit's wheel, built as the release builds it, installed with pip into a fresh virtualenv with no index:
 *   it needs no other distribution, and a WSGI server started from it, outside the repository, receives a delivery
 *   and refuses a forged one.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RECEIVER_PYTHON_DISTRIBUTION, RECEIVER_PYTHON_PACKAGE, receiverNpmPackage } from "../../kernel/names.js";
import { packageVersion } from "../../kernel/package-version.js";
import { startProcess } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { buildReceiverPython, packReceiverNpm, receiverNpmFiles } from "../../scripts/release/receiver.ts";
import { testTempDir } from "../support/temp.js";
import { onPath, toolAvailable } from "../support/tools.js";
import { bodyOf, casesFile, targetOf } from "./support/cases.ts";

const ticketCase = casesFile.cases.find((test) => test.query.startsWith("helpdesk_event=ticket_opened&"));
if (ticketCase === undefined) throw new Error("receiver/cases.json has no ticket_opened delivery");
const TOKEN = casesFile.tokens.A;
const version = packageVersion();

/** POSTs the ticket case to a receiver, then the same with another webhook's token; returns both statuses. */
async function deliverAndForge(port: number): Promise<[number, number]> {
  const post = (target: string): Promise<number> =>
    fetch(`http://127.0.0.1:${port}${target}`, {
      method: "POST",
      body: bodyOf(ticketCase as NonNullable<typeof ticketCase>),
      headers: { "content-type": "application/json" },
    }).then((response) => response.status);
  const target = targetOf(ticketCase as NonNullable<typeof ticketCase>);
  return [await post(target), await post(target.replace(TOKEN, casesFile.tokens.C))];
}

/** A service's program: a Node.js server with the kit's handler, printing its port and each delivery. */
const SERVICE = (name: string): string => `import { createServer } from "node:http";
import { createNodeHandler, DeliveryRouter } from "${name}";
const router = new DeliveryRouter().on("ticket_opened", ({ event, record }) => console.log("delivered", event, record.number));
const server = createServer(createNodeHandler({ tokens: [process.env.RECEIVER_TOKEN], onDelivery: router.dispatch }));
server.listen(0, "127.0.0.1", () => console.log("listening", server.address().port));
`;

/** A TypeScript file that uses the kit's types: a listener's record is a Ticket, whose number is a number. */
const TYPED = (name: string): string => `import { type DeliveryOf, DeliveryRouter, createFetchHandler } from "${name}";
const router = new DeliveryRouter().on("ticket_opened", (delivery: DeliveryOf<"ticket_opened">) => {
  const number: number = delivery.record.number;
  const href: string = delivery.record.links.state.href;
  console.log(number, href);
});
export const handler: (request: Request) => Promise<Response> = createFetchHandler({ tokens: ["x".repeat(22)], onDelivery: router.dispatch });
`;

describe("the TypeScript kit's npm package", () => {
  it("holds the kit's build and the kernel modules it imports, nothing else of the repository", () => {
    const files = receiverNpmFiles();
    expect(files.filter((file) => file.startsWith("dist/kernel/"))).toEqual([
      "dist/kernel/delivery-token.d.ts",
      "dist/kernel/delivery-token.js",
      "dist/kernel/errors.d.ts",
      "dist/kernel/errors.js",
      "dist/kernel/events.d.ts",
      "dist/kernel/events.js",
      "dist/kernel/record-schemas.d.ts",
      "dist/kernel/record-schemas.js",
    ]);
    expect(files.every((file) => /^dist\/(kernel|receiver\/nodejs)\/[\w-]+\.(js|d\.ts)$/.test(file))).toBe(true);
  });

  it("installs in a project with no Pulumi, brings zod alone, type-checks, and receives a delivery", async () => {
    const dir = testTempDir("helpdesk-receiver-npm-");
    const tarball = packReceiverNpm(dir);
    const project = join(dir, "service");
    mkdirSync(project);
    const name = receiverNpmPackage();
    writeFileSync(
      join(project, "package.json"),
      `${JSON.stringify({ name: "service", private: true, type: "module", dependencies: { [name]: `file:${join(dir, tarball)}` } }, null, 2)}\n`,
    );
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], {
      cwd: project,
      stdio: ["ignore", "ignore", "pipe"],
    });
    const installed = readdirSync(join(project, "node_modules")).filter((entry) => !entry.startsWith("."));
    expect(installed.sort()).toEqual([name.split("/")[0], "zod"].sort());
    expect(readdirSync(join(project, "node_modules", name.split("/")[0] ?? ""))).toEqual([name.split("/")[1]]);

    // Its types: a listener of ticket_opened gets a Ticket (tsc with the repository's TypeScript and Node.js types).
    writeFileSync(join(project, "typed.ts"), TYPED(name));
    const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");
    const typeRoots = join(repoRoot, "node_modules", "@types");
    execFileSync(
      process.execPath,
      [
        tsc,
        "--noEmit",
        "--strict",
        "--module",
        "nodenext",
        "--moduleResolution",
        "nodenext",
        "--target",
        "es2023",
      ].concat(["--lib", "es2023,dom", "--types", "node", "--typeRoots", typeRoots, "typed.ts"]),
      { cwd: project, stdio: ["ignore", "pipe", "pipe"] },
    );

    writeFileSync(join(project, "service.mjs"), SERVICE(name));
    const oldNode = process.env.HELPDESK_TEST_OLD_NODE;
    for (const node of [process.execPath, ...(oldNode ? [oldNode] : [])]) {
      const service = startProcess(node, ["service.mjs"], {
        cwd: project,
        env: { ...process.env, RECEIVER_TOKEN: TOKEN },
      });
      try {
        const port = Number(
          (await service.waitFor("stdout", /^listening (\d+)$/m, "the service listening", 30_000))[1],
        );
        expect(await deliverAndForge(port), node).toEqual([204, 401]);
        await service.waitFor("stdout", /^delivered ticket_opened 1042$/m, "the delivery");
      } finally {
        await service.stop();
      }
      expect(service.output().includes(TOKEN)).toBe(false);
    }
  }, 300_000);
});

describe.skipIf(!toolAvailable("python3", onPath("python3")))("the Python kit's wheel", () => {
  it("installs with no index in a fresh virtualenv, needs nothing else, and receives a delivery", async () => {
    const dir = testTempDir("helpdesk-receiver-wheel-");
    const [wheel, sdist] = buildReceiverPython(dir, version, "1700000000");
    expect(sdist).toMatch(new RegExp(`^${RECEIVER_PYTHON_PACKAGE}-.*\\.tar\\.gz$`));
    const venv = join(dir, "venv");
    execFileSync("python3", ["-m", "venv", venv]);
    const python = join(venv, "bin", "python");
    execFileSync(
      python,
      ["-m", "pip", "install", "--quiet", "--no-index", "--disable-pip-version-check", join(dir, wheel ?? "")],
      {
        env: { ...process.env, PIP_NO_INPUT: "1" },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    const requires = execFileSync(
      python,
      [
        "-c",
        `import importlib.metadata as m; print(m.version("${RECEIVER_PYTHON_DISTRIBUTION}"), m.requires("${RECEIVER_PYTHON_DISTRIBUTION}"))`,
      ],
      { encoding: "utf8" },
    );
    expect(requires.trim()).toBe(`${version} None`);
    const service = [
      "import sys",
      `from ${RECEIVER_PYTHON_PACKAGE} import make_wsgi_app`,
      `from ${RECEIVER_PYTHON_PACKAGE}.wsgi import make_server`,
      `assert 'site-packages' in sys.modules['${RECEIVER_PYTHON_PACKAGE}'].__file__`,
      "def on_delivery(delivery, context):",
      "    print('delivered', delivery.event, delivery.record.number, flush=True)",
      "server = make_server('127.0.0.1', 0, make_wsgi_app([sys.argv[1]], on_delivery))",
      "print('listening', server.server_port, flush=True)",
      "server.serve_forever()",
    ].join("\n");
    writeFileSync(join(dir, "service.py"), service);
    const running = startProcess(python, ["-I", "service.py", TOKEN], { cwd: dir, env: process.env });
    try {
      const port = Number((await running.waitFor("stdout", /^listening (\d+)$/m, "the service listening", 30_000))[1]);
      expect(await deliverAndForge(port)).toEqual([204, 401]);
      await running.waitFor("stdout", /^delivered ticket_opened 1042$/m, "the delivery");
    } finally {
      await running.stop();
    }
  }, 300_000);
});
