/**
 * The file of `pulumi-helpdesk import --from` (cli/import/webhook-file.ts): both forms read, every row held to the one webhook
 * rule (kernel/webhook-rules.ts), each bad file refused with exit code 2, the problem and its row, and never the url.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  defaultResourceName,
  MAX_FILE_BYTES,
  MAX_HEADER_COLUMNS,
  MAX_RECORD_CHARS,
  parseWebhookFile,
  readWebhookFile,
  WebhookFileError,
} from "../../cli/import/webhook-file.js";
import { looksLikeUrl, shownValue } from "../../kernel/webhook-rules.js";

const secretUrl = "https://hooks.example.test/in/secret-token-7f3a";
const text = (value: string): Uint8Array => new TextEncoder().encode(value);

/** The error a file is refused with (exit code 2, the file named), checked to hold no url. */
function refusal(content: string | Uint8Array): WebhookFileError {
  try {
    parseWebhookFile(typeof content === "string" ? text(content) : content, "hooks.csv");
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookFileError);
    const refused = error as WebhookFileError;
    expect(refused.exitCode).toBe(2);
    expect(refused.message).toMatch(/^hooks\.csv has (a problem|\d+ problems); nothing was imported:/);
    expect(refused.message).not.toContain("secret-token");
    return refused;
  }
  throw new Error("the file was accepted");
}

