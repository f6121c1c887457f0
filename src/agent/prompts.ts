/**
 * System prompts live as editable Markdown in prompts/. They are read on use and
 * re-read only when the file's mtime changes, so editing a prompt takes effect on
 * the next LLM call without a restart and without re-reading on every call.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CopilotMode } from '../core/modes.js';

export const TOPOLOGY_PLACEHOLDER = '{{topology_info}}';
export const NO_TOPOLOGY = '(No topology information available)';

export type PromptName = CopilotMode | 'title' | 'summary' | 'validator' | 'root_validator';

/** The package's prompts/ dir: found by walking up from this module (src/agent or dist/). */
export function findPromptsDir(start = dirname(fileURLToPath(import.meta.url))): string {
  if (process.env.GNS3_COPILOT_PROMPTS_DIR) return process.env.GNS3_COPILOT_PROMPTS_DIR;
  let dir = start;
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'prompts');
    if (existsSync(join(candidate, 'teaching_assistant.md'))) return candidate;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  throw new Error(`prompts/ directory not found above ${start}`);
}

interface Cached {
  mtimeMs: number;
  size: number;
  text: string;
}

export class PromptLibrary {
  private cache = new Map<string, Cached>();
  constructor(readonly dir: string = findPromptsDir()) {}

  get(name: PromptName): string {
    const file = join(this.dir, `${name}.md`);
    const st = statSync(file);
    const hit = this.cache.get(file);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.text;
    const text = readFileSync(file, 'utf8').trim();
    this.cache.set(file, { mtimeMs: st.mtimeMs, size: st.size, text });
    return text;
  }

  /** The mode's system prompt with the topology text injected. */
  system(mode: CopilotMode, topologyText: string | undefined): string {
    const t = topologyText && topologyText.trim() ? topologyText.trim() : NO_TOPOLOGY;
    const p = this.get(mode);
    return p.includes(TOPOLOGY_PLACEHOLDER) ? p.split(TOPOLOGY_PLACEHOLDER).join(t) : `${p}\n\n## Current topology\n${t}`;
  }
}
