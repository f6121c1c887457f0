/**
 * Input history for ↑/↓. Lines that look like secrets (API keys, tokens,
 * passwords) are never stored, so they cannot be recalled or leak later.
 */

const SECRET_PATTERNS: RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{8,}/, // OpenAI / DeepSeek style keys
  /\bsk-(ant|or|proj)-[A-Za-z0-9_-]{4,}/,
  /\b(ghp|gho|ghs|github_pat)_[A-Za-z0-9_]{16,}/,
  /\bxox[abpr]-[A-Za-z0-9-]{10,}/,
  /\bAKIA[0-9A-Z]{16}\b/,
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\./, // JWT
  /\b(api[_-]?key|token|secret|passw(or)?d|passphrase|pwd)\b\s*[:=]?\s*\S+/i,
  /\b(enable\s+secret|username\s+\S+\s+(password|secret))\s+\S+/i,
  /\bBearer\s+[A-Za-z0-9._~+/-]{12,}/i,
];

/** Long unbroken high-entropy token (mixed letters and digits, ≥ 32 chars). */
function looksLikeRandomToken(line: string): boolean {
  return line.split(/\s+/).some((w) => w.length >= 32 && /[a-z]/i.test(w) && /\d/.test(w) && !/[/.]{2,}/.test(w) && !w.includes('://'));
}

export function looksSecret(line: string): boolean {
  return SECRET_PATTERNS.some((re) => re.test(line)) || looksLikeRandomToken(line);
}

export class InputHistory {
  private readonly items: string[] = [];
  /** index into items while browsing; items.length = not browsing */
  private cursor = 0;
  private draft = '';

  constructor(private readonly max = 500) {}

  /** Records a submitted line unless it is empty, a repeat of the last, or secret-looking. */
  push(line: string): boolean {
    this.cursor = this.items.length;
    const t = line.trim();
    if (!t || looksSecret(t)) {
      this.cursor = this.items.length;
      return false;
    }
    if (this.items[this.items.length - 1] !== t) this.items.push(t);
    if (this.items.length > this.max) this.items.shift();
    this.cursor = this.items.length;
    return true;
  }

  /** ↑: older entry (keeps the current draft so ↓ can bring it back). */
  prev(current: string): string {
    if (this.items.length === 0) return current;
    if (this.cursor === this.items.length) this.draft = current;
    this.cursor = Math.max(0, this.cursor - 1);
    return this.items[this.cursor]!;
  }

  /** ↓: newer entry, finally the draft. */
  next(): string {
    if (this.cursor >= this.items.length) return this.draft;
    this.cursor++;
    return this.cursor === this.items.length ? this.draft : this.items[this.cursor]!;
  }

  get entries(): readonly string[] {
    return this.items;
  }
}
