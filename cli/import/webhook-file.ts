/**
 * The file of `pulumi-helpdesk import --from <file>`: the help desk's existing webhooks, one row each, read and checked
 * before anything happens. Every row is held to the one webhook rule (`kernel/webhook-rules.ts`: `webhookIdProblem`
 * for the id, `webhookProblems` for event and url), the rule of the provider's check and of the emulator.
 *
 * A url that carries a delivery token (its `helpdesk_token` query parameter, `kernel/delivery-token.ts`: a url the
 * provider registered, or one written by hand for a receiver kit) is adopted with it: the row's url becomes the url
 * without the token's query, and the token is kept (`../adopt/pulumi-import.ts` `AdoptedToken`), when the url's
 * `helpdesk_event` is the row's event and token and url pass the provider's own check of the token inputs
 * (`kernel/delivery-token-inputs.ts` `deliveryTokenInputProblems`); otherwise the row is refused.
 *
 * Two forms, told apart by the first character that is not whitespace (`[` or `{` is JSON):
 * - CSV (RFC 4180, parsed by `csv-parse`): a header naming the columns `id`, `event`, `url` and optionally `name`, in
 *   any order, then one record per webhook;
 * - JSON: an array of objects with those fields, each a string.
 *
 * Nothing a problem says repeats a url (webhook urls often carry a credential), whichever column, header cell or JSON
 * key it sits in (a file with its columns swapped or without a header): `webhookProblems` never quotes the url, every
 * other value is quoted through `shownValue` (kernel/webhook-rules.ts), which names a value that looks like a url
 * instead, and the parsers' own messages, which may quote the text around an error, are replaced by ours (line or
 * position only). A hostile file costs linear time and a bounded message: a record longer than
 * {@link MAX_RECORD_CHARS} stops the parser, a header wider than {@link MAX_HEADER_COLUMNS} is refused before any
 * other check, and a list of names in a problem holds at most {@link MAX_LISTED_NAMES}.
 */
