/** The skill library as the tools see it, plus a warning list when some files are broken. */
import type { Settings } from '../../config/schema.js';
import { z } from 'zod';
import { defineTool, type ToolContext, type ToolDef, type ToolOutcome } from '../types.js';
import type { ToolName } from '../../core/modes.js';
import { loadSkills, type SkillLibrary } from '../../skills/loader.js';

const warned = new Set<string>();

/** `w` is `{warnings}` when files were skipped, else `{}`: spread it into a tool's answer. */
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

/** An optional name to look up (platform, topic, scenario id, protocol): trimmed, 1..max characters. */
export function lookupName(max: number, what: string) {
  return z.string().trim().min(1).max(max).optional().describe(what);
}

/**
 * A read-only lookup in the skill library: `lookup` answers from the loaded
 * library, and the skipped files' warnings are added to every answer.
 */
export function skillTool<S extends z.ZodType>(spec: {
  name: ToolName;
  description: string;
  brief: string;
  schema: S;
  /** `ctx`: for a lookup that also reads the session (injection_skills: the ledger's used scenarios) */
  lookup(args: z.infer<S>, lib: SkillLibrary, settings: Settings, ctx: ToolContext): ToolOutcome | Promise<ToolOutcome>;
}): ToolDef<S> {
  return defineTool({
    name: spec.name,
    description: spec.description,
    brief: spec.brief,
    schema: spec.schema,
    risk: 'read',
    group: 'knowledge',
    run: async (args, ctx) => {
      const { lib, w } = toolLibrary(ctx);
      const o = await spec.lookup(args, lib, ctx.settings, ctx);
      return typeof o.data === 'string' || !w.warnings ? o : { ...o, data: { ...o.data, ...w } };
    },
  });
}
