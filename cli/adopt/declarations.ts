/**
 * The program code that `pulumi-helpdesk import` prints for the webhooks it adopted: one native `Webhook` declaration
 * per row, in the stack's language (its `Pulumi.yaml` `runtime`), which, pasted into the program, makes `pulumi
 * preview` show no change. No url is written into the code: every declaration reads its url from the secret stack
 * config {@link WEBHOOK_URLS_KEY} that the command writes (the urls separated by single spaces, which the url rule
 * never lets a url hold, `kernel/webhook-rules.ts`), by its position there. A webhook adopted with its delivery token
 * (`kernel/delivery-token.ts`) declares `useDeliveryToken` and reads its `deliveryToken` the same way from the second
 * secret list {@link DELIVERY_TOKENS_KEY} (a token holds no space either): both lists have the one format of
 * {@link adoptedList}, and no url nor token is written into the code.
 *
 * Why one config value for all urls and not one key per webhook: the `pulumi` CLI encrypts one secret per `pulumi
 * config set --secret` run, about 0.8 s each here (a key derivation per run), so 1,000 keys would take 13 minutes;
 * giving values on its command line (`config set-all`) would show them to every user of the machine. Why a string
 * and not a JSON list: Pulumi YAML 1.19 cannot index a secret list from config ("receiver must be a list or
 * object, not *[]string"), while `fn::split` of a secret string works.
 */
import {
  CLI_EXECUTABLE,
  goImportPath,
  javaBasePackage,
  nodejsSdkPackage,
  PULUMI_PACKAGE,
  PYTHON_PACKAGE,
  WEBHOOK_TYPE,
} from "../../kernel/names.js";

/** The stack config key (in the project's namespace, as `new pulumi.Config()` reads it) holding the adopted urls. */
export const WEBHOOK_URLS_KEY = "helpdeskWebhookUrls";
/**
 * The stack config key (in the project's namespace) holding the delivery tokens of webhooks adopted with one, in the
 * format of {@link WEBHOOK_URLS_KEY}; set only once a webhook with a token is adopted.
 */
export const DELIVERY_TOKENS_KEY = "helpdeskDeliveryTokens";
/** What separates the items of {@link WEBHOOK_URLS_KEY}'s and {@link DELIVERY_TOKENS_KEY}'s values. */
export const WEBHOOK_URLS_SEPARATOR = " ";

/**
 * The items of a {@link WEBHOOK_URLS_KEY} or {@link DELIVERY_TOKENS_KEY} value by position, exactly as the printed code
 * reads them (`value.split(" ")[i]` in every language): an empty value holds none.
 *
 * @param value the config value
 * @returns the items (urls or tokens) in their order, or the 1-based position of the first empty item (two spaces in a
 *   row, a leading or trailing space), which would shift the positions the code reads
 * @home how `helpdeskWebhookUrls` and `helpdeskDeliveryTokens` are read by position (as the printed code does: `split(" ")[i]`, an empty item refused)
 */
export function adoptedList(value: string): { items: string[] } | { emptyItem: number } {
  if (value === "") return { items: [] };
  const items = value.split(WEBHOOK_URLS_SEPARATOR);
  const empty = items.indexOf("");
  return empty < 0 ? { items } : { emptyItem: empty + 1 };
}

/** The languages declarations are printed in, by `Pulumi.yaml` runtime name. */
export type DeclarationLanguage = "nodejs" | "python" | "go" | "java" | "yaml";

/** One adopted webhook as its declaration needs it. */
export interface Declared {
  /** The Pulumi resource name. */
  name: string;
  /** The event name (docs/helpdesk-api.md §6). */
  event: string;
  /** The url's position in {@link WEBHOOK_URLS_KEY}'s list. */
  urlIndex: number;
  /** The delivery-token inputs to declare, for a webhook adopted with its token; absent without one. */
  token?: DeclaredToken;
}

/** The delivery-token inputs of one declaration (`kernel/delivery-token-inputs.ts`), each declared when set. */
export interface DeclaredToken {
  /** `useDeliveryToken` as declared (`import`: true; `migrate`: as the dynamic Webhook declared it, if it did). */
  useDeliveryToken?: boolean | undefined;
  /** The token's position in {@link DELIVERY_TOKENS_KEY}'s list, when the program gives `deliveryToken`. */
  tokenIndex?: number | undefined;
  /** `deliveryTokenRotation` as declared: plain text (a date, a counter), written into the code. */
  rotation?: string | undefined;
}

