/**
 * The `fault` argument of the injection tools in inject mode, and turning it into
 * a ledger entry before anything is applied: category and difficulty from the
 * skill entry (or given), the restore (the entry's restore lines for the device's
 * platform, or given) and the repair check (the entry's, or written by the model),
 * validated against the check schema. Pure: no device, no database.
 */
import { z } from 'zod';
import { formatPath, validateCheck } from '../check/load.js';
import type { CheckInput } from '../check/schema.js';
import type { Settings } from '../config/schema.js';
import type { SkillLibrary } from '../skills/loader.js';
import { findScenario, suggest } from '../skills/lookup.js';
import { fillCheck, fillPlaceholders, type InjectionScenario } from '../skills/schema.js';
import type { FaultTargetKind, RestoreCall } from './store.js';

export const DIFFICULTIES = ['easy', 'medium', 'hard'] as const;
export type Difficulty = (typeof DIFFICULTIES)[number];

/** The scenario difficulties each exam level (setting inject_level, `inject --level`) offers. */
export const LEVEL_DIFFICULTIES: Record<Settings['inject_level'], readonly Difficulty[]> = {
  ccna: ['easy'],
  ccnp: ['easy', 'medium'],
  ccie: ['easy', 'medium', 'hard'],
};

export const faultArgSchema = z
  .object({
    scenario: z.string().min(1).max(80).optional().describe('the injection_skills scenario id this fault follows'),
    parameters: z
      .record(z.string(), z.union([z.string(), z.number()]))
      .optional()
      .describe('values of the scenario placeholders you used, e.g. {"interface":"eth0"}; fill the restore and the repair check'),
    category: z.string().min(1).max(40).optional().describe('without a scenario: the fault category (ospf, bgp, interface, …)'),
    difficulty: z.enum(DIFFICULTIES).optional().describe('without a scenario: easy | medium | hard'),
    restore_commands: z
      .array(z.string().min(1))
      .min(1)
      .max(200)
      .optional()
      .describe("config lines that undo the fault (default: the scenario's restore for the device's platform)"),
    repair_check: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        "a check in verify_lab's schema that passes once the fault is gone (default: the scenario's), " +
          'e.g. {"config":{"device":"R1","section":"interface eth0","lacks":"shutdown"}} or {"ospf_neighbor":{"device":"R2","neighbor":"1.1.1.1"}}',
      ),
  })
  .describe('inject mode (required there): the fault this call applies, recorded in the fault ledger with its restore and repair check');

export type FaultArg = z.infer<typeof faultArgSchema>;

/** What the call applies the fault to. */
export type FaultTarget =
  | { kind: 'device'; name: string; platform?: string | undefined; commands: string[] }
  | { kind: 'link'; label: string; linkId: string; ends: [string, string]; filters: Record<string, unknown> };

export interface ResolvedFault {
  target_kind: FaultTargetKind;
  target: string;
  scenario?: string;
  category: string;
  difficulty: Difficulty;
  restore: RestoreCall;
  repair_check: CheckInput;
}

export type Resolution = { ok: true; fault: ResolvedFault } | { ok: false; error: string };

const squash = (s: string) => s.trim().replace(/\s+/g, ' ');
const PLACEHOLDER = /\{\{\s*([a-z][a-z0-9_]*)\s*\}\}/;

function leftover(texts: string[]): string | undefined {
  for (const t of texts) {
    const m = PLACEHOLDER.exec(t);
    if (m) return m[1];
  }
  return undefined;
}

/**
 * Reads the placeholder values out of the lines sent: the first platform whose inject
 * template matches them line for line gives the platform and the values, so the
 * restore and the repair check use what was really applied.
 */
export function matchInject(s: InjectionScenario, commands: string[]): { platform: string; values: Record<string, string> } | undefined {
  const sent = commands.map(squash);
  for (const [platform, lines] of Object.entries(s.inject ?? {})) {
    if (lines.length !== sent.length) continue;
    const values: Record<string, string> = {};
    const ok = lines.every((tpl, i) => {
      const names: string[] = [];
      const re = squash(tpl)
        .split(/(\{\{\s*[a-z][a-z0-9_]*\s*\}\})/)
        .map((part) => {
          const m = /^\{\{\s*([a-z][a-z0-9_]*)\s*\}\}$/.exec(part);
          if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(m[1]!);
          return '(\\S+)';
        })
        .join('');
      const hit = new RegExp(`^${re}$`, 'i').exec(sent[i]!);
      if (!hit) return false;
      return names.every((n, k) => {
        const v = hit[k + 1]!;
        if (values[n] !== undefined && values[n].toLowerCase() !== v.toLowerCase()) return false;
        values[n] ??= v;
        return true;
      });
    });
    if (ok) return { platform, values };
  }
  return undefined;
}

