/** The skill library as the tools see it, plus a warning list when some files are broken. */
import type { ToolContext } from '../types.js';
import { loadSkills, type SkillLibrary } from '../../skills/loader.js';

const warned = new Set<string>();

export function toolLibrary(ctx: ToolContext): { lib: SkillLibrary; warnings?: string[] } {
  const lib = loadSkills(ctx.settings);
  if (lib.issues.length === 0) return { lib };
  for (const i of lib.issues) {
    const line = `${i.file}: ${i.message}`;
    if (!warned.has(line)) {
      warned.add(line);
      ctx.log.warn('skill file skipped', { file: i.file, error: i.message });
    }
  }
  return { lib, warnings: lib.issues.map((i) => `skipped ${i.file}: ${i.message}`) };
}