/** How the declarations are to be made. */
export interface DeclarationOptions {
  /** The explicit provider's resource name (as declared in the program), or undefined for the default provider. */
  provider?: string | undefined;
  /**
   * Whether the webhooks were adopted protected (the default, as `pulumi import`'s; not with `--no-protect`): the
   * declarations then carry the `protect` option too, as Pulumi's generated import code does, so program and state agree.
   */
  protect: boolean;
  /** The plugin's version and download URL, which YAML declarations of the default provider name. */
  version: string;
  pluginDownloadUrl: string;
  /** The command that adopted them, named in the comment above the declarations (default `import`). */
  command?: "import" | "migrate";
}

/** Words that cannot be identifiers in one of the languages. */
const RESERVED = new Set(
  (
    "abstract and as assert async await boolean break byte case catch chan char class const continue def default defer del delete do double elif " +
    "else enum except export extends false final finally float for from func function global go goto if implements import in instanceof int " +
    "interface is lambda let long map native new nonlocal not null or package pass private protected public raise range return select short " +
    "static strictfp struct super switch synchronized this throw throws transient true try type typeof var void volatile while with yield"
  ).split(" "),
);

/** The words of a resource name: its runs of letters and digits. */
function words(name: string): string[] {
  return name.split(/[^A-Za-z0-9]+/).filter(Boolean);
}

/** A camelCase identifier for a name, `webhook...` when it would start with a digit or be a reserved word. */
function camel(name: string): string {
  const [first = "webhook", ...rest] = words(name);
  const id =
    first.charAt(0).toLowerCase() +
    first.slice(1) +
    rest.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join("");
  return /^[0-9]/.test(id) || RESERVED.has(id) ? `webhook${id.charAt(0).toUpperCase()}${id.slice(1)}` : id;
}

/** A snake_case identifier for a name (Python; camelCase words split), `webhook_...` when it would start with a digit or be a reserved word. */
function snake(name: string): string {
  const id =
    words(name.replace(/([a-z0-9])([A-Z])/g, "$1_$2"))
      .join("_")
      .toLowerCase() || "webhook";
  return /^[0-9]/.test(id) || RESERVED.has(id) ? `webhook_${id}` : id;
}

/** Makes identifiers unique: a second `x` becomes `x2`, and so on. */
function uniqueIdentifiers(names: readonly string[], make: (name: string) => string): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    const base = make(name);
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}${n}`;
    taken.add(id);
    return id;
  });
}

/** An event name as the Java and Go SDKs' enum constant names it: `ticket_opened` → `TicketOpened`. */
function pascalEvent(event: string): string {
  return words(event)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("");
}

/**
 * The language of a project's runtime, for declarations.
 *
 * @param runtime the `Pulumi.yaml` runtime name, e.g. `nodejs`, `python`
 * @returns the language, or undefined for one declarations are not printed in (then callers print YAML, the
 *   language-neutral form, and say so)
 */
export function declarationLanguage(runtime: string): DeclarationLanguage | undefined {
  return (["nodejs", "python", "go", "java", "yaml"] as const).find((language) => language === runtime);
}

/**
 * The declarations of adopted webhooks, ready to paste into a program of `language`.
 *
 * @param language the program's language
 * @param webhooks the adopted webhooks, in the file's order
 * @param options provider, protect, plugin version and download URL
 * @returns the code, lines joined with `\n`, with a comment saying where the urls come from; no url in it
 */
export function declarations(
  language: DeclarationLanguage,
  webhooks: readonly Declared[],
  options: DeclarationOptions,
): string {
  switch (language) {
    case "nodejs":
      return typescript(webhooks, options);
    case "python":
      return python(webhooks, options);
    case "go":
      return go(webhooks, options);
    case "java":
      return java(webhooks, options);
    case "yaml":
      return yaml(webhooks, options);
  }
}

/** The comment that opens every language's declarations. */
function preface(comment: string, webhooks: readonly Declared[], options: DeclarationOptions): string[] {
  const lines = [
    `Webhooks adopted by \`${CLI_EXECUTABLE} ${options.command ?? "import"}\`. Each url is read from the secret stack config ${WEBHOOK_URLS_KEY}, which the`,
    "command wrote (the urls separated by spaces): no url is written here. A program needs the import lines and the line that",
    "reads the urls once: leave them out when you paste the declarations of a later import.",
  ];
  if (tokenIndexes(webhooks).length > 0) {
    lines.push(
      `A webhook adopted with its delivery token reads the token the same way from the secret stack config ${DELIVERY_TOKENS_KEY}:`,
      "the help desk keeps the url it holds, and no token is written here either.",
    );
  }
  if (options.provider !== undefined) {
    lines.push(`${JSON.stringify(options.provider)} is the explicit provider your program declares under that name.`);
  }
  return lines.map((line) => `${comment} ${line}`);
}

