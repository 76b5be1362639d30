/**
 * Asking a person for input, only when one can answer: a terminal on stdin and stderr, and not `CI=true`.
 */
import { createInterface } from "node:readline";

/** The environment variable and value that keep the CLI from asking (CI systems set it); the CLI's help lists it. */
export const NON_INTERACTIVE_VARIABLE = {
  name: "CI",
  value: "true",
  meaning: "never prompt or open a browser",
} as const;

/** True when the CLI may prompt or open a browser: stdin and stderr are terminals and not {@link NON_INTERACTIVE_VARIABLE}. */
export function isInteractive(): boolean {
  return (
    Boolean(process.stdin.isTTY && process.stderr.isTTY) &&
    process.env[NON_INTERACTIVE_VARIABLE.name] !== NON_INTERACTIVE_VARIABLE.value
  );
}

/**
 * Asks one question on stderr and reads one line from stdin.
 *
 * @param question the prompt, e.g. `"Client secret: "`
 * @param secret when true, what is typed is not echoed (for secrets)
 * @returns the line without its newline, trimmed
 * @throws Error when stdin closes before a line is read
 */
export function ask(question: string, secret = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({
      input: process.stdin,
      output: process.stderr,
      terminal: Boolean(process.stdin.isTTY),
    });
    if (secret) {
      // readline echoes through _writeToOutput; print the prompt, then swallow what is typed.
      const writable = rl as unknown as { _writeToOutput: (text: string) => void };
      process.stderr.write(question);
      writable._writeToOutput = () => undefined;
    }
    let answered = false;
    rl.question(secret ? "" : question, (answer) => {
      answered = true;
      if (secret) process.stderr.write("\n");
      rl.close();
      resolve(answer.trim());
    });
    rl.on("close", () => {
      if (!answered) reject(new Error("stdin closed before an answer was given"));
    });
  });
}

/**
 * Reads one non-empty line from a non-terminal stdin (a pipe or file), for scripted input.
 *
 * @returns the first non-empty line, trimmed
 * @throws Error when stdin ends without one
 */
export function readLineFromStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: process.stdin, terminal: false });
    let done = false;
    rl.on("line", (line) => {
      if (done || line.trim() === "") return;
      done = true;
      rl.close();
      resolve(line.trim());
    });
    rl.on("close", () => {
      if (!done) reject(new Error("stdin ended without a line"));
    });
  });
}
