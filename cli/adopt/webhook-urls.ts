/**
 * Where the urls of adopted webhooks go: one secret stack config value, `<project>:helpdeskWebhookUrls`
 * (`./declarations.ts` says why one value), written through `pulumi config set --secret` with the value on stdin, and
 * read back by position as the printed code reads it (an empty item refused), only as a secret (a plain-text one is
 * refused: it would hold credentials in `Pulumi.<stack>.yaml`). The delivery tokens of webhooks adopted with one go
 * to a second value of the same format and rules, `<project>:helpdeskDeliveryTokens`. Shared by `import` and `migrate`.
 */
import type { Stack } from "@pulumi/pulumi/automation/index.js";
import { CliError, info } from "../shared/output.js";
import { type StackRef, writeStackConfig } from "../shared/stack-config.js";
import {
  adoptedList,
  DELIVERY_TOKENS_KEY,
  type Declared,
  WEBHOOK_URLS_KEY,
  WEBHOOK_URLS_SEPARATOR,
} from "./declarations.js";
import type { AdoptedWebhook } from "./pulumi-import.js";

/**
 * The namespaced stack config key of the adopted urls: {@link WEBHOOK_URLS_KEY} in the project's namespace, as
 * `new pulumi.Config()` reads it.
 *
 * @param projectName the project's name (`Pulumi.yaml` `name`)
 */
function webhookUrlsKey(projectName: string): string {
  return `${projectName}:${WEBHOOK_URLS_KEY}`;
}

/**
 * The namespaced stack config key of the adopted delivery tokens: {@link DELIVERY_TOKENS_KEY} in the project's namespace.
 *
 * @param projectName the project's name (`Pulumi.yaml` `name`)
 */
function deliveryTokensKey(projectName: string): string {
  return `${projectName}:${DELIVERY_TOKENS_KEY}`;
}

/** The two lists of a stack, as {@link existingLists} reads them, and their namespaced keys. */
export interface AdoptedLists {
  urlsKey: string;
  urls: string[];
  tokensKey: string;
  tokens: string[];
}

/**
 * Gives every webhook a place in the secret url list: the one its url has from an earlier run, else a new one at the
 * end; likewise its delivery token, when the program is to give one, in the token list; writes each list
 * (`pulumi config set --secret`, the value on stdin) that grew.
 *
 * @param lists the lists as {@link existingLists} reads them; extended in place
 * @param webhooks the webhooks to declare, in the order of their declarations
 * @returns each webhook's declaration: its name, event, url position and token inputs
 * @throws CliError (exit 1) when writing the config fails
 */
export async function placeUrls(
  stack: Stack,
  ref: StackRef,
  lists: AdoptedLists,
  webhooks: readonly Pick<AdoptedWebhook, "name" | "event" | "url" | "token">[],
): Promise<Declared[]> {
  const { urls, tokens } = lists;
  const before = { urls: urls.length, tokens: tokens.length };
  const place = (list: string[], item: string): number => {
    const at = list.indexOf(item);
    return at < 0 ? list.push(item) - 1 : at;
  };
  const declared: Declared[] = webhooks.map(({ name, event, url, token }) => ({
    name,
    event,
    urlIndex: place(urls, url),
    ...(token && {
      token: {
        useDeliveryToken: token.useDeliveryToken,
        tokenIndex: token.given ? place(tokens, token.deliveryToken) : undefined,
        rotation: token.rotation,
      },
    }),
  }));
  const writes = [
    { key: lists.urlsKey, list: urls, grew: urls.length !== before.urls, what: "urls" },
    { key: lists.tokensKey, list: tokens, grew: tokens.length !== before.tokens, what: "delivery tokens" },
  ].filter((entry) => entry.grew);
  for (const { key, what } of writes) info(`writing the ${what} to the secret stack config ${key}`);
  if (writes.length > 0)
    await writeStackConfig(
      stack,
      ref,
      writes.map(({ key, list }) => ({ key, value: list.join(WEBHOOK_URLS_SEPARATOR), secret: true })),
    );
  return declared;
}

/**
 * Both lists of a stack as the printed code reads them (see {@link existingUrls}).
 *
 * @param projectName the project's name; @param config the stack config entries by namespaced key
 * @throws CliError (exit 2) as {@link existingUrls}, for either list
 */
export function existingLists(
  projectName: string,
  config: Readonly<Record<string, { value: string; secret: boolean }>>,
  stackName: string,
): AdoptedLists {
  const urlsKey = webhookUrlsKey(projectName);
  const tokensKey = deliveryTokensKey(projectName);
  return {
    urlsKey,
    urls: existingUrls(urlsKey, config[urlsKey], stackName),
    tokensKey,
    tokens: existingUrls(tokensKey, config[tokensKey], stackName),
  };
}

/**
 * The urls (or delivery tokens) already in a config list, by position as the printed code reads them.
 *
 * @param key the namespaced key; @param entry its value and secret flag, if set
 * @throws CliError (exit 2) when the value is not a secret (the urls may carry credentials, the tokens are ones, and
 *   would be kept in plain text in `Pulumi.<stack>.yaml`) or holds an empty item (two spaces in a row, a leading or
 *   trailing space: every position after it would name another webhook's url or token)
 */
function existingUrls(key: string, entry: { value: string; secret: boolean } | undefined, stackName: string): string[] {
  if (entry === undefined) return [];
  if (!entry.secret) {
    throw new CliError(
      "usage",
      `the stack config ${key} of stack "${stackName}" is plain text, but webhook urls may carry credentials and delivery tokens are ones: make it a secret ` +
        `(pulumi config get ${key} --stack ${stackName} | pulumi config set --secret ${key} --stack ${stackName}), then run this command again`,
    );
  }
  const list = adoptedList(entry.value);
  if ("items" in list) return list.items;
  throw new CliError(
    "usage",
    `the stack config ${key} of stack "${stackName}" has an empty item at position ${list.emptyItem} (two spaces in a row, or a leading or ` +
      "trailing space): the declarations read each item by its position in the list separated by single spaces, so an empty item gives " +
      "every later webhook another one's. Set the value with single spaces (pulumi config set --secret), then run this command again",
  );
}
