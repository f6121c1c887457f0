/** Small formatting helpers shared by the status bar and tool lines. */

/** 128000 → "128K", 1500000 → "1.5M", 950 → "950". */
export function compactNumber(n: number): string {
  if (!Number.isFinite(n)) return '∞';
  const abs = Math.abs(n);
  if (abs >= 1_000_000) return `${trimZero((n / 1_000_000).toFixed(1))}M`;
  if (abs >= 10_000) return `${Math.round(n / 1000)}K`;
  if (abs >= 1000) return `${trimZero((n / 1000).toFixed(1))}K`;
  return String(Math.round(n));
}

function trimZero(s: string): string {
  return s.endsWith('.0') ? s.slice(0, -2) : s;
}

/** 420 → "420ms", 2300 → "2.3s", 95000 → "1m35s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return `${m}m${String(s).padStart(2, '0')}s`;
}

/** `iter 3/20 · tools 5/∞` */
export function limitsText(iterations: number, maxIterations: number, tools: number, maxTools: number | undefined): string {
  return `iter ${iterations}/${maxIterations} · tools ${tools}/${maxTools === undefined ? '∞' : maxTools}`;
}

/** Cut to `max` display columns with an ellipsis (code points; good enough for ASCII-heavy CLI text). */
export function truncate(text: string, max: number): string {
  const oneLine = text.replace(/\s*\n\s*/g, ' ');
  const chars = [...oneLine];
  if (chars.length <= max) return oneLine;
  if (max <= 1) return '…';
  return chars.slice(0, max - 1).join('') + '…';
}
