/** injection_skills: fault scenarios for troubleshooting practice, with inject and restore steps. */
import { z } from 'zod';
import { failure } from '../types.js';
import { findScenario, normalizeName, suggest } from '../../skills/lookup.js';
import type { InjectionScenario } from '../../skills/schema.js';
import { lookupName, skillTool } from './library.js';
import { count } from '../../core/plural.js';
import { LEVEL_DIFFICULTIES } from '../../faults/spec.js';
import { ledgerOf } from '../fault-ledger.js';
import type { ToolContext } from '../types.js';

/**
 * The scenarios the project's fault ledger has used (id → its fault ids), in inject mode:
 * a class gets each scenario once per project unless the instructor asks for a repeat.
 */
async function usedInProject(ctx: ToolContext): Promise<Map<string, number[]>> {
  const ledger = ledgerOf(ctx);
  const used = new Map<string, number[]>();
  if (!ledger) return used;
  let projectId: string;
  try {
    projectId = (await ctx.project()).projectId;
  } catch {
    return used; // no project open: nothing to hold against the list
  }
  for (const f of ledger.store.list({ project: projectId }))
    if (f.scenario) used.set(f.scenario, [...(used.get(f.scenario) ?? []), f.id]);
  return used;
}

const usedNote = (ids: number[]) => `used in this project already (fault ${ids.map((i) => `#${i}`).join(', ')}): choose another scenario`;

/** How to apply and undo a scenario, phrased as the tool calls that do it. */
export function scenarioSteps(s: InjectionScenario): Record<string, unknown> {
  if (s.target === 'link') {
    return {
      inject: { tool: 'manage_gns3_packet_filter', args: { link: '<link>', action: 'set', filters: s.link_filter, fault: { scenario: s.id } } },
      restore: { tool: 'manage_gns3_packet_filter', args: { link: '<link>', action: 'clear' } },
      note: 'setting filters replaces every filter on the link; restore clears them all',
    };
  }
  return {
    inject: { tool: 'execute_multiple_device_config_commands', config_commands: s.inject, fault: { scenario: s.id } },
    restore: { tool: 'execute_multiple_device_config_commands', config_commands: s.restore },
    note:
      'replace {{placeholders}} with values from the topology; commands are configuration-mode lines per platform; ' +
      'pass fault {scenario} (the values are read from the lines you send; parameters for any they do not show): the fault ledger records it with its restore and repair_check' +
      (s.repair_check ? '' : ' (this scenario has no repair_check: write one in fault.repair_check, verify_lab schema)'),
  };
}

export { LEVEL_DIFFICULTIES };

function summary(s: InjectionScenario) {
  return { id: s.id, title: s.title, category: s.category, severity: s.severity, difficulty: s.difficulty, platforms: s.platforms, target: s.target };
}

export const injectionSkillsTool = skillTool({
  name: 'injection_skills',
  description:
    'Fault-injection scenarios for troubleshooting practice: interface, addressing, OSPF, BGP, static routing, ACL, VLAN, STP, ' +
    'FHRP and link faults (packet loss, delay, corruption, BPF drops). Filter the list by category/difficulty/platform, ' +
    'or pass id for the full scenario with inject and restore steps, symptoms and hints.',
  brief: 'Fault scenarios (id: one).',
  schema: z.object({
    id: lookupName(80, 'scenario id for the full scenario'),
    category: lookupName(40, 'e.g. ospf, bgp, interface, addressing, static, acl, vlan, stp, fhrp, link'),
    difficulty: z.enum(['easy', 'medium', 'hard']).optional(),
    platform: lookupName(40, 'only scenarios for this platform (link faults apply to any)'),
  }),
  async lookup(args, lib, settings, ctx) {
    const level = settings.inject_level;
    const used = await usedInProject(ctx);
    const offered = LEVEL_DIFFICULTIES[level];
    if (args.id) {
      const s = findScenario(lib, args.id);
      if (!s) return failure(`unknown scenario "${args.id}"`, { did_you_mean: suggest([...lib.injection.keys()], args.id) });
      if (!offered.includes(s.difficulty))
        return failure(`scenario ${s.id} is ${s.difficulty}; inject_level ${level} offers ${offered.join(', ')} scenarios only`);
      const { inject: _i, restore: _r, link_filter: _l, ...rest } = s;
      const again = used.get(s.id);
      return {
        status: 'success',
        data: { ...rest, ...scenarioSteps(s), ...(again ? { used_in_project: usedNote(again) } : {}) },
        display: `${s.id}: ${s.title}`,
      };
    }
    const all = [...lib.injection.values()].filter((s) => offered.includes(s.difficulty));
    const category = args.category ? normalizeName(args.category) : undefined;
    const platform = args.platform ? normalizeName(args.platform) : undefined;
    const matches = all.filter(
      (s) =>
        !used.has(s.id) &&
        (!category || s.category === category) &&
        (!args.difficulty || s.difficulty === args.difficulty) &&
        (!platform || s.platforms.includes(platform) || s.platforms.includes('any')),
    );
    const categories: Record<string, number> = {};
    for (const s of all) categories[s.category] = (categories[s.category] ?? 0) + 1;
    return {
      status: 'success',
      data: {
        count: matches.length,
        ...(level !== 'ccie' ? { inject_level: level } : {}),
        scenarios: matches.map(summary),
        ...(used.size > 0 ? { used_in_project: { scenarios: [...used.keys()], note: 'not listed: this project had them already; do not repeat them' } } : {}),
        ...(matches.length === 0 || !category ? { categories } : {}),
      },
      display: count(matches.length, 'scenario'),
    };
  },
});
