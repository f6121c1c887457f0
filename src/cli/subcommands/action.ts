/**
 * What every subcommand's action shares: the options bag commander hands over, the settings
 * loaded for that command, and an abort signal for the ones that talk to devices.
 */
import type { Command } from 'commander';
import { act } from '../process.js';
import { loadFor } from '../options.js';
import type { Settings } from '../../config/schema.js';
import { interruptSignal } from '../../core/interrupt.js';

export type Opts = Record<string, unknown>;

/** An abort signal for a subcommand that talks to devices: Ctrl-C (SIGINT/SIGTERM) stops it between steps. */
export function abortOnSignal(): AbortSignal {
  return interruptSignal().signal;
}

/**
 * A subcommand's action: commander passes the positional arguments, then the options,
 * then the command; `run` gets them with the settings loaded for that command.
 */
export function withSettings(run: (positional: string[], opts: Opts, settings: Settings) => Promise<number | void>) {
  return act(async (...params: unknown[]) => {
    const cmd = params[params.length - 1] as Command;
    const opts = params[params.length - 2] as Opts;
    const { settings } = await loadFor(cmd);
    return run(params.slice(0, -2).map(String), opts, settings);
  });
}
