import { describe, expect, it } from "vitest";
import { normaliseBaseUrl, resolveCredentials } from "../../provider/credentials.js";
import { HelpdeskError } from "../../provider/errors.js";

const config = (values: Record<string, string>) => ({ get: (key: string) => values[key] });

describe("resolveCredentials", () => {
  it("prefers the environment over stack config", () => {
    const credentials = resolveCredentials(
      config({ "helpdesk:baseUrl": "http://config.test", "helpdesk:accessToken": "from-config" }),
      { HELPDESK_BASE_URL: "http://env.test/", HELPDESK_ACCESS_TOKEN: "from-env" },
    );
    expect(credentials.baseUrl).toBe("http://env.test");
    expect(credentials.accessToken).toBe("from-env");
  });

  it("reads stack config when the environment is empty", () => {
    const credentials = resolveCredentials(
      config({ "helpdesk:baseUrl": "http://config.test", "helpdesk:accessToken": "t", "helpdesk:refreshToken": "r" }),
      {},
    );
    expect(credentials).toMatchObject({ baseUrl: "http://config.test", accessToken: "t", refreshToken: "r" });
  });

  it("says what to do when credentials are missing", () => {
    expect(() => resolveCredentials(undefined, {})).toThrowError(HelpdeskError);
    expect(() => resolveCredentials(undefined, {})).toThrowError(/pulumi-helpdesk login --stack/);
    expect(() => resolveCredentials(config({ "helpdesk:baseUrl": "http://x.test" }), {})).toThrowError(/HELPDESK_ACCESS_TOKEN/);
  });

  it("rejects base URLs that are not absolute http(s)", () => {
    expect(() => normaliseBaseUrl("helpdesk.example.com")).toThrowError(/not an absolute URL/);
    expect(() => normaliseBaseUrl("ftp://x.test")).toThrowError(/http or https/);
    expect(normaliseBaseUrl("https://x.test/api/")).toBe("https://x.test/api");
  });
});
