/**
 * `--device NAME` as `diff`, `rewind` and `checkpoint diff|restore` take it: repeatable, each
 * value may also list names separated by commas (`--device R1,R2 --device R3`).
 */
export function deviceOption(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.length > 0
    ? v
        .flatMap((d) => String(d).split(','))
        .map((d) => d.trim())
        .filter(Boolean)
    : undefined;
}
