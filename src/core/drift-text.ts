/**
 * A `drift` event as one line, the same in the TUI, the text printer and the model's note:
 * the changes it names, then how many more there were.
 */
export function driftText(d: { changes: readonly string[]; total: number }): string {
  const more = d.total - d.changes.length;
  return `${d.changes.join('; ')}${more > 0 ? `; and ${more} more change${more === 1 ? '' : 's'}` : ''}`;
}
