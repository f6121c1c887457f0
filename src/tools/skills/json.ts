/** Compact JSON for the model: no whitespace, undefined dropped. */
export function compact(value: unknown): string {
  return JSON.stringify(value);
}

export function errorResult(error: string, extra: Record<string, unknown> = {}): string {
  return compact({ status: 'error', error, ...extra });
}