import { createReadStream, statSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { parse as parseCsv } from "csv-parse/sync";
import { DELIVERY_EVENT_PARAM, DELIVERY_TOKEN_PARAM, splitRegisteredUrl } from "../../kernel/delivery-token.js";
import { deliveryTokenInputProblems } from "../../kernel/delivery-token-inputs.js";
import { isWebhookEvent, type WebhookEvent } from "../../kernel/events.js";
import { readAtMost } from "../../kernel/response-limit.js";
import { looksLikeUrl, shownValue, URL_LIKE, webhookIdProblem, webhookProblems } from "../../kernel/webhook-rules.js";
import type { AdoptedToken, AdoptedWebhook } from "../adopt/pulumi-import.js";
import { CliError } from "../shared/output.js";
import { NAME_PATTERN, NAME_RULE, OPTIONAL_COLUMNS, REQUIRED_COLUMNS } from "./columns.js";

type Column = (typeof REQUIRED_COLUMNS)[number] | (typeof OPTIONAL_COLUMNS)[number];
const COLUMNS: readonly Column[] = [...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS];

/** The largest file read, in bytes (64 MiB: 1,000 rows take about 150 KB; a file far beyond is not such a list). */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** How many problems an error lists before it says how many more there are. */
const MAX_LISTED_PROBLEMS = 20;

/** The widest header read: the 4 columns and room for a few unknown ones to name (a wider one is no such list). */
export const MAX_HEADER_COLUMNS = 16;

/**
 * The most characters the fields of one CSV record may hold together (csv-parse's `max_record_size`, checked as it
 * reads, so a huge line costs no more than this): a webhook's row holds at most about 2,500 (an id of 255, a url of
 * 2,048, an event, a name of 100).
 */
export const MAX_RECORD_CHARS = 16 * 1024;

/** How many names (unknown columns or fields) one problem lists before it says how many more there are. */
const MAX_LISTED_NAMES = 5;

/** Names for a problem: at most {@link MAX_LISTED_NAMES}, each by `shownValue` (at most 40 characters), then how many more. */
function listedNames(names: readonly string[]): string {
  const shown = names.slice(0, MAX_LISTED_NAMES).map((name) => shownValue(name, 40));
  return `${shown.join(", ")}${names.length > MAX_LISTED_NAMES ? ` and ${names.length - MAX_LISTED_NAMES} more` : ""}`;
}

/**
 * One webhook of the file, checked: what adoption takes (its resource name the file's `name`, else
 * {@link defaultResourceName}), and its row.
 */
export interface WebhookRow extends AdoptedWebhook {
  /** The row's number: 1 for the first webhook (the CSV header is not counted; in JSON, the array's first element). */
  row: number;
}

/**
 * The resource name of a row without a `name`: its event and id, e.g. `ticket_opened-wh_1`, each character of the
 * id that {@link NAME_RULE} does not allow written as `_`.
 *
 * @param event the row's event; @param id the row's id
 */
export function defaultResourceName(event: string, id: string): string {
  return `${event}-${id.replace(/[^A-Za-z0-9_.-]/g, "_")}`.slice(0, 100);
}

/** A file that cannot be imported: exit code 2, and the problems, each naming its row, in the message. */
export class WebhookFileError extends CliError {
  /** Each problem, e.g. `row 3: url is not an absolute URL ...`. */
  readonly problems: readonly string[];

  /**
   * @param code always `usage` (exit code 2)
   * @param message the whole report ({@link fileProblems} writes it)
   * @param options `problems`: what is wrong, at least one; `cause`: what this wraps, if anything
   */
  constructor(code: "usage", message: string, options: { problems: readonly string[]; cause?: unknown }) {
    super(code, message, options);
    this.name = "WebhookFileError";
    this.problems = options.problems;
  }
}

/**
 * The error of a file with problems: `<source> has 2 problems; nothing was imported:` and one line per problem (the
 * first 20, then how many more).
 *
 * @param source how the message names the file (`webhooks.csv`, `standard input`)
 * @param problems what is wrong, at least one
 */
export function fileProblems(source: string, problems: readonly string[]): WebhookFileError {
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS).map((problem) => `  ${problem}`);
  const more = problems.length > MAX_LISTED_PROBLEMS ? [`  ... and ${problems.length - MAX_LISTED_PROBLEMS} more`] : [];
  const count = problems.length === 1 ? "a problem" : `${problems.length} problems`;
  return new WebhookFileError(
    "usage",
    [`${source} has ${count}; nothing was imported:`, ...listed, ...more].join("\n"),
    { problems },
  );
}

/** What an id that looks like a url is told: where ids come from, and the likely mistake. */
const ID_HINT =
  "an id is the one the help desk shows for the webhook, such as wh_123 (are the columns where the header says?)";

/** A row as read, before its checks: each field as it was, if present. */
type RawRow = Partial<Record<Column, unknown>> & { row: number };

/**
 * Reads the file of `--from`, or standard input for `-`: at most {@link MAX_FILE_BYTES}, the one check of its size
 * (`kernel/response-limit.ts` `readAtMost` counts the bytes as they come, so a larger input is refused before it is
 * all held).
 *
 * @param from a path, or `-` for `stdin`
 * @param stdin what `-` reads (default `process.stdin`)
 * @returns the bytes, and how messages name the source (the path as given, or `standard input`)
 * @throws WebhookFileError (exit 2) when the file does not exist, is not a file, or is larger than MAX_FILE_BYTES
 */
