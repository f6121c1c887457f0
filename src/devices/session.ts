/**
 * One interactive CLI session on a device console, over telnet or SSH.
 *
 * Everything is prompt-driven: a command is finished the moment the device's
 * own prompt is back on the last line after the command's echo — no fixed
 * sleeps. While waiting we answer ` --More-- ` with a space, answer
 * confirmations only for allow-listed commands (otherwise decline and report),
 * and on a per-command timeout interrupt with Ctrl-C so the session can be
 * reused; a console that does not come back is dropped.
 */
import { performance } from 'node:perf_hooks';
import { CopilotError } from '../errors.js';
import type { CommandResult } from './types.js';
import { CONFIRMATIONS, DRIVERS, detectPrompt, type Driver, type PlatformName } from './drivers.js';
import { cleanText, lastLine } from './text.js';
import type { Transport } from './transport.js';
import type { ConfigureOptions, RunOptions, SessionOptions } from './session-options.js';
import { ConsoleBuffer, confirmAllowed, extractOutput, findDeviceError } from './output.js';
import { wakeEvent, type WakeEvent } from './wake.js';
import { CommandWatch, type CommandEvent } from './command-watch.js';
import { shareSignal } from '../core/shared-signal.js';
import { controlCharRefusal } from './filter.js';

export type { ConfigureOptions, RunOptions, SessionOptions } from './session-options.js';

export class SessionError extends CopilotError {}

type WaitFail = 'timeout' | 'aborted' | 'closed';
class WaitError extends CopilotError {
  constructor(readonly kind: WaitFail) {
    super(kind);
  }
}

const INTERRUPT_WAIT_MS = 2_000;
// Enough raw text for one prompt/pager/question line with its ANSI codes.
const TAIL = 1024;

const round = (ms: number) => Math.round(ms * 10) / 10;
const ECHO_PROBE = 32;

export class DeviceSession {
  platform: PlatformName = 'cisco_ios';
  host = '';
  /** the last prompt line seen */
  prompt = '';
  private driver: Driver = DRIVERS.cisco_ios;
  private promptRe: RegExp = /$^/;
  private readonly buf = new ConsoleBuffer((dropped) => cleanText(dropped).length);
  private notify: (() => void) | null = null;
  private closedReason: string | undefined;
  private broken = false;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly newline: string;
  lastUsed = Date.now();

  private constructor(
    readonly transport: Transport,
    private readonly opts: SessionOptions,
  ) {
    // Telnet NVT Enter is CR LF; on an SSH pty LF alone is Enter (CR LF would be two).
    this.newline = opts.newline ?? (transport.kind === 'ssh' ? '\n' : '\r\n');
    transport.onData((t) => {
      this.buf.append(t);
      this.notify?.();
    });
    transport.onClose((reason) => {
      this.closedReason = reason ?? 'connection closed';
      this.notify?.();
    });
  }

  /** Connects the session to an open transport: wake the console, find the prompt, disable paging. */
  static async open(transport: Transport, opts: SessionOptions, signal?: AbortSignal): Promise<DeviceSession> {
    const s = new DeviceSession(transport, opts);
    try {
      await s.wake(signal);
      if (opts.disablePaging !== false) {
        for (const c of s.driver.disablePaging) await s.run(c, { signal, timeoutMs: Math.min(opts.commandTimeoutMs, 5_000) });
      }
      return s;
    } catch (err) {
      transport.close();
      throw err;
    }
  }

  get usable(): boolean {
    return !this.broken && !this.transport.closed && this.closedReason === undefined;
  }

  get closeReason(): string | undefined {
    return this.closedReason ?? (this.broken ? 'console stopped answering' : undefined);
  }

  close(): void {
    this.broken = true;
    this.transport.close();
  }

  /** Runs one command and returns its output once the prompt is back. */
  run(command: string, opts: RunOptions = {}): Promise<CommandResult> {
    return this.exclusive(() => this.runUnlocked(command, opts));
  }