/** The positions in {@link DELIVERY_TOKENS_KEY}'s list that the declarations read (none: the list is not read). */
function tokenIndexes(webhooks: readonly Declared[]): number[] {
  return webhooks.flatMap((hook) => (hook.token?.tokenIndex === undefined ? [] : [hook.token.tokenIndex]));
}

/**
 * The delivery-token arguments of one declaration, in a language's syntax: `useDeliveryToken`, `deliveryToken` read
 * from the token list by position, `deliveryTokenRotation` as written; each only when set.
 *
 * @param token the declaration's token inputs, if any
 * @param syntax how the language writes an argument (`name: value`), a boolean, and the token at a position
 */
function tokenArguments(
  token: DeclaredToken | undefined,
  syntax: {
    argument: (name: "useDeliveryToken" | "deliveryToken" | "deliveryTokenRotation", value: string) => string;
    boolean: (value: boolean) => string;
    text?: (value: string) => string;
    tokenAt: (index: number) => string;
  },
): string[] {
  if (token === undefined) return [];
  const text = syntax.text ?? ((value: string) => JSON.stringify(value));
  return [
    token.useDeliveryToken !== undefined && syntax.argument("useDeliveryToken", syntax.boolean(token.useDeliveryToken)),
    token.tokenIndex !== undefined && syntax.argument("deliveryToken", syntax.tokenAt(token.tokenIndex)),
    token.rotation !== undefined && syntax.argument("deliveryTokenRotation", text(token.rotation)),
  ].filter((argument): argument is string => typeof argument === "string");
}

function typescript(webhooks: readonly Declared[], options: DeclarationOptions): string {
  const ids = uniqueIdentifiers(
    webhooks.map((hook) => hook.name),
    camel,
  );
  const providerId = options.provider === undefined ? undefined : camel(options.provider);
  const resourceOptions = [providerId && `provider: ${providerId}`, options.protect && "protect: true"].filter(Boolean);
  const trailer = resourceOptions.length > 0 ? `, { ${resourceOptions.join(", ")} }` : "";
  return [
    ...preface("//", webhooks, options),
    'import * as pulumi from "@pulumi/pulumi";',
    `import { Webhook } from ${JSON.stringify(nodejsSdkPackage())};`,
    "",
    `const ${camel(WEBHOOK_URLS_KEY)} = new pulumi.Config().requireSecret(${JSON.stringify(WEBHOOK_URLS_KEY)}).apply((urls) => urls.split(${JSON.stringify(WEBHOOK_URLS_SEPARATOR)}));`,
    ...(tokenIndexes(webhooks).length > 0
      ? [
          `const ${camel(DELIVERY_TOKENS_KEY)} = new pulumi.Config().requireSecret(${JSON.stringify(DELIVERY_TOKENS_KEY)}).apply((tokens) => tokens.split(${JSON.stringify(WEBHOOK_URLS_SEPARATOR)}));`,
        ]
      : []),
    ...webhooks.map((hook, at) => {
      const token = tokenArguments(hook.token, {
        argument: (name, value) => `${name}: ${value}`,
        boolean: String,
        tokenAt: (index) => `${camel(DELIVERY_TOKENS_KEY)}.apply((tokens) => tokens[${index}]!)`,
      });
      const args = [
        `event: ${JSON.stringify(hook.event)}`,
        `url: ${camel(WEBHOOK_URLS_KEY)}.apply((urls) => urls[${hook.urlIndex}]!)`,
        ...token,
      ];
      return `const ${ids[at]} = new Webhook(${JSON.stringify(hook.name)}, { ${args.join(", ")} }${trailer});`;
    }),
  ].join("\n");
}

