/**
 * The native provider's CheckConfig applies the settings table's own rules (kernel/settings.ts, kernel/base-url.ts), the
 * ones both providers resolve their settings with, so a preview refuses exactly the settings an `up` would.
 */
import { describe, expect, it } from "vitest";
import { checkProviderConfig } from "../../provider/native/config.js";

describe("native CheckConfig", () => {
  it("refuses a bad base URL and out-of-range limits with the settings table's messages, and passes good settings", () => {
    const { failures } = checkProviderConfig({
      baseUrl: "ftp://helpdesk.example.com",
      maxRetries: "many",
      requestTimeout: 0,
      tokenExpiresAt: "soon",
    });
    expect(failures).toEqual([
      {
        property: "baseUrl",
        reason:
          'baseUrl: base URL "ftp://helpdesk.example.com" must use http or https, not ftp; e.g. https://helpdesk.example.com',
      },
      { property: "maxRetries", reason: 'maxRetries must be a whole number from 0 to 50, got "many"' },
      { property: "requestTimeout", reason: 'requestTimeout must be a whole number of seconds from 1 to 600, got "0"' },
      {
        property: "tokenExpiresAt",
        reason: 'tokenExpiresAt must be an ISO 8601 date such as 2030-01-01T00:00:00Z, got "soon"',
      },
    ]);
    expect(
      checkProviderConfig({ baseUrl: "https://helpdesk.example.com/", maxRetries: 3, requestTimeout: "30" }).failures,
    ).toEqual([]);
  });
});
