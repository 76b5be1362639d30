/**
 * The error family (sdk/errors.ts): every error the package throws for a caller is a PulumiHelpdeskError with a
 * stable code, its class's own name, and the error it wraps kept as `cause`.
 */
import { describe, expect, it } from "vitest";
import { PulumiHelpdeskError } from "../../sdk/errors.js";
import { HelpdeskError } from "../../provider/index.js";
import { resolveLimits } from "../../provider/limits.js";
import { normaliseBaseUrl, resolveCredentials } from "../../provider/credentials.js";
import { OAuthError } from "../../auth/oauth.js";
import { TokenCacheError } from "../../auth/token-cache.js";
import { UnsupportedNodeError } from "../../sdk/node-support.js";
import { DeliveryParseError, parseDelivery } from "../../sdk/records.js";
import { CliError } from "../../cli/output.js";
import { EmulatorOptionError, startEmulator, EmulatorInspectionClient, EmulatorInspectionError } from "../../emulator/index.js";

const config = (values: Record<string, string>) => ({ get: (key: string) => values[key] });

/** What `run` threw (fails the test when it threw nothing). */
async function thrown(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}

describe("the error family", () => {
  it("a bad helpdesk:maxRetries or base URL is a config error, missing credentials a credentials error", async () => {
    const retries = await thrown(() => resolveLimits(config({ "helpdesk:maxRetries": "many" })));
    expect(retries).toBeInstanceOf(HelpdeskError);
    expect(retries).toMatchObject({ code: "config", name: "HelpdeskError" });
    expect((retries as Error).message).toMatch(/helpdesk:maxRetries must be a whole number from 0 to 50, got "many"/);
    expect(await thrown(() => normaliseBaseUrl("ftp://example.test"))).toMatchObject({ code: "config" });
    expect(await thrown(() => resolveCredentials(config({}), {}))).toMatchObject({ code: "credentials" });
  });

  it("startEmulator's option errors are typed and name the option", async () => {
    const error = await thrown(() => startEmulator({ port: 70_000 }));
    expect(error).toBeInstanceOf(EmulatorOptionError);
    expect(error).toMatchObject({ code: "invalid_option", option: "port", name: "EmulatorOptionError" });
    expect((error as Error).message).toBe("startEmulator: port must be an integer 0..65535, got 70000");
    expect(await thrown(() => startEmulator({ faults: { rate429: 2 } }))).toMatchObject({ code: "invalid_option", option: "faults" });
  });

  it("an unreachable emulator is an EmulatorInspectionError that keeps the network error as cause", async () => {
    const error = await thrown(() => new EmulatorInspectionClient("http://127.0.0.1:9").stats());
    expect(error).toBeInstanceOf(EmulatorInspectionError);
    expect(error).toMatchObject({ code: "unreachable" });
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it("every class is a PulumiHelpdeskError with a stable code and its own name", () => {
    const cause = new Error("underneath");
    const members: Array<[PulumiHelpdeskError, string, string]> = [
      [new HelpdeskError("network", "m", { cause }), "HelpdeskError", "network"],
      [new OAuthError("invalid_grant", "m", 400, cause), "OAuthError", "invalid_grant"],
      [new TokenCacheError("cache_damaged", "/f", "m", { cause }), "TokenCacheError", "cache_damaged"],
      [new UnsupportedNodeError("m"), "UnsupportedNodeError", "unsupported_node"],
      [new CliError("m", 2), "CliError", "usage"],
      [new CliError("m"), "CliError", "failed"],
      [new EmulatorOptionError("invalid_option", "m", { option: "port", cause }), "EmulatorOptionError", "invalid_option"],
    ];
    for (const [error, name, code] of members) {
      expect(error).toBeInstanceOf(PulumiHelpdeskError);
      expect(error).toBeInstanceOf(Error);
      expect([error.name, error.code]).toEqual([name, code]);
    }
    expect(members[0]![0].cause).toBe(cause);
    expect(members[1]![0].cause).toBe(cause);
    expect(members[2]![0].cause).toBe(cause);
    expect(members[6]![0].cause).toBe(cause);
    expect(members[6]![0]).toMatchObject({ option: "port" });
    const delivery = (() => {
      try {
        parseDelivery("no_such_event", {});
      } catch (error) {
        return error;
      }
    })();
    expect(delivery).toBeInstanceOf(DeliveryParseError);
    expect(delivery).toMatchObject({ code: "invalid_delivery", name: "DeliveryParseError" });
  });
});
