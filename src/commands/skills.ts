/**
 * `gns3-copilot skills list [--kind device|packet|injection] [--json]` and
 * `gns3-copilot skills show <name> [--json]` (name may be prefixed: `device:frr`).
 */
import type { Settings } from '../config/schema.js';
import { ExitCode } from '../errors.js';
import { jsonText } from '../output/json-text.js';
import { loadSkills, type SkillLibrary } from '../skills/loader.js';
import { findPlatform, findProtocol, findScenario, suggest } from '../skills/lookup.js';
import { SKILL_KINDS, type DeviceSkill, type InjectionScenario, type PacketSkill, type SkillKind } from '../skills/schema.js';
import { scenarioSteps } from '../tools/skills/injection-skills.js';
import { evalScoring } from '../skills/eval-ready.js';

interface Io {
  out(line: string): void;
  err(line: string): void;
}

const stdio: Io = {
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
};

interface ListedSkill {
  kind: SkillKind;
  name: string;
  title: string;
  description: string;
}

function listed(lib: SkillLibrary): ListedSkill[] {
  return [
    ...[...lib.device.values()].map((d) => ({
      kind: 'device' as const,
      name: d.platform,
      title: d.name ?? d.platform,
      description: `topics: ${Object.keys(d.topics).join(', ')}`,
    })),
    ...[...lib.packet.values()].map((p) => ({
      kind: 'packet' as const,
      name: p.protocol,
      title: p.name,
      description: `${p.layer}; filter: ${p.display_filter}`,
    })),
    ...[...lib.injection.values()].map((s) => ({
      kind: 'injection' as const,
      name: s.id,
      title: s.title,
      description: `${s.category}, ${s.severity}, ${s.difficulty}; ${s.platforms.join('/')}`,
    })),
  ];
}

type Found =
  { kind: 'device'; skill: DeviceSkill } | { kind: 'packet'; skill: PacketSkill } | { kind: 'injection'; skill: InjectionScenario };

function find(lib: SkillLibrary, name: string): Found | undefined {
  const m = /^(device|packet|injection):(.+)$/i.exec(name.trim());
  const kinds: SkillKind[] = m ? [m[1]!.toLowerCase() as SkillKind] : [...SKILL_KINDS];
  const n = m ? m[2]! : name;
  for (const kind of kinds) {
    if (kind === 'device') {
      const skill = findPlatform(lib, n);
      if (skill) return { kind, skill };
    } else if (kind === 'packet') {
      const skill = findProtocol(lib, n);
      if (skill) return { kind, skill };
    } else {
      const skill = findScenario(lib, n);
      if (skill) return { kind, skill };
    }
  }
  return undefined;
}

// ---------------------------------------------------------------- text rendering

function renderDevice(d: DeviceSkill, io: Io): void {
  io.out(`${d.name ?? d.platform}  [device:${d.platform}]`);
  if (d.aliases.length) io.out(`aliases: ${d.aliases.join(', ')}`);
  if (d.description) io.out(d.description);
  for (const [name, t] of Object.entries(d.topics)) {
    io.out('');
    io.out(`## ${name} — ${t.summary}`);
    for (const c of t.commands ?? []) io.out(`  ${c.command}  — ${c.purpose}`);
    if (t.config?.length) {
      io.out('  config:');
      for (const l of t.config) io.out(`    ${l}`);
    }
    if (t.verify?.length) io.out(`  verify: ${t.verify.join('; ')}`);
    for (const p of t.pitfalls ?? []) io.out(`  ! ${p}`);
  }
}

function renderPacket(p: PacketSkill, io: Io): void {
  io.out(`${p.name}  [packet:${p.protocol}]  layer ${p.layer}`);
  if (p.aliases.length) io.out(`aliases: ${p.aliases.join(', ')}`);
  io.out(p.description);
  io.out(`display filter: ${p.display_filter}`);
  io.out('fields:');
  const w = Math.max(...p.fields.map((f) => f.field.length));
  for (const f of p.fields) io.out(`  ${f.field.padEnd(w)}  ${f.meaning}`);
  io.out('checks:');
  for (const c of p.checks) io.out(`  - ${c}`);
}

