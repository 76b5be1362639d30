/**
 * The program code that `pulumi-helpdesk import` prints for the webhooks it adopted: one native `Webhook` declaration
 * per row, in the stack's language (its `Pulumi.yaml` `runtime`), which, pasted into the program, makes `pulumi
 * preview` show no change. No url is written into the code: every declaration reads its url from the secret stack
 * config {@link WEBHOOK_URLS_KEY} that the command writes (the urls separated by single spaces, which the url rule
 * never lets a url hold, `kernel/webhook-rules.ts`), by its position there.
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
/** What separates the urls in {@link WEBHOOK_URLS_KEY}'s value. */
export const WEBHOOK_URLS_SEPARATOR = " ";

/**
 * The urls of a {@link WEBHOOK_URLS_KEY} value by position, exactly as the printed code reads them
 * (`value.split(" ")[i]` in every language): an empty value holds none.
 *
 * @param value the config value
 * @returns the urls in their order, or the 1-based position of the first empty item (two spaces in a row, a leading
 *   or trailing space), which would shift the positions the code reads
 * @home how `helpdeskWebhookUrls` is read by position (as the printed code does: `split(" ")[i]`, an empty item refused)
 */
export function webhookUrlList(value: string): { urls: string[] } | { emptyItem: number } {
  if (value === "") return { urls: [] };
  const urls = value.split(WEBHOOK_URLS_SEPARATOR);
  const empty = urls.indexOf("");
  return empty < 0 ? { urls } : { emptyItem: empty + 1 };
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
function preface(comment: string, options: DeclarationOptions): string[] {
  const lines = [
    `Webhooks adopted by \`${CLI_EXECUTABLE} ${options.command ?? "import"}\`. Each url is read from the secret stack config ${WEBHOOK_URLS_KEY}, which the`,
    "command wrote (the urls separated by spaces): no url is written here. A program needs the import lines and the line that",
    "reads the urls once: leave them out when you paste the declarations of a later import.",
  ];
  if (options.provider !== undefined) {
    lines.push(`${JSON.stringify(options.provider)} is the explicit provider your program declares under that name.`);
  }
  return lines.map((line) => `${comment} ${line}`);
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
    ...preface("//", options),
    'import * as pulumi from "@pulumi/pulumi";',
    `import { Webhook } from ${JSON.stringify(nodejsSdkPackage())};`,
    "",
    `const ${camel(WEBHOOK_URLS_KEY)} = new pulumi.Config().requireSecret(${JSON.stringify(WEBHOOK_URLS_KEY)}).apply((urls) => urls.split(${JSON.stringify(WEBHOOK_URLS_SEPARATOR)}));`,
    ...webhooks.map(
      (hook, at) =>
        `const ${ids[at]} = new Webhook(${JSON.stringify(hook.name)}, { event: ${JSON.stringify(hook.event)}, url: ${camel(WEBHOOK_URLS_KEY)}.apply((urls) => urls[${hook.urlIndex}]!) }${trailer});`,
    ),
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
  return [
    ...preface("#", options),
    "import pulumi",
    `import ${PYTHON_PACKAGE} as ${PULUMI_PACKAGE}`,
    "",
    `${urls} = pulumi.Config().require_secret(${JSON.stringify(WEBHOOK_URLS_KEY)}).apply(lambda urls: urls.split(${JSON.stringify(WEBHOOK_URLS_SEPARATOR)}))`,
    ...webhooks.map(
      (hook, at) =>
        `${ids[at]} = ${PULUMI_PACKAGE}.Webhook(${JSON.stringify(hook.name)}, event=${JSON.stringify(hook.event)}, url=${urls}.apply(lambda urls: urls[${hook.urlIndex}])${trailer})`,
    ),
  ].join("\n");
}

function go(webhooks: readonly Declared[], options: DeclarationOptions): string {
  const resourceOptions = [
    options.provider !== undefined && `pulumi.Provider(${camel(options.provider)})`,
    options.protect && "pulumi.Protect(true)",
  ].filter(Boolean);
  const trailer = resourceOptions.length > 0 ? `, ${resourceOptions.join(", ")}` : "";
  return [
    ...preface("//", options),
    `// Imports: "strings", "github.com/pulumi/pulumi/sdk/v3/go/pulumi", "github.com/pulumi/pulumi/sdk/v3/go/pulumi/config", ${JSON.stringify(goImportPath())}`,
    `${camel(WEBHOOK_URLS_KEY)} := config.RequireSecret(ctx, ${JSON.stringify(WEBHOOK_URLS_KEY)})`,
    "adoptedUrl := func(i int) pulumi.StringOutput {",
    `\treturn ${camel(WEBHOOK_URLS_KEY)}.ApplyT(func(urls string) string { return strings.Split(urls, ${JSON.stringify(WEBHOOK_URLS_SEPARATOR)})[i] }).(pulumi.StringOutput)`,
    "}",
    ...webhooks.map(
      (hook) =>
        `if _, err := ${PULUMI_PACKAGE}.NewWebhook(ctx, ${JSON.stringify(hook.name)}, &${PULUMI_PACKAGE}.WebhookArgs{Event: ${PULUMI_PACKAGE}.WebhookEvent${pascalEvent(hook.event)}, Url: adoptedUrl(${hook.urlIndex})}${trailer}); err != nil {\n\treturn err\n}`,
    ),
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
  return [
    ...preface("//", options),
    `// Imports: com.pulumi.resources.CustomResourceOptions, ${base}.Webhook, ${base}.WebhookArgs, ${base}.enums.WebhookEvent`,
    `var ${urls} = ctx.config().requireSecret(${JSON.stringify(WEBHOOK_URLS_KEY)}).applyValue(urls -> urls.split(${JSON.stringify(WEBHOOK_URLS_SEPARATOR)}));`,
    ...webhooks.map(
      (hook) =>
        `new Webhook(${JSON.stringify(hook.name)}, WebhookArgs.builder().event(WebhookEvent.${pascalEvent(hook.event)}).url(${urls}.applyValue(urls -> urls[${hook.urlIndex}])).build()${trailer});`,
    ),
  ].join("\n");
}

function yaml(webhooks: readonly Declared[], options: DeclarationOptions): string {
  const resourceOptions =
    options.provider !== undefined
      ? [`      provider: \${${options.provider}}`]
      : [`      version: ${options.version}`, `      pluginDownloadURL: ${options.pluginDownloadUrl}`];
  if (options.protect) resourceOptions.push("      protect: true");
  const split = `{"fn::split": [${JSON.stringify(WEBHOOK_URLS_SEPARATOR)}, "\${${WEBHOOK_URLS_KEY}}"]}`;
  return [
    ...preface("#", options),
    "configuration:",
    `  ${WEBHOOK_URLS_KEY}:`,
    "    type: String",
    "    secret: true",
    "resources:",
    ...webhooks.flatMap((hook) => [
      `  ${hook.name}:`,
      `    type: ${WEBHOOK_TYPE}`,
      "    properties:",
      `      event: ${hook.event}`,
      "      url:",
      `        fn::select: [${hook.urlIndex}, ${split}]`,
      "    options:",
      ...resourceOptions,
    ]),
  ].join("\n");
}
