/**
 * A one-line spinner on stderr while the CLI waits (only on a terminal; elsewhere the message is printed once).
 */
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * Starts a spinner.
 *
 * @param text what is being waited for
 * @returns a function that stops it and clears the line
 */
export function spinner(text: string): () => void {
  if (!process.stderr.isTTY) {
    process.stderr.write(`${text}\n`);
    return () => undefined;
  }
  let frame = 0;
  const started = Date.now();
  const draw = () => {
    const seconds = Math.floor((Date.now() - started) / 1000);
    process.stderr.write(`\r${FRAMES[frame++ % FRAMES.length]} ${text} (${seconds} s)\u001b[K`);
  };
  draw();
  const timer = setInterval(draw, 100);
  return () => {
    clearInterval(timer);
    process.stderr.write("\r\u001b[K");
  };
}
