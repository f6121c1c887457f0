import { errorMessage } from '../../errors.js';
import { topologyMarkdown } from '../topology.js';
import type { SlashCommand } from './types.js';

export const topologyCommand: SlashCommand = {
  name: 'topology',
  description: 'show the current topology as a table',
  async run(_args, ctx) {
    const project = ctx.settings().project ?? ctx.state.projectId ?? ctx.state.projectName;
    if (!project) return ctx.notice('No project selected (/project)', 'warn');
    try {
      const topo = await ctx.services.topology(ctx.settings(), project);
      ctx.dispatch({ type: 'block', title: `Topology — ${topo.project_name}`, body: topologyMarkdown(topo) });
    } catch (e) {
      ctx.notice(`✗ ${errorMessage(e)}`, 'error');
    }
  },
};
