/**
 * Where skills live: the built-in folder shipped with the package (or a replacement
 * from settings.skills_dir / GNS3_COPILOT_SKILLS_DIR), then the user's folder
 * `$XDG_CONFIG_HOME/gns3-copilot/skills`, whose entries win.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDir } from '../config/paths.js';

let builtinCache: string | undefined;

/**
 * The package's own skills/ folder. Found by walking up from this module, because the
 * module runs from src/skills/ under vitest/tsx and from a dist/ chunk in the built bin.
 */
export function builtinSkillsDir(): string {
  if (builtinCache) return builtinCache;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && existsSync(join(dir, 'skills'))) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'gns3-copilot')
          return (builtinCache = join(dir, 'skills'));
      } catch {
        // unreadable package.json: keep walking
      }
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  // Not inside the package (unusual install): fall back to the conventional relative spot.
  return (builtinCache = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'skills'));
}

export function userSkillsDir(): string {
  return join(configDir(), 'skills');
}

/** Lowest priority first. */
export function resolveSkillDirs(settings?: { skills_dir?: string }, env: NodeJS.ProcessEnv = process.env): string[] {
  const base = settings?.skills_dir ?? env.GNS3_COPILOT_SKILLS_DIR;
  return [base && base.trim() !== '' ? resolve(base) : builtinSkillsDir(), userSkillsDir()];
}
