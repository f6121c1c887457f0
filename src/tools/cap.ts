/**
 * The one output cap of the tools: head and tail kept, so one `show tech` cannot
 * flood the context. `omittedBefore` counts what was already dropped from the
 * middle upstream (the console buffer), so the reported total is the real one.
 */
export function capOutput(text: string, maxChars: number, omittedBefore = 0): string {
  if (text.length <= maxChars && omittedBefore === 0) return text;
  const total = text.length + omittedBefore;
  const keep = Math.min(maxChars, text.length);
  const head = Math.floor(keep * 0.7);
  const tail = keep - head;
  return `${text.slice(0, head)}\n…[output truncated: ${total - keep} of ${total} characters omitted; ask for a narrower command (e.g. | include, | section)]…\n${text.slice(text.length - tail)}`;
}
