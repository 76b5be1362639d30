/**
 * The declarations `pulumi-helpdesk import` prints (cli/adopt/declarations.ts): one per adopted webhook in the stack's
 * language, each reading its url from the secret stack config by position, with the provider and protect options
 * the adoption used; identifiers unique and valid; never a url. The TypeScript, Python and YAML forms run against
 * the real CLI in tests/native/import.test.ts and tests/no-node/import.test.ts.
 */
import { describe, expect, it } from "vitest";
import { adoptedList, type Declared, declarationLanguage, declarations } from "../../cli/adopt/declarations.js";

const webhooks: Declared[] = [
  { name: "ticket_opened-wh_1", event: "ticket_opened", urlIndex: 0 },
  { name: "ticket-opened.wh-1", event: "customer_replied", urlIndex: 3 },
  { name: "new", event: "note_added", urlIndex: 1 },
];
const plain = {
  protect: false,
  version: "0.2.0",
  pluginDownloadUrl: "https://github.com/o/r/releases/download/v0.2.0/",
};

describe("the declarations of adopted webhooks", () => {
  it("TypeScript: unique identifiers, the url by position, provider and protect when used", () => {
    const code = declarations("nodejs", webhooks, { ...plain, provider: "eu", protect: true });
    expect(code).toContain(
      'const helpdeskWebhookUrls = new pulumi.Config().requireSecret("helpdeskWebhookUrls").apply((urls) => urls.split(" "));',
    );
    expect(code).toContain(
      'const ticketOpenedWh1 = new Webhook("ticket_opened-wh_1", { event: "ticket_opened", url: helpdeskWebhookUrls.apply((urls) => urls[0]!) }, { provider: eu, protect: true });',
    );
    expect(code).toContain(
      'const ticketOpenedWh12 = new Webhook("ticket-opened.wh-1", { event: "customer_replied", url: helpdeskWebhookUrls.apply((urls) => urls[3]!) }',
    );
    expect(code).toContain('const webhookNew = new Webhook("new"');
  });

  it("Python, Go, Java and YAML", () => {
    expect(declarations("python", webhooks, plain)).toContain(
      'ticket_opened_wh_1 = helpdesk.Webhook("ticket_opened-wh_1", event="ticket_opened", url=helpdesk_webhook_urls.apply(lambda urls: urls[0]))',
    );
    expect(declarations("go", webhooks, { ...plain, provider: "eu" })).toContain(
      'if _, err := helpdesk.NewWebhook(ctx, "ticket_opened-wh_1", &helpdesk.WebhookArgs{Event: helpdesk.WebhookEventTicketOpened, Url: adoptedUrl(0)}, pulumi.Provider(eu)); err != nil {',
    );
    expect(declarations("java", webhooks, plain)).toContain(
      'new Webhook("new", WebhookArgs.builder().event(WebhookEvent.NoteAdded).url(helpdeskWebhookUrls.applyValue(urls -> urls[1])).build());',
    );
    const yaml = declarations("yaml", webhooks, plain);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Pulumi YAML's interpolation, as the declarations print it
    expect(yaml).toContain('        fn::select: [3, {"fn::split": [" ", "${helpdeskWebhookUrls}"]}]');
    expect(yaml).toContain("      pluginDownloadURL: https://github.com/o/r/releases/download/v0.2.0/");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Pulumi YAML's interpolation, as the declarations print it
    expect(declarations("yaml", webhooks, { ...plain, provider: "euDesk" })).toContain("      provider: ${euDesk}");
  });

  it("protected (the default of the adoption): every language carries the protect option, as Pulumi's generated import code does", () => {
    const protectedToo = { ...plain, protect: true };
    expect(declarations("nodejs", webhooks, protectedToo)).toContain("urls[0]!) }, { protect: true });");
    expect(declarations("python", webhooks, protectedToo)).toContain(
      "urls[0]), opts=pulumi.ResourceOptions(protect=True))",
    );
    expect(declarations("python", webhooks, { ...protectedToo, provider: "eu" })).toContain(
      "opts=pulumi.ResourceOptions(provider=eu, protect=True))",
    );
    expect(declarations("go", webhooks, protectedToo)).toContain(
      "Url: adoptedUrl(0)}, pulumi.Protect(true)); err != nil {",
    );
    expect(declarations("java", webhooks, protectedToo)).toContain(
      ".url(helpdeskWebhookUrls.applyValue(urls -> urls[1])).build(), CustomResourceOptions.builder().protect(true).build());",
    );
    const yaml = declarations("yaml", webhooks, protectedToo).split("\n");
    expect(yaml.filter((line) => line === "      protect: true")).toHaveLength(webhooks.length);
    for (const language of ["nodejs", "python", "go", "java", "yaml"] as const)
      expect(declarations(language, webhooks, plain)).not.toMatch(/protect/i);
  });

  it("the url list is read by position as the printed code reads it: an empty item is reported, not dropped", () => {
    expect(adoptedList("")).toEqual({ items: [] });
    expect(adoptedList("https://a.example/1 https://b.example/2")).toEqual({
      items: ["https://a.example/1", "https://b.example/2"],
    });
    expect(adoptedList("https://a.example/1  https://b.example/2")).toEqual({ emptyItem: 2 });
    expect(adoptedList(" https://a.example/1")).toEqual({ emptyItem: 1 });
    expect(adoptedList("https://a.example/1 ")).toEqual({ emptyItem: 2 });
  });

  it("a webhook adopted with its delivery token: useDeliveryToken, the token read by position from the second secret list, the rotation as written; in every language", () => {
    const withTokens: Declared[] = [
      { name: "given", event: "ticket_opened", urlIndex: 0, token: { useDeliveryToken: true, tokenIndex: 1 } },
      { name: "minted", event: "ticket_closed", urlIndex: 1, token: { useDeliveryToken: true, rotation: "2026-11" } },
      { name: "plain", event: "note_added", urlIndex: 2 },
    ];
    const ts = declarations("nodejs", withTokens, plain);
    expect(ts).toContain(
      'const helpdeskDeliveryTokens = new pulumi.Config().requireSecret("helpdeskDeliveryTokens").apply((tokens) => tokens.split(" "));',
    );
    expect(ts).toContain(
      'new Webhook("given", { event: "ticket_opened", url: helpdeskWebhookUrls.apply((urls) => urls[0]!), useDeliveryToken: true, deliveryToken: helpdeskDeliveryTokens.apply((tokens) => tokens[1]!) });',
    );
    expect(ts).toContain(
      'new Webhook("minted", { event: "ticket_closed", url: helpdeskWebhookUrls.apply((urls) => urls[1]!), useDeliveryToken: true, deliveryTokenRotation: "2026-11" });',
    );
    expect(ts).toContain(
      'new Webhook("plain", { event: "note_added", url: helpdeskWebhookUrls.apply((urls) => urls[2]!) });',
    );
    expect(declarations("python", withTokens, plain)).toContain(
      'given = helpdesk.Webhook("given", event="ticket_opened", url=helpdesk_webhook_urls.apply(lambda urls: urls[0]), use_delivery_token=True, delivery_token=helpdesk_delivery_tokens.apply(lambda tokens: tokens[1]))',
    );
    expect(declarations("python", withTokens, plain)).toContain(
      'helpdesk_delivery_tokens = pulumi.Config().require_secret("helpdeskDeliveryTokens").apply(lambda tokens: tokens.split(" "))',
    );
    const go = declarations("go", withTokens, plain);
    expect(go).toContain("adoptedToken := func(i int) pulumi.StringOutput {");
    expect(go).toContain(
      "Url: adoptedUrl(0), UseDeliveryToken: pulumi.Bool(true), DeliveryToken: adoptedToken(1)}); err != nil {",
    );
    expect(go).toContain('UseDeliveryToken: pulumi.Bool(true), DeliveryTokenRotation: pulumi.String("2026-11")});');
    expect(declarations("java", withTokens, plain)).toContain(
      ".url(helpdeskWebhookUrls.applyValue(urls -> urls[0])).useDeliveryToken(true).deliveryToken(helpdeskDeliveryTokens.applyValue(tokens -> tokens[1])).build());",
    );
    const yaml = declarations("yaml", withTokens, plain);
    expect(yaml).toContain("  helpdeskDeliveryTokens:\n    type: String\n    secret: true\n");
    expect(yaml).toContain(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Pulumi YAML's interpolation, as the declarations print it
      '      useDeliveryToken: true\n      deliveryToken:\n        fn::select: [1, {"fn::split": [" ", "${helpdeskDeliveryTokens}"]}]\n    options:',
    );
    expect(yaml).toContain('      useDeliveryToken: true\n      deliveryTokenRotation: "2026-11"\n    options:');
    // The token list is read only when a declaration reads it (Go refuses an unused variable).
    const minted = withTokens.slice(1);
    for (const language of ["nodejs", "python", "go", "java", "yaml"] as const) {
      expect(declarations(language, withTokens, plain), language).toContain("helpdeskDeliveryTokens");
      expect(declarations(language, minted, plain), language).not.toMatch(
        /helpdeskDeliveryTokens|helpdesk_delivery_tokens/,
      );
      expect(declarations(language, webhooks, plain), language).not.toMatch(/[Dd]elivery/);
    }
  });

  it("knows the runtimes it writes for", () => {
    expect(["nodejs", "python", "go", "java", "yaml", "dotnet"].map(declarationLanguage)).toEqual([
      "nodejs",
      "python",
      "go",
      "java",
      "yaml",
      undefined,
    ]);
  });
});
