/**
 * `pulumi-helpdesk emulator` and `pulumi-helpdesk trigger` as a person runs them: the emulator in the foreground,
 * printing what a newcomer needs to sign in (its client secret, the commands to type), a stack signed in to it by
 * exactly those commands, a receiver on 127.0.0.1, an event delivered to it.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { request } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { shellWord } from "../../cli/emulator/emulator.js";
import { NPX_LIFECYCLE_EVENT } from "../../cli/shared/invocation.js";
import { DEFAULT_CLIENT } from "../../emulator/index.js";
import { completeAuthorizationAutoApproved } from "../../emulator-client/index.js";
import { CLI_EXECUTABLE } from "../../kernel/names.js";
import { required } from "../../kernel/required.js";
import { SETTINGS } from "../../kernel/settings.js";
import { runCommand, shown } from "../../scripts/lib/processes.ts";
import { type CliRun, createTestProject, freePort, pulumiConfigGet, runCli, startCli } from "../support/cli.js";
import { pulumiAvailable } from "../support/pulumi.js";

const project = createTestProject();

afterAll(() => project.dispose());

describe("pulumi-helpdesk emulator + trigger", () => {
  let emulator: CliRun;
  let baseUrl: string;
  let printed: string;
  let redirectUri: string;

  it("starts in the foreground and prints its base URL, its client with the demo secret, a sign-in link and the commands to sign in", async () => {
    // A redirect URI of its own: the default port (8976) may be another test's.
    redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
    // Not under npx (whatever started the test): then the CLI is named bare.
    emulator = startCli(["emulator", "--port", "0", "--auto-approve", "--redirect-uri", redirectUri], project, {
      [NPX_LIFECYCLE_EVENT.name]: "",
    });
    printed = (
      await emulator.waitFor("stdout", new RegExp(`^  ${CLI_EXECUTABLE} login .*\\n`, "m"), "the commands to sign in")
    ).input;
    baseUrl = required(/^base URL:\s+(\S+)$/m.exec(printed)?.[1], "the base URL line");
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(printed).toMatch(new RegExp(`^client id:\\s+${DEFAULT_CLIENT.clientId}$`, "m"));
    expect(printed).toMatch(
      new RegExp(
        `^client secret:\\s+${DEFAULT_CLIENT.clientSecret} \\(.*public, for this local emulator only\\)$`,
        "m",
      ),
    );
    expect(printed).toContain(`redirect URI:  ${redirectUri}\n`);
    // The link works (a redacted token would not): it opens a session on the web page, once.
    const link = required(
      /^sign-in link:\s+(\S+) \(one use, 10 minutes\)$/m.exec(printed)?.[1],
      "the sign-in link line",
    );
    expect(link.startsWith(`${baseUrl}/`)).toBe(true);
    const opened = await request(link);
    await opened.body.dump();
    expect(opened.statusCode).toBe(303);
    const session = required(/^[^;]+/.exec(String(opened.headers["set-cookie"]))?.[0], "the session cookie");
    expect(session).toMatch(/\S+=\S+/);
    // Following the 303 with the session it set, as a browser does: the web page, signed in as the demo account.
    const home = await request(new URL(String(opened.headers.location), link), { headers: { cookie: session } });
    expect(home.statusCode).toBe(200);
    expect(await home.body.text()).toMatch(/Signed in as <strong id="account">demo<\/strong>/);
    const exported = [
      `${SETTINGS.baseUrl.env}=${baseUrl}`,
      `${SETTINGS.clientId.env}=${DEFAULT_CLIENT.clientId}`,
      `${SETTINGS.clientSecret.env}=${DEFAULT_CLIENT.clientSecret}`,
      `${SETTINGS.redirectUri.env}=${redirectUri}`,
    ];
    expect(printed).toContain(`\n  export ${exported.join(" ")}\n  ${CLI_EXECUTABLE} login --stack dev\n`);
  });

  it.skipIf(!pulumiAvailable())(
    "the printed commands, typed in a project's folder, sign its stack in to the emulator",
    async () => {
      const commands = printed
        .split("\n")
        .filter((line) => new RegExp(`^ {2}(export |${CLI_EXECUTABLE} )`).test(line))
        .map((line) => line.trim());
      expect(commands).toHaveLength(2);
      // `pulumi-helpdesk` on PATH, as an installed CLI is: this build's, run by this Node.js.
      const bin = join(project.dir, ".bin");
      mkdirSync(bin);
      const main = fileURLToPath(new URL("../../dist/bin/pulumi-helpdesk.js", import.meta.url));
      writeFileSync(
        join(bin, CLI_EXECUTABLE),
        `#!/bin/sh\nexec ${shellWord(process.execPath)} ${shellWord(main)} "$@"\n`,
        { mode: 0o755 },
      );
      let browsed: Promise<void> | undefined;
      const ran = await runCommand("sh", ["-ec", commands.join("\n")], {
        cwd: project.dir,
        env: { ...project.env, PATH: `${bin}${delimiter}${project.env.PATH ?? ""}` },
        // No browser here (CI=true): login prints the sign-in URL, and the test opens it as a browser would.
        onStderr: (text) => {
          const url = /(http:\/\/\S+\/oauth\/authorize\?\S+)/.exec(text)?.[1];
          if (url && !browsed) browsed = completeAuthorizationAutoApproved(url);
        },
      });
      await browsed;
      if (ran.code !== 0) throw new Error(shown(commands.join("; "), ran));
      expect(pulumiConfigGet(project, "dev", "helpdesk:baseUrl")).toBe(baseUrl);
      expect(pulumiConfigGet(project, "dev", "helpdesk:clientId")).toBe(DEFAULT_CLIENT.clientId);
      expect(pulumiConfigGet(project, "dev", "helpdesk:redirectUri")).toBe(redirectUri);
      expect(pulumiConfigGet(project, "dev", "helpdesk:accessToken")).toMatch(/\S{16,}/);
      expect(project.stackFile("dev")).not.toContain(DEFAULT_CLIENT.clientSecret);
    },
  );

  it("trigger delivers the event to the webhooks registered for it and reports each delivery", async () => {
    const received: { headers: IncomingHttpHeaders; body: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    try {
      // Register a webhook the way the provider does: an OAuth token, then POST /v1/webhooks.
      const authorize = await request(
        `${baseUrl}/oauth/authorize?client_id=${DEFAULT_CLIENT.clientId}&response_type=code&redirect_uri=${encodeURIComponent(redirectUri)}`,
      );
      await authorize.body.dump();
      const code = required(
        new URL(authorize.headers.location as string).searchParams.get("code"),
        "the code of the authorize redirect",
      );
      const tokenResponse = await request(`${baseUrl}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          client_id: DEFAULT_CLIENT.clientId,
          client_secret: DEFAULT_CLIENT.clientSecret,
          redirect_uri: redirectUri,
        }).toString(),
      });
      const { access_token } = (await tokenResponse.body.json()) as { access_token: string };
      const created = await request(`${baseUrl}/v1/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json" },
        body: JSON.stringify({ event: "ticket_closed", url: hookUrl }),
      });
      expect(created.statusCode).toBe(201);
      await created.body.dump();

      const { code: exit, stdout } = await runCli(["trigger", "ticket_closed", "--base-url", baseUrl], project);
      expect(exit).toBe(0);
      expect(stdout).toMatch(new RegExp(`dlv_\\S+\\s+${hookUrl.replace(/[.]/g, "\\.")}\\s+204 ok\\s+attempts: 1`));
      expect(received).toHaveLength(1);
      const [delivery] = received;
      expect(delivery?.headers["x-helpdesk-event"]).toBe("ticket_closed");
      expect(JSON.parse(required(delivery, "the delivery").body)).toMatchObject({
        href: expect.stringContaining(`${baseUrl}/v1/tickets/`),
      });
    } finally {
      receiver.close();
    }
  });

  it("trigger rejects an unknown event with the nearest name (exit 2)", async () => {
    const { code, stderr } = await runCli(["trigger", "ticket_close", "--base-url", baseUrl], project);
    expect(code).toBe(2);
    expect(stderr).toContain('did you mean "ticket_closed"?');
  });

  it("stops cleanly on SIGTERM", async () => {
    emulator.child.kill("SIGTERM");
    const { code, stderr } = await emulator.done;
    expect(code).toBe(0);
    expect(stderr).toContain("emulator stopped");
  });

  it("started by npx (npm's environment for it), names the CLI in its login line as npx pulumi-helpdesk", async () => {
    const started = startCli(["emulator", "--port", "0", "--redirect-uri", redirectUri], project, {
      [NPX_LIFECYCLE_EVENT.name]: NPX_LIFECYCLE_EVENT.value,
    });
    try {
      const out = (await started.waitFor("stdout", /^ {2}\S.* login .*\n/m, "the login line")).input;
      expect(out).toMatch(new RegExp(`^ {2}npx ${CLI_EXECUTABLE} login --stack dev$`, "m"));
    } finally {
      started.child.kill("SIGTERM");
      await started.done;
    }
  });
});
