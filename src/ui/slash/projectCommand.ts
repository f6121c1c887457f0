import type { SlashCommand } from './types.js';

export const projectCommand: SlashCommand = {
  name: 'project',
  usage: '[name|id]',
  description: 'show or switch the GNS3 project (picker without a name)',
  async run(project, ctx) {
    if (ctx.needsIdle('/project')) return;
    await (project ? ctx.switchProject(project) : ctx.openPicker('project_switch'));
  },
};
