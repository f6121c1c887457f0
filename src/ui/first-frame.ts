/**
 * The TUI's first frame, drawn by src/cli.ts before anything heavy loads (commander, the
 * settings schema, React, Ink, the agent core): a start-up line and the input line, which
 * already takes typing. Keys typed meanwhile are kept; when Ink mounts, src/ui/start.ts takes
 * them over (`takeFirstFrame`): the text goes on the App's input line, a line already entered
 * is sent once the session is open. Depends on nothing, so it costs nothing to load.
 *
 * Only drawn when the command line surely starts the TUI (both ends a terminal, no one-shot or
 * help flag, no subcommand); anything that ends the process before Ink mounts erases it first
 * (`dropFirstFrame`, called by the error reporter and on exit).
 */

/** The subcommands (`gns3-copilot --help`, Commands); test/ui/first-frame.test.ts holds the list to the program. */
export const SUBCOMMANDS: ReadonlySet<string> = new Set([
  'inject',
  'sessions',
  'skills',
  'auth',
  'config',
  'doctor',
  'check',
  'faults',
  'diff',
  'rewind',
  'checkpoint',
  'map',
  'mcp',
  'eval',
  'help',
]);

/** Flags that make the run a one-shot run or print something and exit. */
const NOT_TUI_FLAGS = ['-p', '--prompt', '--json', '--stream-json', '-h', '--help', '-V', '--version'];

export interface TtyLike {
  isTTY?: boolean;
}

/** Whether this command line starts the TUI (false when unsure: the TUI then draws its first frame with Ink). */
export function startsTui(argv: readonly string[], io: { stdin: TtyLike; stdout: TtyLike; env: NodeJS.ProcessEnv }): boolean {
  if (io.stdin.isTTY !== true || io.stdout.isTTY !== true) return false;
  // Ink draws only the last frame under CI, and a dumb terminal gets no cursor movement.
  if (io.env.CI || io.env.CONTINUOUS_INTEGRATION || io.env.TERM === 'dumb') return false;
  for (const a of argv) {
    if (SUBCOMMANDS.has(a)) return false;
    if (NOT_TUI_FLAGS.some((f) => a === f || a.startsWith(`${f}=`))) return false;
    // short flags bundled with a value (`-pfoo`)
    if (/^-[pVh]/.test(a) && !a.startsWith('--')) return false;
  }
  return true;
}

export interface EarlyInput {
  /** what is on the input line */
  typed: string;
  /** a line entered with Enter before the TUI was up */
  entered?: string;
}

interface Drawn {
  input: EarlyInput;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  onReadable: () => void;
  onExit: () => void;
}

let drawn: Drawn | undefined;

const STARTING = 'gns3-copilot starting…';

function inputLine(d: Drawn): string {
  const room = Math.max(1, (d.stdout.columns || 80) - 3);
  const text = [...d.input.typed];
  return `\r\u001b[2K› ${text.slice(-room).join('')}`;
}

/** Applies one chunk of keys and redraws; Ctrl-C and Ctrl-D quit as they would in the TUI. */
function onKeys(d: Drawn, chunk: string): void {
  // Arrow keys and other escape sequences wait for the real editor.
  if (chunk.startsWith('\u001b')) return;
  for (const ch of chunk) {
    if (ch === '\u0003') return quit(130);
    if (ch === '\u0004') return quit(0);
    if (ch === '\r' || ch === '\n') {
      if (d.input.typed.trim() !== '') d.input.entered = d.input.typed;
      d.input.typed = '';
    } else if (ch === '\u007f' || ch === '\b') d.input.typed = [...d.input.typed].slice(0, -1).join('');
    else if (ch >= ' ') d.input.typed += ch;
  }
  const note = d.input.entered !== undefined ? ` · ⧗ ${d.input.entered}` : '';
  d.stdout.write(`\u001b[1A\r\u001b[2K${STARTING}${note}\n${inputLine(d)}`);
}

function quit(code: number): void {
  dropFirstFrame();
  process.exit(code);
}

/** Draws the first frame and starts keeping keys, when argv starts the TUI. */
export function drawFirstFrame(
  argv: readonly string[] = process.argv.slice(2),
  io: { stdin: NodeJS.ReadStream; stdout: NodeJS.WriteStream; env: NodeJS.ProcessEnv } = {
    stdin: process.stdin,
    stdout: process.stdout,
    env: process.env,
  },
): boolean {
  if (drawn || !startsTui(argv, io)) return false;
  const d: Drawn = {
    input: { typed: '' },
    stdin: io.stdin,
    stdout: io.stdout,
    // 'readable' and read(), as Ink reads: the stream stays paused, so whatever arrives between
    // this listener going and Ink's coming waits in the stream for Ink.
    onReadable: () => {
      let chunk: Buffer | string | null;
      while ((chunk = d.stdin.read() as Buffer | string | null) !== null)
        onKeys(d, typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    },
    onExit: () => dropFirstFrame(),
  };
  drawn = d;
  io.stdin.setRawMode(true);
  io.stdin.on('readable', d.onReadable);
  process.on('exit', d.onExit);
  io.stdout.write(`${STARTING}\n${inputLine(d)}`);
  return true;
}

/** Stops keeping keys and erases the frame (the cursor ends where the frame began). */
function detach(d: Drawn): void {
  d.stdin.off('readable', d.onReadable);
  process.off('exit', d.onExit);
  d.stdout.write('\r\u001b[2K\u001b[1A\u001b[2K');
  drawn = undefined;
}

/** For Ink, right before its first frame: erases this one and hands over what was typed (undefined: none was drawn). */
export function takeFirstFrame(): EarlyInput | undefined {
  const d = drawn;
  if (!d) return undefined;
  detach(d);
  return d.input;
}

/** Erases the frame and gives the terminal back (the process ends before the TUI is up). */
export function dropFirstFrame(): void {
  const d = drawn;
  if (!d) return;
  detach(d);
  d.stdin.setRawMode(false);
}