  /**
   * Enters configuration mode, sends each line, stops at the first failing
   * line unless continueOnError, and always returns to exec mode.
   */
  configure(lines: string[], opts: ConfigureOptions = {}): Promise<{ results: CommandResult[]; error?: string }> {
    return this.exclusive(async () => {
      const results: CommandResult[] = [];
      const timeoutFor = () => {
        const per = opts.timeoutMs ?? this.opts.commandTimeoutMs;
        return opts.deadline === undefined ? per : Math.max(1, Math.min(per, opts.deadline - performance.now()));
      };
      const notRun = (from: number, why: string) => {
        for (const l of lines.slice(from)) results.push({ command: l, status: 'aborted', output: '', error: why, duration_ms: 0 });
      };
      const d = this.driver;
      if (d.configEnter) {
        if (d.unprivileged?.(this.prompt)) {
          const en = await this.runUnlocked('enable', { timeoutMs: timeoutFor(), signal: opts.signal });
          if (en.status !== 'success' || d.unprivileged(this.prompt)) {
            notRun(0, `cannot enter privileged mode: ${en.error ?? 'enable refused'}`);
            return { results, error: 'cannot enter privileged mode' };
          }
        }
        if (!d.inConfig(this.prompt)) {
          const enter = await this.runUnlocked(d.configEnter, { timeoutMs: timeoutFor(), signal: opts.signal });
          if (enter.status !== 'success' || !d.inConfig(this.prompt)) {
            const why = `cannot enter configuration mode (${d.configEnter}): ${enter.error ?? this.prompt}`;
            notRun(0, why);
            return { results, error: why };
          }
        }
      }
      let error: string | undefined;
      try {
        for (const [i, line] of lines.entries()) {
          if (opts.deadline !== undefined && performance.now() >= opts.deadline) {
            notRun(i, 'session timeout reached before this line');
            error = 'session timeout';
            break;
          }
          const r = await this.runUnlocked(line, { timeoutMs: timeoutFor(), signal: opts.signal, config: true });
          results.push(r);
          if (r.status !== 'success' && (!opts.continueOnError || !this.usable || r.status === 'aborted')) {
            notRun(i + 1, `not sent: stopped after "${line}" failed`);
            error = `stopped at line ${i + 1}: ${r.error ?? r.status}`;
            break;
          }
        }
      } finally {
        // Leave the console as we found it: exec mode.
        if (d.configExit && this.usable && d.inConfig(this.prompt)) {
          await this.runUnlocked(d.configExit, { timeoutMs: Math.min(this.opts.commandTimeoutMs, 5_000) });
          if (d.inConfig(this.prompt)) this.broken = true;
        }
      }
      return error ? { results, error } : { results };
    });
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private waitFor<T>(check: () => T | undefined, timeoutMs: number, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (fn: () => void) => {
        this.notify = null;
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const onAbort = () => done(() => reject(new WaitError('aborted')));
      const test = () => {
        let v: T | undefined;
        try {
          v = check();
        } catch (e) {
          return done(() => reject(e));
        }
        if (v !== undefined) return done(() => resolve(v));
        if (this.closedReason !== undefined) return done(() => reject(new WaitError('closed')));
      };
      if (signal?.aborted) return reject(new WaitError('aborted'));
      shareSignal(signal);
      signal?.addEventListener('abort', onAbort, { once: true });
      timer = setTimeout(() => done(() => reject(new WaitError('timeout'))), Math.max(0, timeoutMs));
      this.notify = test;
      test();
    });
  }

  private tailLine(): string {
    return lastLine(cleanText(this.buf.last(TAIL)));
  }

  private async wake(signal?: AbortSignal): Promise<void> {
    const start = performance.now();
    const deadline = start + this.opts.openTimeoutMs;
    // Re-press Enter if nothing useful came back (a console showing "Press RETURN").
    const retryMs = Math.max(300, Math.min(1_500, this.opts.openTimeoutMs / 4));
    let loginSteps = 0;
    let useHint = true;
    for (let attempt = 0; ; attempt++) {
      // Each round starts clean: one Enter, and we wait for the prompt that answers it.
      if (attempt > 0) this.buf.reset();
      this.transport.write(this.newline);
      let ev: WakeEvent;
      try {
        ev = await this.waitFor<WakeEvent>(
          () =>
            wakeEvent(
              this.buf.text,
              this.tailLine(),
              useHint ? this.opts.platform : undefined,
              this.opts.platform !== undefined && attempt > 0,
            ),
          Math.min(retryMs, deadline - performance.now()),
          signal,
        );
      } catch (err) {
        if (err instanceof WaitError && err.kind === 'timeout' && performance.now() < deadline - 1) {
          useHint = false;
          continue;
        }
        if (err instanceof WaitError) {
          if (err.kind === 'timeout') throw new SessionError(`no prompt from the console within ${this.opts.openTimeoutMs} ms`);
          if (err.kind === 'aborted') throw new SessionError('aborted');
          throw new SessionError(`console closed before a prompt appeared (${this.closedReason})`);
        }
        throw err;
      }
      if (ev.kind === 'pager') {
        // Someone left the console inside a pager: quit it, then look for the prompt.
        this.buf.reset();
        this.transport.write('q');
        attempt = -1;
        continue;
      }
      if (ev.kind === 'dialog') {
        this.buf.reset();
        this.transport.write('no' + this.newline);
        continue;
      }
      if (ev.kind === 'login') {
        const wantsPassword = /password/i.test(ev.line);
        const value = wantsPassword ? this.opts.password : this.opts.username;
        if (value === undefined || loginSteps++ > 3) {
          throw new SessionError(
            `the console asks for a login ("${ev.line.trim()}"); set settings.devices.<node>.username and the device password`,
          );
        }
        this.buf.reset();
        this.transport.write(value + this.newline);
        continue;
      }
      this.adopt(ev.platform, ev.host, ev.line);
      this.buf.reset();
      // A console left in configuration mode by a previous user: back to exec.
      if (this.driver.configExit && this.driver.inConfig(ev.line)) {
        await this.runUnlocked(this.driver.configExit, { timeoutMs: Math.min(this.opts.commandTimeoutMs, 5_000), signal });
      }
      this.opts.log?.debug('device prompt', { platform: this.platform, host: this.host, ms: round(performance.now() - start) });
      return;
    }
  }