function restoreOf(
  arg: FaultArg,
  s: InjectionScenario | undefined,
  target: FaultTarget,
  values: Record<string, string>,
): RestoreCall | string {
  if (target.kind === 'link') {
    // the filters the fault set, removed again (a link fault's restore is never model-written)
    const types = Object.keys(target.filters);
    return {
      tool: 'manage_gns3_packet_filter',
      args: { link: target.linkId, action: 'clear', filters: Object.fromEntries(types.map((t) => [t, []])) },
    };
  }
  let lines = arg.restore_commands;
  if (!lines) {
    if (!s) return 'fault.restore_commands: required without a scenario (the config lines that undo the fault)';
    const platform = matchInject(s, target.commands)?.platform ?? target.platform;
    const byPlatform = platform ? s.restore?.[platform] : undefined;
    if (!byPlatform)
      return `fault.restore_commands: required: scenario ${s.id} has no restore for ${platform ? `platform ${platform}` : `${target.name}'s platform (unknown)`}`;
    lines = byPlatform.map((l) => fillPlaceholders(l, values));
  }
  const missing = leftover(lines);
  if (missing) return `fault.parameters.${missing}: needed to fill the restore commands`;
  return {
    tool: 'execute_multiple_device_config_commands',
    args: { device_configs: [{ device_name: target.name, config_commands: lines }] },
  };
}

function repairCheckOf(
  arg: FaultArg,
  s: InjectionScenario | undefined,
  target: FaultTarget,
  values: Record<string, string>,
): CheckInput | string {
  let raw: Record<string, unknown> | undefined = arg.repair_check;
  if (!raw && s?.repair_check) raw = fillCheck(s.repair_check, values);
  if (!raw && target.kind === 'link') raw = { link: { a: target.ends[0], b: target.ends[1], clean: true } };
  if (!raw)
    return (
      `fault.repair_check: required${s ? ` (scenario ${s.id} has none)` : ''}: a check in verify_lab's schema that passes once the fault is gone, ` +
      'e.g. {"interface":{"device":"R1","name":"eth0","state":"up"}}'
    );
  const missing = leftover([JSON.stringify(raw)]);
  if (missing) return `fault.parameters.${missing}: needed to fill the repair check`;
  const r = validateCheck(raw, ['fault', 'repair_check']);
  if (!r.ok) return `${formatPath(r.issue.path)}: ${r.issue.message}`;
  return raw as CheckInput;
}

/** The ledger entry of a fault before it is applied, or why the injection is refused. */
export function resolveFault(arg: FaultArg, target: FaultTarget, lib: SkillLibrary, level: Settings['inject_level']): Resolution {
  let s: InjectionScenario | undefined;
  if (arg.scenario !== undefined) {
    s = findScenario(lib, arg.scenario);
    if (!s) {
      const near = suggest([...lib.injection.keys()], arg.scenario);
      return {
        ok: false,
        error: `fault.scenario: unknown scenario "${arg.scenario}"${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}`,
      };
    }
    if (s.target !== target.kind)
      return {
        ok: false,
        error: `fault.scenario: ${s.id} is a ${s.target} fault; apply it with ${s.target === 'link' ? 'manage_gns3_packet_filter' : 'execute_multiple_device_config_commands'}`,
      };
  }
  const category = (s?.category ?? arg.category)?.trim().toLowerCase();
  if (!category) return { ok: false, error: 'fault.category: required without a scenario (ospf, bgp, interface, link, …)' };
  const difficulty = s?.difficulty ?? arg.difficulty;
  if (!difficulty) return { ok: false, error: 'fault.difficulty: required without a scenario (easy, medium or hard)' };
  const offered = LEVEL_DIFFICULTIES[level];
  if (!offered.includes(difficulty))
    return { ok: false, error: `fault: a ${difficulty} fault; inject_level ${level} offers ${offered.join(', ')} faults only` };
  // the values read from the lines sent, then what the model said, then the device itself
  const values: Record<string, string> = {
    ...(s && target.kind === 'device' ? matchInject(s, target.commands)?.values : {}),
    ...Object.fromEntries(Object.entries(arg.parameters ?? {}).map(([k, v]) => [k, String(v)])),
    ...(target.kind === 'device' ? { device: target.name } : {}),
  };
  const restore = restoreOf(arg, s, target, values);
  if (typeof restore === 'string') return { ok: false, error: restore };
  const repair = repairCheckOf(arg, s, target, values);
  if (typeof repair === 'string') return { ok: false, error: repair };
  return {
    ok: true,
    fault: {
      target_kind: target.kind,
      target: target.kind === 'device' ? target.name : target.label,
      ...(s ? { scenario: s.id } : {}),
      category,
      difficulty,
      restore,
      repair_check: repair,
    },
  };
}
