import { errorMessage } from '../../errors.js';
import { saveText } from '../../undo/named-report.js';
import type { SlashCommand } from './types.js';

const USAGE = 'Usage: /checkpoint save NAME [note…] | /checkpoint restore [NAME [device…]]';

/**
 * /checkpoint save NAME [note…]: the project's whole lab under a name (as `checkpoint save`).
 * /checkpoint restore [NAME [device…]]: put it back, asked for call by call in the approval
 * box; without a name, the project's checkpoints in the picker /rewind uses.
 */
export const checkpointCommand: SlashCommand = {
  name: 'checkpoint',
  usage: 'save NAME [note] | restore [NAME [device…]]',
  description: "save the project's lab under a name, or restore it (all of it or some devices)",
  complete: (prefix) => ['save', 'restore'].filter((w) => w.startsWith(prefix)),
  async run(args, ctx) {
    const [action, name, ...rest] = args.split(/\s+/).filter(Boolean);
    if (action !== 'save' && action !== 'restore') return ctx.notice(USAGE, 'warn');
    if (ctx.needsIdle(`/checkpoint ${action}`)) return;
    if (!ctx.settings().project) return ctx.notice('No GNS3 project: pick one with /project first', 'warn');
    if (action === 'restore') {
      if (name) return ctx.restoreCheckpoint(name, rest);
      await ctx.openPicker('checkpoint');
      return;
    }
    if (!name) return ctx.notice(USAGE, 'warn');
    ctx.notice(`Saving the lab as checkpoint ${name}…`);
    try {
      const note = rest.join(' ');
      const report = await ctx.services.saveCheckpoint(ctx.settings(), { name, ...(note ? { note } : {}) });
      const notSaved = report.devices.some((d) => d.status === 'not_saved');
      ctx.notice(`✓ ${saveText(report).trimEnd()}`, notSaved ? 'warn' : 'info');
    } catch (err) {
      ctx.notice(`✗ ${errorMessage(err)}`, 'error');
    }
  },
};
