/** The one output cap of the tools: head and tail kept, so one `show tech` cannot flood the context. */
export function capOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.7);
  const tail = maxChars - head;
  return `${text.slice(0, head)}\n…[output truncated: ${text.length - maxChars} of ${text.length} characters omitted; ask for a narrower command (e.g. | include, | section)]…\n${text.slice(text.length - tail)}`;
}