export async function readWebhookFile(
  from: string,
  stdin: NodeJS.ReadableStream & AsyncIterable<Uint8Array> = process.stdin,
): Promise<{ bytes: Buffer; source: string }> {
  const source = from === "-" ? "standard input" : from;
  let body: AsyncIterable<Uint8Array> & { destroy(): void } = stdin as typeof stdin & { destroy(): void };
  let size: string | undefined;
  if (from !== "-") {
    const stats = statSync(resolvePath(from), { throwIfNoEntry: false });
    if (!stats) throw fileProblems(source, ["the file does not exist"]);
    if (!stats.isFile()) throw fileProblems(source, ["is not a file"]);
    body = createReadStream(resolvePath(from));
    size = String(stats.size);
  }
  const bytes = await readAtMost(body, MAX_FILE_BYTES, size, () => body.destroy());
  if (bytes === undefined)
    throw fileProblems(source, [`more than ${MAX_FILE_BYTES} bytes, the most read: no file of webhooks is that large`]);
  return { bytes, source };
}

/**
 * Reads and checks the webhooks of a file.
 *
 * @param bytes the file's content
 * @param source how messages name the file
 * @returns one {@link WebhookRow} per row, in the file's order
 * @throws WebhookFileError (exit 2) when the file is empty, not UTF-8 text, not
 *   CSV with the header `id,event,url[,name]` nor a JSON array of such objects, or when any row breaks the webhook
 *   rule, lacks a field, has a bad name, or repeats the id or name of another row; every problem is listed by row
 */