function python(webhooks: readonly Declared[], options: DeclarationOptions): string {
  const ids = uniqueIdentifiers(
    webhooks.map((hook) => hook.name),
    snake,
  );
  const resourceOptions = [
    options.provider !== undefined && `provider=${snake(options.provider)}`,
    options.protect && "protect=True",
  ].filter(Boolean);
  const trailer = resourceOptions.length > 0 ? `, opts=pulumi.ResourceOptions(${resourceOptions.join(", ")})` : "";
  const urls = snake(WEBHOOK_URLS_KEY);
  const tokens = snake(DELIVERY_TOKENS_KEY);
  return [
    ...preface("#", webhooks, options),
    "import pulumi",
    `import ${PYTHON_PACKAGE} as ${PULUMI_PACKAGE}`,
    "",
    `${urls} = pulumi.Config().require_secret(${JSON.stringify(WEBHOOK_URLS_KEY)}).apply(lambda urls: urls.split(${JSON.stringify(WEBHOOK_URLS_SEPARATOR)}))`,
    ...(tokenIndexes(webhooks).length > 0
      ? [
          `${tokens} = pulumi.Config().require_secret(${JSON.stringify(DELIVERY_TOKENS_KEY)}).apply(lambda tokens: tokens.split(${JSON.stringify(WEBHOOK_URLS_SEPARATOR)}))`,
        ]
      : []),
    ...webhooks.map((hook, at) => {
      const token = tokenArguments(hook.token, {
        argument: (name, value) => `${snake(name)}=${value}`,
        boolean: (value) => (value ? "True" : "False"),
        tokenAt: (index) => `${tokens}.apply(lambda tokens: tokens[${index}])`,
      });
      const args = [
        `event=${JSON.stringify(hook.event)}`,
        `url=${urls}.apply(lambda urls: urls[${hook.urlIndex}])`,
        ...token,
      ];
      return `${ids[at]} = ${PULUMI_PACKAGE}.Webhook(${JSON.stringify(hook.name)}, ${args.join(", ")}${trailer})`;
    }),
  ].join("\n");
}

function go(webhooks: readonly Declared[], options: DeclarationOptions): string {
  const resourceOptions = [
    options.provider !== undefined && `pulumi.Provider(${camel(options.provider)})`,
    options.protect && "pulumi.Protect(true)",
  ].filter(Boolean);
  const trailer = resourceOptions.length > 0 ? `, ${resourceOptions.join(", ")}` : "";
  return [
    ...preface("//", webhooks, options),
    `// Imports: "strings", "github.com/pulumi/pulumi/sdk/v3/go/pulumi", "github.com/pulumi/pulumi/sdk/v3/go/pulumi/config", ${JSON.stringify(goImportPath())}`,
    `${camel(WEBHOOK_URLS_KEY)} := config.RequireSecret(ctx, ${JSON.stringify(WEBHOOK_URLS_KEY)})`,
    "adoptedUrl := func(i int) pulumi.StringOutput {",
    `\treturn ${camel(WEBHOOK_URLS_KEY)}.ApplyT(func(urls string) string { return strings.Split(urls, ${JSON.stringify(WEBHOOK_URLS_SEPARATOR)})[i] }).(pulumi.StringOutput)`,
    "}",
    ...(tokenIndexes(webhooks).length > 0
      ? [
          `${camel(DELIVERY_TOKENS_KEY)} := config.RequireSecret(ctx, ${JSON.stringify(DELIVERY_TOKENS_KEY)})`,
          "adoptedToken := func(i int) pulumi.StringOutput {",
          `\treturn ${camel(DELIVERY_TOKENS_KEY)}.ApplyT(func(tokens string) string { return strings.Split(tokens, ${JSON.stringify(WEBHOOK_URLS_SEPARATOR)})[i] }).(pulumi.StringOutput)`,
          "}",
        ]
      : []),
    ...webhooks.map((hook) => {
      const token = tokenArguments(hook.token, {
        argument: (name, value) => `${name.charAt(0).toUpperCase()}${name.slice(1)}: ${value}`,
        boolean: (value) => `pulumi.Bool(${value})`,
        text: (value) => `pulumi.String(${JSON.stringify(value)})`,
        tokenAt: (index) => `adoptedToken(${index})`,
      });
      const args = [
        `Event: ${PULUMI_PACKAGE}.WebhookEvent${pascalEvent(hook.event)}`,
        `Url: adoptedUrl(${hook.urlIndex})`,
        ...token,
      ];
      return `if _, err := ${PULUMI_PACKAGE}.NewWebhook(ctx, ${JSON.stringify(hook.name)}, &${PULUMI_PACKAGE}.WebhookArgs{${args.join(", ")}}${trailer}); err != nil {\n\treturn err\n}`;
    }),
  ].join("\n");
}