describe("the file of pulumi-helpdesk import", () => {
  it("reads CSV with the columns in any order, a byte-order mark, CRLF and quoted fields; rows without a name get event-id", () => {
    const csv = `\uFEFFurl,Event,id,name\r\n"${secretUrl}?a=1,2",ticket_opened,wh_1,\r\nhttps://h.example.test/b,ticket_closed,wh:2,closed-hook\r\n`;
    expect(parseWebhookFile(text(csv), "f")).toEqual([
      { row: 1, id: "wh_1", event: "ticket_opened", url: `${secretUrl}?a=1,2`, name: "ticket_opened-wh_1" },
      { row: 2, id: "wh:2", event: "ticket_closed", url: "https://h.example.test/b", name: "closed-hook" },
    ]);
    expect(defaultResourceName("ticket_opened", "wh:2 %x")).toBe("ticket_opened-wh_2__x");
  });

  it("reads a JSON array of the same fields", () => {
    const json = JSON.stringify([
      { id: "wh_1", event: "note_added", url: secretUrl },
      { id: "wh_2", event: "ticket_opened", url: secretUrl, name: "second" },
    ]);
    expect(parseWebhookFile(text(`  ${json}`), "f").map((row) => [row.row, row.name])).toEqual([
      [1, "note_added-wh_1"],
      [2, "second"],
    ]);
  });

  it("refuses each bad row with its number and what is wrong, listing every problem", () => {
    const csv = [
      "id,event,url,name",
      `wh_1,ticket_open,${secretUrl},`,
      "wh_2,ticket_opened,ftp://files.example.test/x,",
      `wh_3,ticket_opened,${secretUrl} x,`,
      `..,ticket_opened,${secretUrl},`,
      `wh_5,ticket_opened,${secretUrl},bad name`,
      `wh_6,ticket_opened,${secretUrl},same`,
      `wh_6,ticket_closed,${secretUrl},other`,
      `wh_8,ticket_closed,${secretUrl},same`,
      `,ticket_closed,${secretUrl},`,
    ].join("\n");
    const { problems } = refusal(csv);
    expect(problems).toEqual([
      expect.stringMatching(/^row 1: event "ticket_open" is not a help-desk event\. Did you mean "ticket_opened"\?/),
      expect.stringMatching(/^row 2: url must use http or https, got "ftp"/),
      expect.stringMatching(/^row 3: url contains whitespace or an invisible or control character at position 48/),
      expect.stringMatching(/^row 4: id "\.\." is a dot-segment/),
      expect.stringMatching(/^row 5: name "bad name": a name is 1 to 100 letters/),
      expect.stringMatching(/^row 7: id "wh_6" is also on row 6/),
      expect.stringMatching(/^row 8: name "same" is also on row 6/),
      expect.stringMatching(/^row 9: id is required/),
    ]);
  });

  it("refuses a header without a required column, an unknown column, and a row with the wrong field count", () => {
    expect(refusal(`id,event\nwh_1,ticket_opened\n`).problems).toEqual([
      expect.stringMatching(/^the header lacks the column url: expected CSV with the header id,event,url/),
    ]);
    expect(refusal(`id,event,url,secret\nwh_1,ticket_opened,${secretUrl},x\n`).problems).toEqual([
      expect.stringMatching(/^the header names unknown columns "secret"/),
    ]);
    expect(refusal(`id,event,url\nwh_1,ticket_opened\nwh_2,ticket_opened,${secretUrl},extra\n`).problems).toEqual([
      "row 1: has 2 fields, the header 3 (id,event,url)",
      "row 2: has 4 fields, the header 3 (id,event,url)",
    ]);
    expect(refusal(`[{"id":"wh_1","event":"ticket_opened"}]`).problems).toEqual([
      expect.stringMatching(/^row 1: url is required/),
    ]);
    expect(refusal(`[{"id":"wh_1","event":"ticket_opened","url":"${secretUrl}","token":"x"}, 3]`).problems).toEqual([
      expect.stringMatching(/^row 1: has the unknown field "token"/),
      expect.stringMatching(/^row 2: is not an object/),
    ]);
  });

  it("refuses an empty file, whitespace, a header alone, random bytes, and malformed CSV or JSON without quoting them", () => {
    expect(refusal("").problems).toEqual([
      expect.stringMatching(/^the file is empty: expected CSV with the header id,event,url/),
    ]);
    expect(refusal(" \n\t\n").problems).toEqual([expect.stringMatching(/^the file holds only whitespace/)]);
    expect(refusal("id,event,url\n").problems).toEqual([expect.stringMatching(/^no webhook rows/)]);
    expect(refusal(randomBytes(10 * 1024 * 1024)).problems).toEqual([
      expect.stringMatching(/^the file is not UTF-8 text/),
    ]);
    expect(refusal(`id,event,url\nwh_1,ticket_opened,"${secretUrl}\n`).problems).toEqual([
      "line 2: a quoted field is not closed",
    ]);
    expect(refusal(`id,event,url\nwh_1,ticket_opened,x"${secretUrl}"\n`).problems).toEqual([
      expect.stringMatching(/^line 2: a quote appears inside an unquoted field/),
    ]);
    expect(refusal(`[{"id":"wh_1","event":"ticket_opened","url":"${secretUrl}"}`).problems).toEqual([
      expect.stringMatching(/^the file starts as JSON but is not valid JSON \(at character \d+\)/),
    ]);
    expect(refusal(`{"id":"wh_1"}`).problems).toEqual([expect.stringMatching(/^the JSON is not an array/)]);
  });

  describe("a url in the wrong place is never shown (any column, header cell or JSON key)", () => {
    // A Slack-style url: the secret is the path; a query and userinfo besides.
    const slack =
      "https://hook:pa55w0rd@hooks.chat.example/services/T0AAAAAAA/B0BBBBBBB/SECRETSECRETSECRET?token=q7q7q7q7";
    const pieces = ["pa55w0rd", "services", "T0AAAAAAA", "B0BBBBBBB", "SECRETSECRETSECRET", "token", "q7q7q7q7"];
    /** The refusal, checked to hold no piece of the url's userinfo, path or query. */
    const hidden = (content: string): string[] => {
      const { message, problems } = refusal(content);
      for (const piece of pieces) expect(message, content).not.toContain(piece);
      return [...problems];
    };

    it("a url in the id, event or name column, or as the header", () => {
      expect(hidden(`url,event,id\nwh_1,ticket_opened,${slack}\n`)).toEqual([
        expect.stringMatching(/^row 1: id \(a value that looks like a url, not shown\) contains "\/"/),
        expect.stringMatching(/^row 1: url is not an absolute URL/),
      ]);
      expect(hidden(`id,url,event\nwh_1,ticket_opened,${slack}\n`)[0]).toMatch(
        /^row 1: event \(a value that looks like a url, not shown\) is not a help-desk event\. Allowed values/,
      );
      expect(hidden(`id,event,name,url\nwh_1,ticket_opened,${slack},https://h.example.test/x\n`)).toEqual([
        expect.stringMatching(/^row 1: name \(a value that looks like a url, not shown\): a name is/),
      ]);
      // No header: the first webhook is read as the header.
      expect(hidden(`wh_1,ticket_opened,${slack}\nwh_2,ticket_closed,${slack}\n`)).toEqual([
        expect.stringMatching(
          /^the header names unknown columns "wh_1", "ticket_opened", \(a value that looks like a url, not shown\) \(is the first line a webhook instead of the header\?\)/,
        ),
        expect.stringMatching(/^the header lacks the columns id, event, url/),
      ]);
    });

    it("a url as a JSON key, and an id the id rule allows that is a url's userinfo and host", () => {
      expect(hidden(JSON.stringify([{ id: "wh_1", event: "ticket_opened", [slack]: "x" }]))).toEqual([
        expect.stringMatching(
          /^row 1: has the unknown field \(a value that looks like a url, not shown\); the fields are/,
        ),
      ]);
      expect(hidden(`id,event,url\nhook:pa55w0rd@hooks.chat.example,ticket_opened,https://h.example.test/x\n`)).toEqual(
        [
          expect.stringMatching(
            /^row 1: id \(a value that looks like a url, not shown\): an id is the one the help desk shows/,
          ),
        ],
      );
    });

    it("the one predicate: ://, @, ? or / make a value look like a url; events, ids and names do not", () => {
      expect(
        ["https://h.example/x", "hooks.example/services/T0/B0/x", "user@host", "a?b=c", "h.example:443"].map(
          looksLikeUrl,
        ),
      ).toEqual([true, true, true, true, false]);
      expect(["ticket_opened", "wh_123", "ticket_opened-wh_1"].some(looksLikeUrl)).toBe(false);
      expect(shownValue("x".repeat(300), 40)).toBe(`${JSON.stringify("x".repeat(40))}…`);
    });
  });

  describe("a hostile file costs linear time and a bounded message", () => {
    it(`a header of 80,000 columns is refused in one short problem: the parser stops after ${MAX_RECORD_CHARS} characters of a record`, () => {
      const header = Array.from({ length: 80_000 }, (_, at) => `c${at}`).join(",");
      const { message, problems } = refusal(`${header}\n${header}\n`);
      expect(problems).toEqual([
        `line 1: a record holds more than ${MAX_RECORD_CHARS} characters; a webhook's row holds far fewer (an id of at most 255, a url of at most 2048)`,
      ]);
      expect(message.length).toBeLessThan(300);
    });

    it(`a header of 5,000 one-letter columns (short enough for the parser) is refused before any other check (at most ${MAX_HEADER_COLUMNS} columns)`, () => {
      const header = Array.from({ length: 5_000 }, () => "a").join(",");
      const { message, problems } = refusal(`${header}\n${header}\n`);
      expect(problems).toEqual([
        expect.stringMatching(/^the header has 5000 columns; at most 16 are read: expected CSV/),
      ]);
      expect(message.length).toBeLessThan(300);
    });

    it("unknown and repeated columns: at most 5 names, then how many more", () => {
      const columns = ["id", "event", "url", ...Array.from({ length: 12 }, (_, at) => `extra${at}`)];
      expect(refusal(`${columns.join(",")}\n`).problems).toEqual([
        'the header names unknown columns "extra0", "extra1", "extra2", "extra3", "extra4" and 7 more: expected CSV with the header id,event,url (and optionally name), or a JSON array of objects with those fields',
      ]);
      expect(refusal("id,event,url,id,event,url,name,name\n").problems).toEqual([
        'the header names "id", "event", "url", "name" more than once',
      ]);
    });

    it("a JSON row with 10,000 unknown keys: one problem of bounded length", () => {
      const row = Object.fromEntries(Array.from({ length: 10_000 }, (_, at) => [`k${at}`, "x"]));
      const { problems } = refusal(JSON.stringify([{ id: "wh_1", event: "ticket_opened", url: secretUrl, ...row }]));
      expect(problems).toEqual([
        'row 1: has the unknown fields "k0", "k1", "k2", "k3", "k4" and 9995 more; the fields are id, event, url, name',
      ]);
    });
  });

  it("a url that carries a delivery token: the row's url without the token's query, the token kept with the url the help desk holds", () => {
    const token = "hdt_Adopted-Token_0123456789abcdefXYZ";
    const registered = `https://h.example.test/in?x=1&helpdesk_event=ticket_opened&helpdesk_token=${token}`;
    const csv = `id,event,url\nwh_1,ticket_opened,${registered}\nwh_2,note_added,https://h.example.test/plain\n`;
    expect(parseWebhookFile(text(csv), "f")).toEqual([
      {
        row: 1,
        id: "wh_1",
        event: "ticket_opened",
        url: "https://h.example.test/in?x=1",
        name: "ticket_opened-wh_1",
        token: {
          deliveryToken: token,
          registeredUrl: registered,
          given: true,
          useDeliveryToken: true,
          rotation: undefined,
        },
      },
      { row: 2, id: "wh_2", event: "note_added", url: "https://h.example.test/plain", name: "note_added-wh_2" },
    ]);
  });

  it("refuses a token url whose event is missing or another, a repeated or bad token, never showing url or token", () => {
    const token = "secret-token-0123456789abcdefghij";
    const base = "https://h.example.test/secret-token-path";
    const cases: Array<[string, RegExp]> = [
      [
        `${base}?helpdesk_token=${token}`,
        /row 1: the url carries a delivery token .*helpdesk_event query parameter must be the row's event "ticket_opened", once; it is missing/,
      ],
      [
        `${base}?helpdesk_event=ticket_closed&helpdesk_token=${token}`,
        /row 1: .*must be the row's event "ticket_opened", once; it is not/,
      ],
      [
        `${base}?helpdesk_event=ticket_opened&helpdesk_event=ticket_opened&helpdesk_token=${token}`,
        /must be the row's event "ticket_opened", once/,
      ],
      [
        `${base}?helpdesk_event=ticket_opened&helpdesk_token=${token}&helpdesk_token=${token}`,
        /row 1: the url has more than one helpdesk_token query parameter/,
      ],
      [
        `${base}?helpdesk_event=ticket_opened&helpdesk_token=secret-token-short`,
        /row 1: .*deliveryToken: a delivery token must be 22 to 256 characters .*; got 18 characters/,
      ],
      [
        `${base}?helpdesk_event=ticket_opened&helpdesk_token=${token}%21`,
        /row 1: .*got another character \(not shown\)/,
      ],
    ];
    for (const [url, message] of cases) {
      const refused = refusal(`id,event,url\nwh_1,ticket_opened,${url}\n`);
      expect(refused.message, url).toMatch(message);
      expect(refused.message, url).not.toContain("h.example.test");
    }
  });
});