export function parseWebhookFile(bytes: Uint8Array, source: string): WebhookRow[] {
  const text = decode(bytes, source);
  const raws = /^[[{]/.test(text.trimStart()) ? readJson(text, source) : readCsv(text, source);
  if (raws.length === 0) throw fileProblems(source, [`no webhook rows: ${formatHint()}`]);
  return checkRows(raws, source);
}

/** How the file must look, for problems. */
function formatHint(): string {
  return `expected CSV with the header ${REQUIRED_COLUMNS.join(",")} (and optionally ${OPTIONAL_COLUMNS.join(",")}), or a JSON array of objects with those fields`;
}

/** The file as text: UTF-8 (a byte-order mark dropped), no NUL. */
function decode(bytes: Uint8Array, source: string): string {
  if (bytes.length === 0) throw fileProblems(source, [`the file is empty: ${formatHint()}`]);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw fileProblems(source, [`the file is not UTF-8 text: ${formatHint()}`]);
  }
  if (text.includes("\u0000"))
    throw fileProblems(source, [`the file holds NUL characters, so it is no text file: ${formatHint()}`]);
  if (text.trim() === "") throw fileProblems(source, [`the file holds only whitespace: ${formatHint()}`]);
  return text;
}

/** What csv-parse's error codes mean, in words that quote nothing of the file. */
const CSV_ERRORS: Readonly<Record<string, string>> = {
  CSV_QUOTE_NOT_CLOSED: "a quoted field is not closed",
  CSV_INVALID_CLOSING_QUOTE:
    'a closing quote is followed by a character other than a separator or the end of the line (write a quote inside a quoted field as "")',
  INVALID_OPENING_QUOTE: "a quote appears inside an unquoted field (quote the whole field)",
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: "a closing quote is followed by other characters",
  CSV_MAX_RECORD_SIZE: `a record holds more than ${MAX_RECORD_CHARS} characters; a webhook's row holds far fewer (an id of at most 255, a url of at most 2048)`,
};

/** The rows of a CSV file: the header's columns checked, each record's field count checked. */
function readCsv(text: string, source: string): RawRow[] {
  let records: string[][];
  try {
    records = parseCsv(text, {
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      max_record_size: MAX_RECORD_CHARS,
    }) as string[][];
  } catch (error) {
    const { code, lines } = (error ?? {}) as { code?: string; lines?: number };
    const what = (code && CSV_ERRORS[code]) ?? `the CSV cannot be read (${code ?? "unknown error"})`;
    throw fileProblems(source, [`${lines ? `line ${lines}: ` : ""}${what}`]);
  }
  const [header, ...body] = records;
  if (!header) throw fileProblems(source, [`no header: ${formatHint()}`]);
  if (header.length > MAX_HEADER_COLUMNS) {
    throw fileProblems(source, [
      `the header has ${header.length} columns; at most ${MAX_HEADER_COLUMNS} are read: ${formatHint()}`,
    ]);
  }
  const columns = header.map((name) => name.trim().toLowerCase());
  const problems: string[] = [];
  const unknown = columns.filter((name) => !(COLUMNS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    const noHeader = unknown.some(looksLikeUrl) ? " (is the first line a webhook instead of the header?)" : "";
    problems.push(`the header names unknown columns ${listedNames(unknown)}${noHeader}: ${formatHint()}`);
  }
  const missing = REQUIRED_COLUMNS.filter((name) => !columns.includes(name));
  if (missing.length > 0)
    problems.push(`the header lacks the column${missing.length > 1 ? "s" : ""} ${missing.join(", ")}: ${formatHint()}`);
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const name of columns) (seen.has(name) ? repeated : seen).add(name);
  if (repeated.size > 0) problems.push(`the header names ${listedNames([...repeated])} more than once`);
  if (problems.length > 0) throw fileProblems(source, problems);
  const fieldProblems: string[] = [];
  const rows = body.map((record, index) => {
    const row: RawRow = { row: index + 1 };
    if (record.length !== columns.length) {
      fieldProblems.push(
        `row ${index + 1}: has ${record.length} field${record.length === 1 ? "" : "s"}, the header ${columns.length} (${columns.join(",")})`,
      );
    }
    columns.forEach((column, at) => {
      if (at < record.length) row[column as Column] = record[at];
    });
    return row;
  });
  if (fieldProblems.length > 0) throw fileProblems(source, fieldProblems);
  return rows;
}

/** The rows of a JSON file: an array of objects whose keys are columns. */
function readJson(text: string, source: string): RawRow[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // V8's message may quote the text around the error: keep only where it is.
    const position = /position (\d+)/.exec(error instanceof Error ? error.message : "")?.[1];
    throw fileProblems(source, [
      `the file starts as JSON but is not valid JSON${position ? ` (at character ${Number(position) + 1})` : ""}: ${formatHint()}`,
    ]);
  }
  if (!Array.isArray(value)) throw fileProblems(source, [`the JSON is not an array: ${formatHint()}`]);
  const problems: string[] = [];
  const rows = value.map((element: unknown, index) => {
    const row: RawRow = { row: index + 1 };
    if (typeof element !== "object" || element === null || Array.isArray(element)) {
      problems.push(`row ${index + 1}: is not an object with the fields ${REQUIRED_COLUMNS.join(", ")}`);
      return row;
    }
    const unknown: string[] = [];
    for (const [key, field] of Object.entries(element)) {
      if ((COLUMNS as readonly string[]).includes(key)) row[key as Column] = field;
      else unknown.push(key);
    }
    if (unknown.length > 0) {
      problems.push(
        `row ${index + 1}: has the unknown field${unknown.length === 1 ? "" : "s"} ${listedNames(unknown)}; the fields are ${COLUMNS.join(", ")}`,
      );
    }
    return row;
  });
  if (problems.length > 0) throw fileProblems(source, problems);
  return rows;
}

