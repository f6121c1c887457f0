/**
 * Loads skill files, validates them and merges the layers (built-in, then user).
 * Each file is parsed once and re-parsed only when its mtime or size changes, so
 * editing a skill takes effect on the next tool call without a restart. A bad file
 * is reported (file + field) and skipped; the other files still load.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import {
  SKILL_KINDS,
  deviceSkillSchema,
  injectionFileSchema,
  packetFileSchema,
  type DeviceSkill,
  type InjectionScenario,
  type PacketSkill,
  type SkillKind,
} from './schema.js';
import { resolveSkillDirs } from './paths.js';

export interface SkillIssue {
  file: string;
  message: string;
}

export interface SkillLibrary {
  device: Map<string, DeviceSkill>;
  packet: Map<string, PacketSkill>;
  injection: Map<string, InjectionScenario>;
  /** `${kind}:${key}` → file that (last) defined it */
  sources: Map<string, string>;
  issues: SkillIssue[];
}

type Parsed =
  | { kind: 'device'; entries: DeviceSkill[] }
  | { kind: 'packet'; entries: PacketSkill[] }
  | { kind: 'injection'; entries: InjectionScenario[] };

interface FileEntry {
  mtimeMs: number;
  size: number;
  result: { ok: true; parsed: Parsed } | { ok: false; message: string };
}

const YAML_FILE = /\.ya?ml$/i;

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  return out || '(top level)';
}

/** One line naming the field, e.g. `protocols[3].display_filter: Invalid input: expected string`. */
function zodMessage(err: z.ZodError, describe?: (path: readonly PropertyKey[]) => string): string {
  return err.issues
    .slice(0, 3)
    .map((i) => `${formatPath(i.path)}${describe ? describe(i.path) : ''}: ${i.message}`)
    .join('; ');
}

function parseFile(kind: SkillKind, file: string): FileEntry['result'] {
  let data: unknown;
  try {
    const doc = parseDocument(readFileSync(file, 'utf8'), { prettyErrors: true, uniqueKeys: true });
    if (doc.errors.length > 0) return { ok: false, message: `YAML: ${doc.errors[0]!.message.split('\n')[0]}` };
    data = doc.toJS();
  } catch (err) {
    return { ok: false, message: `cannot read: ${(err as Error).message}` };
  }
  // Name the entry in errors (`protocols[3] (arp)`) so a long file is easy to fix.
  const entryName = (list: string, keyName: string) => (path: readonly PropertyKey[]) => {
    if (path[0] !== list || typeof path[1] !== 'number') return '';
    const item = ((data as Record<string, unknown[]>)?.[list] ?? [])[path[1]] as Record<string, unknown> | undefined;
    const k = item?.[keyName];
    return typeof k === 'string' ? ` (${k})` : '';
  };
  switch (kind) {
    case 'device': {
      const r = deviceSkillSchema.safeParse(data);
      return r.success ? { ok: true, parsed: { kind, entries: [r.data] } } : { ok: false, message: zodMessage(r.error) };
    }
    case 'packet': {
      const r = packetFileSchema.safeParse(data);
      return r.success
        ? { ok: true, parsed: { kind, entries: r.data.protocols } }
        : { ok: false, message: zodMessage(r.error, entryName('protocols', 'protocol')) };
    }
    case 'injection': {
      const r = injectionFileSchema.safeParse(data);
      return r.success
        ? { ok: true, parsed: { kind, entries: r.data.scenarios } }
        : { ok: false, message: zodMessage(r.error, entryName('scenarios', 'id')) };
    }
  }
}

function listYaml(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => YAML_FILE.test(f))
      .sort()
      .map((f) => join(dir, f));
  } catch {
    return []; // a missing folder (usually the user dir) is simply empty
  }
}

/** A user device file may only add or replace topics of a built-in platform. */
function mergeDevice(base: DeviceSkill | undefined, over: DeviceSkill): DeviceSkill {
  if (!base) return over;
  return {
    platform: base.platform,
    name: over.name ?? base.name,
    description: over.description ?? base.description,
    aliases: [...new Set([...base.aliases, ...over.aliases])],
    topics: { ...base.topics, ...over.topics },
  };
}

export class SkillStore {
  private files = new Map<string, FileEntry>();
  private library: SkillLibrary | undefined;
  private signature = '';

  constructor(readonly dirs: string[]) {}

  /** Current skills; cheap when nothing changed (one readdir + stat per file). */
  load(): SkillLibrary {
    const seen: { kind: SkillKind; file: string; layer: number }[] = [];
    let changed = false;
    this.dirs.forEach((dir, layer) => {
      for (const kind of SKILL_KINDS)
        for (const file of listYaml(join(dir, kind))) {
          let st;
          try {
            st = statSync(file);
          } catch {
            continue; // deleted between readdir and stat
          }
          if (!st.isFile()) continue;
          seen.push({ kind, file, layer });
          const cached = this.files.get(file);
          if (cached && cached.mtimeMs === st.mtimeMs && cached.size === st.size) continue;
          this.files.set(file, { mtimeMs: st.mtimeMs, size: st.size, result: parseFile(kind, file) });
          changed = true;
        }
    });
    const signature = seen.map((s) => s.file).join('\n');
    if (!changed && this.library && signature === this.signature) return this.library;
    for (const file of [...this.files.keys()]) if (!seen.some((s) => s.file === file)) this.files.delete(file);
    this.signature = signature;
    this.library = this.merge(seen);
    return this.library;
  }

  private merge(seen: { kind: SkillKind; file: string; layer: number }[]): SkillLibrary {
    const lib: SkillLibrary = { device: new Map(), packet: new Map(), injection: new Map(), sources: new Map(), issues: [] };
    const layerOf = new Map<string, number>();
    for (const { file, layer } of seen) {
      const entry = this.files.get(file)!;
      if (!entry.result.ok) {
        lib.issues.push({ file, message: entry.result.message });
        continue;
      }
      const parsed = entry.result.parsed;
      const claim = (kind: SkillKind, key: string): boolean => {
        const id = `${kind}:${key}`;
        const prevLayer = layerOf.get(id);
        if (prevLayer === layer) {
          lib.issues.push({ file, message: `duplicate ${kind} entry "${key}" (also in ${lib.sources.get(id)}); kept the first` });
          return false;
        }
        layerOf.set(id, layer);
        lib.sources.set(id, file);
        return true;
      };
      switch (parsed.kind) {
        case 'device':
          for (const d of parsed.entries) if (claim('device', d.platform)) lib.device.set(d.platform, mergeDevice(lib.device.get(d.platform), d));
          break;
        case 'packet':
          for (const p of parsed.entries) if (claim('packet', p.protocol)) lib.packet.set(p.protocol, p);
          break;
        case 'injection':
          for (const s of parsed.entries) if (claim('injection', s.id)) lib.injection.set(s.id, s);
          break;
      }
    }
    return lib;
  }
}

const stores = new Map<string, SkillStore>();

/** The process-wide store for these settings' skill folders. */
export function skillStore(settings?: { skills_dir?: string }, env: NodeJS.ProcessEnv = process.env): SkillStore {
  const dirs = resolveSkillDirs(settings, env);
  const k = dirs.join('\0');
  let s = stores.get(k);
  if (!s) stores.set(k, (s = new SkillStore(dirs)));
  return s;
}

export function loadSkills(settings?: { skills_dir?: string }, env: NodeJS.ProcessEnv = process.env): SkillLibrary {
  return skillStore(settings, env).load();
}