describe("reading the file of --from", () => {
  it("refuses a file or standard input longer than MAX_FILE_BYTES, a missing file and a folder; reads one that fits", async () => {
    const dir = mkdtempSync(join(tmpdir(), "helpdesk-webhook-file-"));
    try {
      const big = join(dir, "big.csv");
      writeFileSync(big, Buffer.alloc(MAX_FILE_BYTES + 1, 0x61));
      const tooLarge = [expect.stringMatching(/^more than \d+ bytes, the most read/)];
      await expect(readWebhookFile(big)).rejects.toMatchObject({ problems: tooLarge });
      await expect(
        readWebhookFile("-", Readable.from([Buffer.alloc(MAX_FILE_BYTES), Buffer.alloc(1)])),
      ).rejects.toMatchObject({ problems: tooLarge });
      await expect(readWebhookFile(join(dir, "none.csv"))).rejects.toMatchObject({
        problems: ["the file does not exist"],
      });
      await expect(readWebhookFile(dir)).rejects.toMatchObject({ problems: ["is not a file"] });
      const small = join(dir, "small.csv");
      writeFileSync(small, "id,event,url\n");
      expect(await readWebhookFile(small)).toEqual({ bytes: Buffer.from("id,event,url\n"), source: small });
      expect(await readWebhookFile("-", Readable.from([Buffer.from("a"), Buffer.from("b")]))).toEqual({
        bytes: Buffer.from("ab"),
        source: "standard input",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
