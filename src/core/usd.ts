/** `$0.0123`, `$1.25`, or `—` when unknown. */
export function formatUsd(v: number | null | undefined): string {
  if (v === null || v === undefined) return '—';
  return v < 0.01 ? `$${v.toFixed(4)}` : `$${v.toFixed(2)}`;
}
