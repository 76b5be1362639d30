/**
 * Explicit settings win over the environment (docs/design.md "Settings precedence"), end to end with the real Pulumi
 * CLI: a shell (a CI job, say) exports `HELPDESK_BASE_URL`, `HELPDESK_ACCESS_TOKEN`, `HELPDESK_CLIENT_ID` and
 * `HELPDESK_CLIENT_SECRET` of a third help desk, and runs
 *
 * - a program with two explicit native providers (`eu`, `us`: tests/native/program, settings from `eu:*` and `us:*`
 *   config as `pulumi-helpdesk login --namespace` writes them): each webhook lands in its own help desk;
 * - a dynamic `Webhook` stack whose `helpdesk:*` config is set (tests/e2e/program): the webhook lands in that help
 *   desk.
 *
 * Neither may touch the third help desk: it is checked on the emulators' side, after `up` and after `destroy`.
 */

import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TokenSet } from "../../auth/oauth.js";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { signInAutoApproved as signIn } from "../../emulator-client/index.js";
import { emulatorStats, heldWebhooks } from "../support/emulator.js";
import { configAsLoginWrites, createTestStack, pulumiAvailable, type TestStack } from "../support/pulumi.js";

const nativeProgram = fileURLToPath(new URL("../native/program", import.meta.url));
const dynamicProgram = fileURLToPath(new URL("./program", import.meta.url));

interface Desk {
  emulator: RunningEmulator;
  client: { clientId: string; clientSecret: string; redirectUri: string; name: string };
  tokens: TokenSet;
}

async function desk(name: string): Promise<Desk> {
  const client = {
    clientId: `${name}-client`,
    clientSecret: `${name}-client-secret-value`,
    redirectUri: "http://127.0.0.1:1/callback",
    name,
  };
  const emulator = await startEmulator({ port: 0, autoApprove: true, clients: [client] });
  return { emulator, client, tokens: await signIn({ baseUrl: emulator.url, ...client }) };
}

/** The environment of a shell signed in to `third`: every variable the settings table names. */
function environmentOf(third: Desk): Record<string, string> {
  return {
    HELPDESK_BASE_URL: third.emulator.url,
    HELPDESK_ACCESS_TOKEN: third.tokens.accessToken,
    HELPDESK_CLIENT_ID: third.client.clientId,
    HELPDESK_CLIENT_SECRET: third.client.clientSecret,
  };
}

/** Requests the third help desk answered on its API and token endpoint (none may come from these stacks). */
async function requestsTo(emulator: RunningEmulator): Promise<number> {
  const { byRoute } = await emulatorStats(emulator);
  return Object.entries(byRoute)
    .filter(([route]) => route.includes("/v1/") || route.includes("/oauth/token"))
    .reduce((sum, [, count]) => sum + count, 0);
}

describe.skipIf(!pulumiAvailable())(
  "the environment only fills what the program and the stack config leave unset",
  () => {
    const desks: Record<"eu" | "us" | "home" | "third", Desk> = {} as never;
    const stacks: TestStack[] = [];
    /** What the third help desk answered before the stacks ran (its own sign-in's token request). */
    let thirdBefore = 0;

    beforeAll(async () => {
      for (const name of ["eu", "us", "home", "third"] as const) desks[name] = await desk(name);
      thirdBefore = await requestsTo(desks.third.emulator);
    });

    afterAll(async () => {
      for (const test of stacks) {
        await test.stack.destroy().catch(() => undefined);
        await test.dispose();
      }
      for (const { emulator } of Object.values(desks)) await emulator?.close();
    });

    it("two explicit native providers each create their webhook in their own help desk, none in the environment's", async () => {
      const { eu, us, third } = desks;
      const hooks = [
        { name: "eu-opened", event: "ticket_opened", url: "https://hooks.example.test/eu", provider: "eu" },
        { name: "us-closed", event: "ticket_closed", url: "https://hooks.example.test/us", provider: "us" },
      ];
      const test = await createTestStack(
        nativeProgram,
        {
          ...configAsLoginWrites(eu.emulator.url, eu.client, eu.tokens, "eu"),
          ...configAsLoginWrites(us.emulator.url, us.client, us.tokens, "us"),
          "native:providers": { value: JSON.stringify(["eu", "us"]) },
          "native:hooks": { value: JSON.stringify(hooks) },
        },
        environmentOf(third),
      );
      stacks.push(test);
      const result = await test.stack.up();
      expect(result.summary.result).toBe("succeeded");
      const ids = result.outputs.ids?.value as Record<string, string>;
      expect((await heldWebhooks(eu.emulator)).map(({ id, event }) => ({ id, event }))).toEqual([
        { id: ids["eu-opened"], event: "ticket_opened" },
      ]);
      expect((await heldWebhooks(us.emulator)).map(({ id, event }) => ({ id, event }))).toEqual([
        { id: ids["us-closed"], event: "ticket_closed" },
      ]);
      expect(await heldWebhooks(third.emulator)).toEqual([]);

      await test.stack.destroy();
      expect(await heldWebhooks(eu.emulator)).toEqual([]);
      expect(await heldWebhooks(us.emulator)).toEqual([]);
      expect(await requestsTo(third.emulator)).toBe(thirdBefore);
    });

    it("a dynamic Webhook stack with helpdesk:* config creates and deletes in that help desk, none in the environment's", async () => {
      const { home, third } = desks;
      const test = await createTestStack(
        dynamicProgram,
        {
          ...configAsLoginWrites(home.emulator.url, home.client, home.tokens),
          "e2e:hooks": {
            value: JSON.stringify([
              { name: "replied", event: "customer_replied", url: "https://hooks.example.test/home" },
            ]),
          },
        },
        environmentOf(third),
      );
      stacks.push(test);
      const result = await test.stack.up();
      expect(result.summary.result).toBe("succeeded");
      const ids = result.outputs.ids?.value as Record<string, string>;
      expect((await heldWebhooks(home.emulator)).map(({ id, event }) => ({ id, event }))).toEqual([
        { id: ids.replied, event: "customer_replied" },
      ]);
      expect(await heldWebhooks(third.emulator)).toEqual([]);

      await test.stack.destroy();
      expect(await heldWebhooks(home.emulator)).toEqual([]);
      expect(await requestsTo(third.emulator)).toBe(thirdBefore);
    });
  },
);
