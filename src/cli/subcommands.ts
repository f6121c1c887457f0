/**
 * The subcommands that are not a run: sessions, skills, auth, config, doctor, map, check, faults, checkpoint, diff, rewind, mcp. Each
 * is declared in src/cli/subcommands/ and loads its module under src/commands/ (or src/mcp/server/) with import() when it runs.
 */
import type { Command } from 'commander';
import { addSessionsCommand } from './subcommands/sessions.js';
import { addSkillsCommand } from './subcommands/skills.js';
import { addAuthCommand } from './subcommands/auth.js';
import { addConfigCommand } from './subcommands/config.js';
import { addDoctorCommand, addMapCommand } from './subcommands/lab-views.js';
import { addDiffCommand, addRewindCommand } from './subcommands/rewind.js';
import { addCheckpointCommand } from './subcommands/checkpoint.js';
import { addCheckCommand } from './subcommands/check.js';
import { addFaultsCommand } from './subcommands/faults.js';
import { addMcpCommand } from './subcommands/mcp.js';

/** In the order `--help` lists them. */
export function addSubcommands(program: Command): void {
  addSessionsCommand(program);
  addSkillsCommand(program);
  addAuthCommand(program);
  addConfigCommand(program);
  addDoctorCommand(program);
  addMapCommand(program);
  addDiffCommand(program);
  addRewindCommand(program);
  addCheckpointCommand(program);
  addCheckCommand(program);
  addFaultsCommand(program);
  addMcpCommand(program);
}
