/**
 * `pulumi-helpdesk emulator` and `pulumi-helpdesk trigger` as a person runs them: the emulator in the foreground,
 * a receiver on 127.0.0.1, an event delivered to it.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { createTestProject, runCli, startCli, type CliRun } from "../support/cli.js";

const project = createTestProject();

afterAll(() => project.dispose());

describe("pulumi-helpdesk emulator + trigger", () => {
  let emulator: CliRun;
  let baseUrl: string;

  it("starts in the foreground and prints its base URL, client and a one-time sign-in link", async () => {
    emulator = startCli(["emulator", "--port", "0", "--auto-approve"], project);
    baseUrl = await new Promise<string>((resolve) => {
      let out = "";
      emulator.child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const match = /sign-in link:\s+(\S+)/.exec(out);
        if (match) resolve(/base URL:\s+(\S+)/.exec(out)![1]!);
      });
    });
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

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
      const authorize = await request(`${baseUrl}/oauth/authorize?client_id=helpdesk-demo&response_type=code&redirect_uri=${encodeURIComponent("http://127.0.0.1:8976/callback")}`);
      await authorize.body.dump();
      const code = new URL(authorize.headers.location as string).searchParams.get("code")!;
      const tokenResponse = await request(`${baseUrl}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "authorization_code", code, client_id: "helpdesk-demo", client_secret: "demo-client-secret", redirect_uri: "http://127.0.0.1:8976/callback" }).toString(),
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
      expect(received[0]!.headers["x-helpdesk-event"]).toBe("ticket_closed");
      expect(JSON.parse(received[0]!.body)).toMatchObject({ href: expect.stringContaining(`${baseUrl}/v1/tickets/`) });
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
});
