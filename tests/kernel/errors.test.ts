/**
 * The error family (kernel/errors.ts): every error the package throws for a caller is a PulumiHelpdeskError with a
 * stable code, its class's own name, and the error it wraps kept as `cause`.
 */

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OAUTH_ERROR_CODES, OAuthError, oauthErrorCodeOf } from "../../auth/oauth.js";
import { TokenCacheError } from "../../auth/token-cache.js";
import { CliError } from "../../cli/shared/output.js";
import { EmulatorOptionError, startEmulator } from "../../emulator/index.js";
import { EmulatorInspectionClient, EmulatorInspectionError } from "../../emulator-client/index.js";
import { stackConfigSettings } from "../../kernel/config.js";
import { messageOf, PulumiHelpdeskError } from "../../kernel/errors.js";
import { UnsupportedNodeError } from "../../kernel/node-support.js";
import { DeliveryParseError, parseDelivery } from "../../kernel/records.js";
import { required } from "../../kernel/required.js";
import { resolveSettings, SettingError } from "../../kernel/settings.js";
import { connect } from "../../provider/core/connect.js";
import { HELPDESK_ERROR_CODES, HelpdeskError } from "../../provider/dynamic/index.js";
import { repoRoot } from "../../scripts/lib/repo-root.ts";

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
    const fromConfig = (values: Record<string, string>) =>
      resolveSettings({ config: stackConfigSettings(config(values)) });
    const retries = await thrown(() => fromConfig({ "helpdesk:maxRetries": "many" }));
    expect(retries).toBeInstanceOf(SettingError);
    expect(retries).toMatchObject({ code: "config", name: "SettingError", setting: "maxRetries" });
    expect((retries as Error).message).toMatch(
      /config helpdesk:maxRetries must be a whole number from 0 to 50, got "many"/,
    );
    expect(await thrown(() => fromConfig({ "helpdesk:baseUrl": "ftp://example.test" }))).toMatchObject({
      code: "config",
      setting: "baseUrl",
    });
    const place = { describe: (name: string) => `config helpdesk:${name}`, namespace: "helpdesk" };
    expect(await thrown(() => connect({ settings: fromConfig({}), place }))).toMatchObject({
      code: HELPDESK_ERROR_CODES.CREDENTIALS,
      name: "HelpdeskError",
    });
  });

  it("startEmulator's option errors are typed and name the option", async () => {
    const error = await thrown(() => startEmulator({ port: 70_000 }));
    expect(error).toBeInstanceOf(EmulatorOptionError);
    expect(error).toMatchObject({ code: "invalid_option", option: "port", name: "EmulatorOptionError" });
    expect((error as Error).message).toBe("startEmulator: port must be an integer 0..65535, got 70000");
    expect(await thrown(() => startEmulator({ faults: { rate429: 2 } }))).toMatchObject({
      code: "invalid_option",
      option: "faults",
    });
  });

  it("an unreachable emulator is an EmulatorInspectionError that keeps the network error as cause", async () => {
    const error = await thrown(() => new EmulatorInspectionClient("http://127.0.0.1:9").stats());
    expect(error).toBeInstanceOf(EmulatorInspectionError);
    expect(error).toMatchObject({ code: "unreachable" });
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it("an OAuthError's code is a server's `error` when RFC 6749 or 6750 registers it, else unknown_error", () => {
    expect(oauthErrorCodeOf("invalid_grant")).toBe(OAUTH_ERROR_CODES.INVALID_GRANT);
    expect(oauthErrorCodeOf("access_denied")).toBe(OAUTH_ERROR_CODES.ACCESS_DENIED);
    expect(oauthErrorCodeOf("slow_down")).toBe(OAUTH_ERROR_CODES.UNKNOWN_ERROR);
    expect(oauthErrorCodeOf("")).toBe(OAUTH_ERROR_CODES.UNKNOWN_ERROR);
  });

  it("every class is a PulumiHelpdeskError with a stable code and its own name", () => {
    const cause = new Error("underneath");
    const members: Array<[PulumiHelpdeskError, string, string]> = [
      [new HelpdeskError(HELPDESK_ERROR_CODES.NETWORK, "m", { cause }), "HelpdeskError", "network"],
      [new OAuthError(OAUTH_ERROR_CODES.INVALID_GRANT, "m", { status: 400, cause }), "OAuthError", "invalid_grant"],
      [new TokenCacheError("cache_damaged", "m", { file: "/f", cause }), "TokenCacheError", "cache_damaged"],
      [new UnsupportedNodeError("unsupported_node", "m"), "UnsupportedNodeError", "unsupported_node"],
      [new CliError("usage", "m"), "CliError", "usage"],
      [new CliError("failed", "m"), "CliError", "failed"],
      [new SettingError("config", "m", { setting: "baseUrl", cause }), "SettingError", "config"],
      [
        new EmulatorOptionError("invalid_option", "m", { option: "port", cause }),
        "EmulatorOptionError",
        "invalid_option",
      ],
    ];
    for (const [error, name, code] of members) {
      expect(error).toBeInstanceOf(PulumiHelpdeskError);
      expect(error).toBeInstanceOf(Error);
      expect([error.name, error.code]).toEqual([name, code]);
    }
    expect(members[0]?.[0].cause).toBe(cause);
    expect(members[1]?.[0].cause).toBe(cause);
    expect(members[2]?.[0].cause).toBe(cause);
    expect(members[6]?.[0]).toMatchObject({ setting: "baseUrl", cause });
    expect(members[7]?.[0]).toMatchObject({ option: "port", cause });
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

describe("one constructor shape for every error class", () => {
  /**
   * Every class of the family, wherever it lives, is constructed as `(code, message, options)` (options carrying
   * `cause` and the class's own fields), or takes no argument at all when its code and message are fixed
   * (`PulumiNotFoundError`). Read from the sources, so a new class with another shape fails here.
   */
  it("is (code, message, options) in every source file", () => {
    const files = execFileSync("git", ["ls-files", "sdk", "auth", "provider", "cli", "emulator"], {
      cwd: repoRoot,
      encoding: "utf8",
    })
      .split("\n")
      .filter((file) => file.endsWith(".ts"));
    const classes: string[] = [];
    const offenders: string[] = [];
    for (const file of files) {
      const source = readFileSync(join(repoRoot, file), "utf8");
      for (const match of source.matchAll(
        /class (\w+)(?:<[^>]*>)? extends (\w+Error|PulumiHelpdeskError|EmulatorHttpError)\b[^{]*\{/g,
      )) {
        classes.push(required(match[1], "the class's name"));
        const body = source.slice(match.index + match[0].length);
        const declared = /\n {2}constructor\(([^)]*)/.exec(body.slice(0, body.search(/\n\}/)));
        if (!declared) continue; // inherits its parent's constructor
        const params = required(declared[1], "the constructor's parameters").replace(/\s+/g, " ").trim();
        if (params !== "" && !/^code\b[^,]*, message\b[^,]*(, options\b.*)?$/.test(params))
          offenders.push(`${file}: ${match[1]}(${params})`);
      }
    }
    expect(classes.length).toBeGreaterThanOrEqual(15);
    expect(offenders).toEqual([]);
  });
});

describe("messageOf, the message of anything thrown", () => {
  it("is an Error's message (a subclass's too), else the value as a string", () => {
    expect(messageOf(new Error("disk full"))).toBe("disk full");
    expect(messageOf(new TokenCacheError("cache_damaged", "damaged", { file: "/x" }))).toBe("damaged");
    expect(messageOf("plain text")).toBe("plain text");
    expect(messageOf(42)).toBe("42");
    expect(messageOf(undefined)).toBe("undefined");
  });
});