  private adopt(platform: PlatformName, host: string, line: string): void {
    this.platform = platform;
    this.driver = DRIVERS[platform];
    this.host = host;
    this.promptRe = this.driver.promptFor(host, line);
    this.prompt = line;
  }

  private isPrompt(line: string, renaming: boolean): boolean {
    return this.promptRe.test(line) || (renaming && this.driver.anyPrompt.test(line));
  }

  private async runUnlocked(command: string, opts: RunOptions): Promise<CommandResult> {
    const t0 = performance.now();
    this.lastUsed = Date.now();
    const timeoutMs = opts.timeoutMs ?? this.opts.commandTimeoutMs;
    const result = (status: CommandResult['status'], output: string, error?: string): CommandResult => ({
      command,
      status,
      output,
      ...(error !== undefined ? { error } : {}),
      ...(output !== '' && this.buf.dropped > 0 ? { omitted_chars: this.buf.dropped } : {}),
      duration_ms: round(performance.now() - t0),
    });
    if (!this.usable) return result('error', '', `not sent: ${this.closeReason ?? 'session closed'}`);
    if (opts.signal?.aborted) return result('aborted', '', 'aborted before sending');
    // the last guard (the engine refuses them first, with the same words): a line editor obeys control characters
    const ctl = controlCharRefusal(command);
    if (ctl) return result('blocked', '', `blocked: ${ctl}; not sent`);

    const renaming = this.driver.renames?.test(command) ?? false;
    const probe = command.trim().slice(0, ECHO_PROBE);
    this.buf.reset();
    let pages = 0;
    let declined: string | undefined;
    this.transport.write(command + this.newline);
    const deadline = t0 + timeoutMs;
    const watch = new CommandWatch(
      { buf: this.buf, tailLine: () => this.tailLine(), isPrompt: (l, r) => this.isPrompt(l, r), echoes: this.transport.kind === 'telnet' },
      probe,
      renaming,
    );

    for (;;) {
      let ev: CommandEvent;
      try {
        ev = await this.waitFor(() => watch.next(), deadline - performance.now(), opts.signal);
      } catch (err) {
        if (!(err instanceof WaitError)) throw err;
        const partial = extractOutput(this.buf.text, probe, this.promptRe, pages > 0, false);
        if (err.kind === 'closed') {
          return result('error', partial, `connection lost during the command: ${this.closedReason}`);
        }
        const recovered = await this.interrupt();
        if (err.kind === 'aborted')
          return result('aborted', partial, recovered ? 'aborted (interrupted with Ctrl-C)' : 'aborted; console dropped');
        return result(
          'timeout',
          partial,
          `no prompt after ${Math.round(timeoutMs)} ms; ${recovered ? 'interrupted with Ctrl-C' : 'console did not recover, session dropped'}`,
        );
      }
      if (ev.kind === 'pager') {
        pages++;
        watch.pagerAnswered();
        this.transport.write(' ');
        continue;
      }
      if (ev.kind === 'confirm') {
        watch.confirmAnswered();
        const c = CONFIRMATIONS[ev.index]!;
        if (declined === undefined && confirmAllowed(this.opts.confirmAllow, command)) {
          this.transport.write(c.yes + this.newline);
        } else {
          declined ??= `the device asked "${ev.line.trim()}"; answered "${c.no}" because "${command}" is not in settings.confirm_allow`;
          this.transport.write(c.no + this.newline);
        }
        continue;
      }
      break;
    }

    const line = this.tailLine();
    this.prompt = line;
    if (renaming && !this.promptRe.test(line)) {
      const d = detectPrompt(line, this.platform);
      if (d) this.adopt(this.platform, d.host, line);
    }
    const output = extractOutput(this.buf.text, probe, this.promptRe, pages > 0, true);
    if (declined) return result('aborted', output, declined);
    const error = findDeviceError(this.driver, output, opts.config === true);
    return error ? result('error', output, error) : result('success', output);
  }

  /** Ctrl-C and wait for the prompt; drops the session when it does not come back. */
  private async interrupt(): Promise<boolean> {
    if (!this.usable) return false;
    this.transport.write('\x03');
    try {
      await this.waitFor(() => (this.isPrompt(this.tailLine(), false) ? true : undefined), INTERRUPT_WAIT_MS);
      return true;
    } catch {
      this.close();
      return false;
    }
  }
}