function renderScenario(s: InjectionScenario, io: Io): void {
  io.out(`${s.title}  [injection:${s.id}]`);
  io.out(
    `category ${s.category} · severity ${s.severity} · difficulty ${s.difficulty} · platforms ${s.platforms.join(', ')} · target ${s.target}`,
  );
  io.out(s.description);
  if (s.parameters.length) {
    io.out('parameters:');
    for (const p of s.parameters) io.out(`  {{${p.name}}}  ${p.description} (e.g. ${p.example})`);
  }
  if (s.target === 'link') {
    io.out(`inject: manage_gns3_packet_filter set ${JSON.stringify(s.link_filter)}`);
    io.out('restore: manage_gns3_packet_filter clear');
  } else {
    for (const side of ['inject', 'restore'] as const)
      for (const [platform, lines] of Object.entries(s[side] ?? {})) {
        io.out(`${side} (${platform}):`);
        for (const l of lines) io.out(`  ${l}`);
      }
  }
  io.out('symptoms:');
  for (const x of s.symptoms) io.out(`  - ${x}`);
  io.out('hints:');
  for (const x of s.hints) io.out(`  - ${x}`);
  if (s.verify?.length) io.out(`verify: ${s.verify.join('; ')}`);
  if (s.ticket !== undefined) io.out(`ticket: ${s.ticket}`);
  io.out(`eval: ${evalScoring(s)}`);
}

// ---------------------------------------------------------------- command

export async function skillsCommand(
  action: 'list' | 'show',
  args: string[],
  opts: Record<string, unknown>,
  settings: Settings,
  io: Io = stdio,
): Promise<number> {
  const json = opts.json === true;
  const lib = loadSkills(settings);
  const issues = lib.issues.map((i) => ({ file: i.file, error: i.message }));
  // Broken files never hide the good ones, but the user should know they were skipped.
  if (!json) for (const i of issues) io.err(`warning: skipped ${i.file}: ${i.error}`);

  if (action === 'list') {
    const kind = opts.kind as string | undefined;
    if (kind !== undefined && !(SKILL_KINDS as readonly string[]).includes(kind)) {
      io.err(`--kind must be one of ${SKILL_KINDS.join('|')} (got "${kind}")`);
      return ExitCode.Usage;
    }
    const items = listed(lib).filter((s) => !kind || s.kind === kind);
    if (json) {
      io.out(jsonText({ skills: items, issues }));
      return ExitCode.Ok;
    }
    for (const k of SKILL_KINDS) {
      const group = items.filter((s) => s.kind === k);
      if (group.length === 0) continue;
      io.out(`${k} (${group.length})`);
      const w = Math.max(...group.map((s) => s.name.length));
      for (const s of group) io.out(`  ${s.name.padEnd(w)}  ${s.title} — ${s.description}`);
    }
    return ExitCode.Ok;
  }

  const name = args[0]?.trim();
  if (!name) {
    io.err('skills show needs a name (see: gns3-copilot skills list)');
    return ExitCode.Usage;
  }
  const found = find(lib, name);
  if (!found) {
    const near = suggest(
      listed(lib).map((s) => s.name),
      name.replace(/^\w+:/, ''),
      3,
    );
    io.err(`unknown skill "${name}"${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}; see: gns3-copilot skills list`);
    return ExitCode.Usage;
  }
  if (json) {
    const skill = found.kind === 'injection' ? { ...found.skill, steps: scenarioSteps(found.skill) } : found.skill;
    io.out(jsonText({ kind: found.kind, skill, issues }));
    return ExitCode.Ok;
  }
  if (found.kind === 'device') renderDevice(found.skill, io);
  else if (found.kind === 'packet') renderPacket(found.skill, io);
  else renderScenario(found.skill, io);
  return ExitCode.Ok;
}
