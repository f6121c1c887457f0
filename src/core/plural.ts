/**
 * Counts as the product prints them: "1 device", "2 devices", "0 tools". Every count
 * shown to a user or the model goes through count(), so none reads "1 devices".
 */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

/** The noun alone, agreeing with n ("1/1 device", "0/2 devices"). */
export function noun(n: number, singular: string, plural = `${singular}s`): string {
  return n === 1 ? singular : plural;
}
