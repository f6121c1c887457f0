/**
 * Runs a command in a real terminal: a detached tmux session on a private
 * socket (never the user's tmux server), so TTY-only paths (hidden prompts)
 * are tested for real. Missing tmux is a failure, not a skip.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TmuxTerminal {
  screen(): string;
  send(...keys: string[]): void;
  /** waits until the screen matches, returns the screen */
  waitFor(re: RegExp, timeoutMs?: number): Promise<string>;
  /** the pane title (what an OSC 0/2 sequence would set) */
  paneTitle(): string;
  close(): void;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function startTerminal(argv: string[], env: Record<string, string>): TmuxTerminal {
  const dir = mkdtempSync(join(tmpdir(), `gns3c-tmux-${process.pid}-`));
  const sock = join(dir, 'sock');
  const tmux = (...args: string[]) => execFileSync('tmux', ['-S', sock, ...args], { encoding: 'utf8' });
  // env -i: the command sees exactly the test's environment, not the tmux server's.
  const envArgs = Object.entries(env).map(([k, v]) => shellQuote(`${k}=${v}`));
  const cmd = `env -i ${envArgs.join(' ')} ${argv.map(shellQuote).join(' ')}; echo "EXIT=$?"; sleep 60`;
  tmux('-f', '/dev/null', 'new-session', '-d', '-x', '120', '-y', '30', cmd);
  const screen = () => tmux('capture-pane', '-p');
  return {
    screen,
    send: (...keys) => void tmux('send-keys', ...keys),
    paneTitle: () => tmux('display-message', '-p', '#{pane_title}').trim(),
    async waitFor(re, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const s = screen();
        if (re.test(s)) return s;
        if (Date.now() > deadline) throw new Error(`terminal never showed ${re}; screen:\n${s}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close() {
      try {
        tmux('kill-server');
      } catch {
        // already gone
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