/** Every row held to the webhook rule, the name rule, and unique ids and names. */
function checkRows(raws: readonly RawRow[], source: string): WebhookRow[] {
  const problems: string[] = [];
  const rowOfId = new Map<string, number>();
  const rowOfName = new Map<string, number>();
  const rows: WebhookRow[] = [];
  for (const raw of raws) {
    const at = `row ${raw.row}`;
    const own: string[] = [];
    const idProblem = webhookIdProblem(raw.id);
    if (idProblem) own.push(idProblem);
    // An id the id rule allows may still be a url's piece (`user:pass@host`): it would become the resource name.
    else if (looksLikeUrl(raw.id as string)) own.push(`id ${URL_LIKE}: ${ID_HINT}`);
    for (const { reason } of webhookProblems({ event: raw.event, url: raw.url })) own.push(reason);
    const named = raw.name !== undefined && raw.name !== "";
    if (named && (typeof raw.name !== "string" || !NAME_PATTERN.test(raw.name))) {
      own.push(`name ${typeof raw.name === "string" ? shownValue(raw.name) : "is not a string"}: ${NAME_RULE}`);
    }
    if (own.length > 0) {
      problems.push(...own.map((problem) => `${at}: ${problem}`));
      continue;
    }
    const id = raw.id as string;
    const event = raw.event as string;
    if (!isWebhookEvent(event)) continue; // checked above; narrows the type
    const carried = carriedToken(raw.url as string, event);
    if ("problem" in carried) {
      problems.push(`${at}: ${carried.problem}`);
      continue;
    }
    const name = named ? (raw.name as string) : defaultResourceName(event, id);
    const sameId = rowOfId.get(id);
    if (sameId !== undefined)
      problems.push(`${at}: id ${JSON.stringify(id)} is also on row ${sameId}; each webhook is adopted once`);
    const sameName = rowOfName.get(name);
    if (sameName !== undefined) {
      problems.push(
        `${at}: name ${JSON.stringify(name)} is also ${named ? "on" : "made for"} row ${sameName}; give each row its own name (the ${OPTIONAL_COLUMNS[0]} column)`,
      );
    }
    rowOfId.set(id, raw.row);
    rowOfName.set(name, raw.row);
    rows.push({ row: raw.row, id, event, name, ...carried });
  }
  if (problems.length > 0) throw fileProblems(source, problems);
  return rows;
}

/**
 * A row's url and the delivery token it carries, if any: a url with a `helpdesk_token` query parameter is split into
 * the declared url and the token (`kernel/delivery-token.ts` `splitRegisteredUrl`), the url as given recorded as the
 * registered url (the one the help desk holds).
 *
 * @param url the row's url, valid by the webhook rule
 * @param event the row's event
 * @returns `{ url }` without a token; `{ url, token }` with one (`given` and `useDeliveryToken` true: the declarations
 *   give it); or `{ problem }`, a reason that shows neither the url nor the token: the token parameter repeated, the
 *   url's `helpdesk_event` missing, repeated or another than the row's event, or the token or the url without its query
 *   refused by the provider's check of the token inputs
 */
function carriedToken(url: string, event: WebhookEvent): { url: string; token?: AdoptedToken } | { problem: string } {
  const split = splitRegisteredUrl(url);
  if (split.token === undefined) return { url };
  const carrying = `the url carries a delivery token (its ${DELIVERY_TOKEN_PARAM} query parameter), adopted with the webhook`;
  const query = url.slice(url.indexOf("?") + 1);
  const count = (param: string) => query.split("&").filter((pair) => pair.split("=")[0] === param).length;
  if (count(DELIVERY_TOKEN_PARAM) > 1)
    return {
      problem: `the url has more than one ${DELIVERY_TOKEN_PARAM} query parameter: give the url the help desk shows`,
    };
  if (count(DELIVERY_EVENT_PARAM) !== 1 || split.event !== event)
    return {
      problem: `${carrying}, so its ${DELIVERY_EVENT_PARAM} query parameter must be the row's event ${JSON.stringify(event)}, once; it is ${count(DELIVERY_EVENT_PARAM) === 0 ? "missing" : "not"} (a receiver would refuse the deliveries)`,
    };
  const problems = deliveryTokenInputProblems({
    event,
    url: split.url,
    useDeliveryToken: true,
    deliveryToken: split.token,
  });
  if (problems.length > 0) return { problem: `${carrying}: ${problems.map((problem) => problem.reason).join("; ")}` };
  return {
    url: split.url,
    token: { deliveryToken: split.token, registeredUrl: url, given: true, useDeliveryToken: true, rotation: undefined },
  };
}
