/** The skill library as the tools see it, plus a warning list when some files are broken. */
import type { ToolContext } from '../types.js';
import { loadSkills, type SkillLibrary } from '../../skills/loader.js';

const warned = new Set<string>();

/** `w` is `{warnings}` when files were skipped, else `{}`: spread it into a tool's JSON answer. */
export function toolLibrary(ctx: ToolContext): { lib: SkillLibrary; w: { warnings?: string[] } } {
  const lib = loadSkills(ctx.settings);
  if (lib.issues.length === 0) return { lib, w: {} };
  for (const i of lib.issues) {
    const line = `${i.file}: ${i.message}`;
    if (!warned.has(line)) {
      warned.add(line);
      ctx.log.warn('skill file skipped', { file: i.file, error: i.message });
    }
  }
  return { lib, w: { warnings: lib.issues.map((i) => `skipped ${i.file}: ${i.message}`) } };
}
