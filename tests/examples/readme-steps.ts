/**
 * The steps of an example's README, as tests/examples/readmes.test.ts follows them. A README is read in order; its
 * fenced ```sh blocks are of two kinds:
 *
 * - a **tested** block, right after the marker line {@link TESTED_MARKER}: commands a person types as they are, in
 *   the example's folder; the test runs them as written ({@link RunStep});
 * - any other ```sh block holds what depends on the person: an `export NAME=value` (`value` being theirs: a folder,
 *   a passphrase, what the emulator printed), which the test types with its own value ({@link ExportStep}), the
 *   start of the emulator in another terminal, which the test starts on ports of its own ({@link EmulatorStep}), or
 *   the start of the release folder's HTTP mirror in another terminal, which the test runs as written but for its
 *   port ({@link MirrorStep}).
 *   Other lines of such blocks are left to the person (alternatives, servers of their own) and recorded as
 *   {@link IgnoredLine}s, which the test shows but does not run.
 */

import { required } from "../../kernel/required.js";

/** The line that marks the next ```sh block as run by the test, as it is written. */
export const TESTED_MARKER = "<!-- tested: tests/examples/readmes.test.ts -->";

/** Commands the test runs as they are written. */
export interface RunStep {
  kind: "run";
  /** The block's text (lines joined with `\n`, no fence). */
  commands: string;
  /** 1-based line of the block's first command in the README. */
  line: number;
}

/** Environment variables a person sets with values of their own. */
export interface ExportStep {
  kind: "export";
  /** Each variable's value as the README writes it (quotes removed), in order. */
  values: Map<string, string>;
  line: number;
}

/** The start of `pulumi-helpdesk emulator` in another terminal. */
export interface EmulatorStep {
  kind: "emulator";
  /** The command line as written, e.g. `pulumi-helpdesk emulator --auto-approve --port 8081`. */
  command: string;
  line: number;
}

/** The start of a local HTTP mirror of the release folder in another terminal (`python3 -m http.server <port> ...`). */
export interface MirrorStep {
  kind: "mirror";
  /** The command line as written, e.g. `python3 -m http.server 8000 --bind 127.0.0.1 --directory "$HELPDESK_RELEASE"`. */
  command: string;
  /** The port it names. */
  port: number;
  line: number;
}

/** A line of an untested block that the test leaves to the person. */
export interface IgnoredLine {
  text: string;
  line: number;
}

/** One step of a README. */
export type ReadmeStep = RunStep | ExportStep | EmulatorStep | MirrorStep;

/** A README, read. */
export interface ReadmeSteps {
  steps: ReadmeStep[];
  ignored: IgnoredLine[];
}

/**
 * Splits a shell line into words, as a POSIX shell does for the simple forms READMEs use: blanks separate words;
 * single quotes keep everything; double quotes keep everything but are removed. No expansion is done.
 *
 * @param line e.g. `export A=1 B='two words'`
 * @returns e.g. `["export", "A=1", "B=two words"]`
 * @throws Error on an unterminated quote
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  for (const char of line) {
    if (quote) {
      if (char === quote) quote = undefined;
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      word ??= "";
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? "") + char;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} in: ${line}`);
  if (word !== undefined) words.push(word);
  return words;
}

/** A line without its shell comment (a `#` that starts a word, outside quotes), trimmed. */
function withoutComment(line: string): string {
  let quote: string | undefined;
  for (const [i, char] of line.split("").entries()) {
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === "#" && (i === 0 || /\s/.test(line.charAt(i - 1)))) {
      return line.slice(0, i).trim();
    }
  }
  return line.trim();
}

/** The command that starts the emulator: the CLI's `emulator` command, run directly or through `npx`. */
const EMULATOR_COMMAND = /^(?:npx )?pulumi-helpdesk emulator(?:\s|$)/;

/** The command that serves a folder over HTTP (Python's `http.server`): `$1` the command, `$2` the port it names. */
export const MIRROR_COMMAND = /^(python3 -m http\.server )(\d+)(?=\s|$)/;

/**
 * Reads a README's steps.
 *
 * @param text the README
 * @param name how errors name it
 * @returns its steps in order, and the lines of untested blocks that are none
 * @throws Error when a marker is not followed by a ```sh block, a block is not closed, or an `export` line of an
 *   untested block assigns nothing
 */
export function readmeSteps(text: string, name: string): ReadmeSteps {
  const lines = text.split("\n");
  const steps: ReadmeStep[] = [];
  const ignored: IgnoredLine[] = [];
  let marked = false;
  for (let i = 0; i < lines.length; i++) {
    const line = required(lines[i], `line ${i + 1} of ${name}`);
    if (line.trim() === TESTED_MARKER) {
      if (!/^```sh\s*$/.test(lines[i + 1] ?? ""))
        throw new Error(`${name}:${i + 1}: the marker must be followed by a \`\`\`sh block`);
      marked = true;
      continue;
    }
    if (!/^```sh\s*$/.test(line)) {
      if (line.trim() !== "") marked = false;
      continue;
    }
    const end = lines.findIndex((candidate, at) => at > i && candidate.trim() === "```");
    if (end < 0) throw new Error(`${name}:${i + 1}: the \`\`\`sh block is not closed`);
    const body = lines.slice(i + 1, end);
    if (marked) {
      steps.push({ kind: "run", commands: body.join("\n"), line: i + 2 });
    } else {
      body.forEach((raw, offset) => {
        const at = i + 2 + offset;
        const command = withoutComment(raw);
        if (command === "") return;
        const words = shellWords(command);
        if (words[0] === "export") {
          const values = new Map<string, string>();
          for (const word of words.slice(1)) {
            const [, variable, value] = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(word) ?? [];
            if (variable === undefined || value === undefined)
              throw new Error(`${name}:${at}: \`${word}\` is no NAME=value assignment`);
            values.set(variable, value);
          }
          if (values.size === 0) throw new Error(`${name}:${at}: an export of nothing`);
          steps.push({ kind: "export", values, line: at });
        } else if (EMULATOR_COMMAND.test(command)) {
          steps.push({ kind: "emulator", command, line: at });
        } else if (MIRROR_COMMAND.test(command)) {
          const [, , port] = MIRROR_COMMAND.exec(command) ?? [];
          steps.push({ kind: "mirror", command, port: Number(port), line: at });
        } else {
          ignored.push({ text: command, line: at });
        }
      });
    }
    marked = false;
    i = end;
  }
  return { steps, ignored };
}
