/**
 * Hard caps on what enters the conversation, so one paste or one runaway tool
 * call cannot stall counting, bloat every checkpoint, or blow the context:
 * a prompt over MAX_PROMPT_CHARS is refused with a clear usage error, and a
 * tool call whose arguments exceed MAX_TOOL_ARGS_CHARS is not executed (the
 * model is told to send smaller batches) and is stored without those
 * arguments.
 */
import { UsageError } from '../errors.js';

export const MAX_PROMPT_CHARS = 256 * 1024;
export const MAX_TOOL_ARGS_CHARS = 64 * 1024;
export const OVERSIZED_ARGS_KEY = '__oversized_arguments';

const kb = (n: number) => `${Math.ceil(n / 1024)} KB`;

export function checkPromptSize(prompt: string): void {
  if (prompt.length > MAX_PROMPT_CHARS)
    throw new UsageError(
      `the prompt is ${kb(prompt.length)}; the limit is ${kb(MAX_PROMPT_CHARS)}: send the relevant part (for large logs or captures, ask the copilot to read them from the devices)`,
    );
}

/** The arguments as they may be stored and dispatched: oversized ones are replaced by a marker. */
export function boundToolArgs(args: Record<string, unknown>): Record<string, unknown> {
  let size: number;
  try {
    size = JSON.stringify(args).length;
  } catch {
    return args;
  }
  if (size <= MAX_TOOL_ARGS_CHARS) return args;
  return { [OVERSIZED_ARGS_KEY]: size };
}

export function oversizedArgsMessage(tool: string, size: number): string {
  return `arguments for ${tool} were ${kb(size)}, over the ${kb(MAX_TOOL_ARGS_CHARS)} limit for one call; it was not executed: split the work into smaller calls`;
}