function java(webhooks: readonly Declared[], options: DeclarationOptions): string {
  const base = `${javaBasePackage()}.${PULUMI_PACKAGE}`;
  const builder = [
    options.provider !== undefined && `.provider(${camel(options.provider)})`,
    options.protect && ".protect(true)",
  ].filter(Boolean);
  const trailer = builder.length > 0 ? `, CustomResourceOptions.builder()${builder.join("")}.build()` : "";
  const urls = camel(WEBHOOK_URLS_KEY);
  const tokens = camel(DELIVERY_TOKENS_KEY);
  return [
    ...preface("//", webhooks, options),
    `// Imports: com.pulumi.resources.CustomResourceOptions, ${base}.Webhook, ${base}.WebhookArgs, ${base}.enums.WebhookEvent`,
    `var ${urls} = ctx.config().requireSecret(${JSON.stringify(WEBHOOK_URLS_KEY)}).applyValue(urls -> urls.split(${JSON.stringify(WEBHOOK_URLS_SEPARATOR)}));`,
    ...(tokenIndexes(webhooks).length > 0
      ? [
          `var ${tokens} = ctx.config().requireSecret(${JSON.stringify(DELIVERY_TOKENS_KEY)}).applyValue(tokens -> tokens.split(${JSON.stringify(WEBHOOK_URLS_SEPARATOR)}));`,
        ]
      : []),
    ...webhooks.map((hook) => {
      const token = tokenArguments(hook.token, {
        argument: (name, value) => `.${name}(${value})`,
        boolean: String,
        tokenAt: (index) => `${tokens}.applyValue(tokens -> tokens[${index}])`,
      });
      return `new Webhook(${JSON.stringify(hook.name)}, WebhookArgs.builder().event(WebhookEvent.${pascalEvent(hook.event)}).url(${urls}.applyValue(urls -> urls[${hook.urlIndex}]))${token.join("")}.build()${trailer});`;
    }),
  ].join("\n");
}

function yaml(webhooks: readonly Declared[], options: DeclarationOptions): string {
  const resourceOptions =
    options.provider !== undefined
      ? [`      provider: \${${options.provider}}`]
      : [`      version: ${options.version}`, `      pluginDownloadURL: ${options.pluginDownloadUrl}`];
  if (options.protect) resourceOptions.push("      protect: true");
  const split = (key: string) => `{"fn::split": [${JSON.stringify(WEBHOOK_URLS_SEPARATOR)}, "\${${key}}"]}`;
  const keys = [WEBHOOK_URLS_KEY, ...(tokenIndexes(webhooks).length > 0 ? [DELIVERY_TOKENS_KEY] : [])];
  return [
    ...preface("#", webhooks, options),
    "configuration:",
    ...keys.flatMap((key) => [`  ${key}:`, "    type: String", "    secret: true"]),
    "resources:",
    ...webhooks.flatMap((hook) => [
      `  ${hook.name}:`,
      `    type: ${WEBHOOK_TYPE}`,
      "    properties:",
      `      event: ${hook.event}`,
      "      url:",
      `        fn::select: [${hook.urlIndex}, ${split(WEBHOOK_URLS_KEY)}]`,
      ...tokenArguments(hook.token, {
        argument: (name, value) => `      ${name}:${value.startsWith("\n") ? "" : " "}${value}`,
        boolean: String,
        tokenAt: (index) => `\n        fn::select: [${index}, ${split(DELIVERY_TOKENS_KEY)}]`,
      }),
      "    options:",
      ...resourceOptions,
    ]),
  ].join("\n");
}
