/**
 * The form of the file of `pulumi-helpdesk import --from <file>`: its columns and what a resource name may be. Read by
 * the file's reader (`./webhook-file.ts`) and said by `import --help` (`./command.ts`), which loads no parser.
 */

/** The columns every row has: the webhook's id (docs/helpdesk-api.md §4.4 `:id`), event and url (§2.1). */
export const REQUIRED_COLUMNS = ["id", "event", "url"] as const;
/** The optional column: the Pulumi resource name (default `./webhook-file.ts` `defaultResourceName`). */
export const OPTIONAL_COLUMNS = ["name"] as const;

/** What a resource name may be: a letter or digit, then letters, digits, `_`, `-` or `.`, at most 100 characters. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
/** The name rule ({@link NAME_PATTERN}) in words, for problems and the help. */
export const NAME_RULE = 'a name is 1 to 100 letters, digits, "_", "-" or ".", starting with a letter or digit';
