/** The time of day a --watch line starts with: `14:03:07` (UTC, as the logs). */
export function timeOfDay(at = new Date()): string {
  return at.toISOString().slice(11, 19);
}
