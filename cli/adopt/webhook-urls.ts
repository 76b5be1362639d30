/**
 * Where the urls of adopted webhooks go: one secret stack config value, `<project>:helpdeskWebhookUrls`
 * (`./declarations.ts` says why one value), written through `pulumi config set --secret` with the value on stdin, and
 * read back by position as the printed code reads it (an empty item refused), only as a secret (a plain-text one is
 * refused: it would hold credentials in `Pulumi.<stack>.yaml`). Shared by `import` and `migrate`.
 */
import type { Stack } from "@pulumi/pulumi/automation/index.js";
import { CliError, info } from "../shared/output.js";
import { type StackRef, writeStackConfig } from "../shared/stack-config.js";
import { type Declared, WEBHOOK_URLS_KEY, WEBHOOK_URLS_SEPARATOR, webhookUrlList } from "./declarations.js";
import type { AdoptedWebhook } from "./pulumi-import.js";

/**
 * The namespaced stack config key of the adopted urls: {@link WEBHOOK_URLS_KEY} in the project's namespace, as
 * `new pulumi.Config()` reads it.
 *
 * @param projectName the project's name (`Pulumi.yaml` `name`)
 */
export function webhookUrlsKey(projectName: string): string {
  return `${projectName}:${WEBHOOK_URLS_KEY}`;
}

/**
 * Gives every webhook a place in the secret url list: the one its url has from an earlier run, else a new one at the
 * end; writes the list (`pulumi config set --secret`, the value on stdin) when it grew.
 *
 * @param urls the list as {@link existingUrls} read it; extended in place
 * @param webhooks the webhooks to declare, in the order of their declarations
 * @returns each webhook's declaration: its name, event and url position
 * @throws CliError (exit 1) when writing the config fails
 */
export async function placeUrls(
  stack: Stack,
  ref: StackRef,
  urlsKey: string,
  urls: string[],
  webhooks: readonly Pick<AdoptedWebhook, "name" | "event" | "url">[],
): Promise<Declared[]> {
  const before = urls.length;
  const declared: Declared[] = webhooks.map((hook) => {
    let urlIndex = urls.indexOf(hook.url);
    if (urlIndex < 0) urlIndex = urls.push(hook.url) - 1;
    return { name: hook.name, event: hook.event, urlIndex };
  });
  if (urls.length !== before) {
    info(`writing the urls to the secret stack config ${urlsKey}`);
    await writeStackConfig(stack, ref, [{ key: urlsKey, value: urls.join(WEBHOOK_URLS_SEPARATOR), secret: true }]);
  }
  return declared;
}

/**
 * The urls already in the config list, by position as the printed code reads them.
 *
 * @param key the namespaced key; @param entry its value and secret flag, if set
 * @throws CliError (exit 2) when the value is not a secret (the urls may carry credentials, and would be kept in
 *   plain text in `Pulumi.<stack>.yaml`) or holds an empty item (two spaces in a row, a leading or trailing space:
 *   every position after it would name another webhook's url)
 */
export function existingUrls(
  key: string,
  entry: { value: string; secret: boolean } | undefined,
  stackName: string,
): string[] {
  if (entry === undefined) return [];
  if (!entry.secret) {
    throw new CliError(
      "usage",
      `the stack config ${key} of stack "${stackName}" is plain text, but webhook urls may carry credentials: make it a secret ` +
        `(pulumi config get ${key} --stack ${stackName} | pulumi config set --secret ${key} --stack ${stackName}), then run this command again`,
    );
  }
  const list = webhookUrlList(entry.value);
  if ("urls" in list) return list.urls;
  throw new CliError(
    "usage",
    `the stack config ${key} of stack "${stackName}" has an empty item at position ${list.emptyItem} (two spaces in a row, or a leading or ` +
      "trailing space): the declarations read each url by its position in the list separated by single spaces, so an empty item gives " +
      "every later webhook another one's url. Set the value with single spaces (pulumi config set --secret), then run this command again",
  );
}
