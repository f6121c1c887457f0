import { MODE_SHORT_NAME, MODE_TOOLS, parseMode, type CopilotMode } from '../../core/modes.js';
import { errorMessage } from '../../errors.js';
import type { SlashCommand } from './types.js';

const MODE_WORDS = ['teaching', 'lab', 'inject'];

/** The argument of /mode: nothing (show), a mode, or a word that is not one. */
export function parseModeArg(arg: string): { mode?: CopilotMode; invalid?: string } {
  if (!arg) return {};
  const mode = parseMode(arg);
  return mode ? { mode } : { invalid: arg };
}

export const modeCommand: SlashCommand = {
  name: 'mode',
  usage: '[teaching|lab|inject]',
  description: 'show or switch the copilot mode',
  complete: (prefix) => MODE_WORDS.filter((w) => w.startsWith(prefix)),
  run(args, ctx) {
    const { mode, invalid } = parseModeArg(args);
    if (invalid) return ctx.notice(`Unknown mode "${invalid}": use teaching, lab or inject`, 'error');
    const current = ctx.state.mode;
    if (!mode) return ctx.notice(`Mode: ${MODE_SHORT_NAME[current]} (${current}). Tools: ${MODE_TOOLS[current].join(', ')}`);
    try {
      ctx.session?.setMode(mode);
    } catch (err) {
      return ctx.notice(`✗ ${errorMessage(err)}`, 'error');
    }
    ctx.dispatch({ type: 'set_mode', mode });
    ctx.notice(`Mode → ${MODE_SHORT_NAME[mode]} (${mode})${ctx.turnRunning() ? ' from the next request' : ''}`);
  },
};
