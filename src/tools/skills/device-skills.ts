/** device_skills: per-platform CLI knowledge (show commands, config snippets, pitfalls). */
import { z } from 'zod';
import { defineTool } from '../types.js';
import { findPlatform, normalizeName, suggest } from '../../skills/lookup.js';
import { compact } from './json.js';
import { toolLibrary } from './library.js';

export const deviceSkillsTool = defineTool({
  name: 'device_skills',
  description:
    'CLI knowledge per device platform (frr, cisco_ios, vpcs, huawei_vrp, juniper_junos, arista_eos, linux): ' +
    'show commands, configuration snippets (interfaces, OSPF, BGP, static, VLAN, ACL), verification and pitfalls. ' +
    'No arguments: list platforms and topics. platform only: list its topics. platform + topic: the content.',
  schema: z.object({
    platform: z.string().trim().min(1).max(60).optional().describe('platform or alias, e.g. frr, cisco_ios, cisco_ios_telnet, vpcs'),
    topic: z.string().trim().min(1).max(60).optional().describe('e.g. show_commands, interfaces, ospf, bgp, static_routing, vlan, acl, verification, pitfalls'),
  }),
  risk: 'read',
  async run(args, ctx) {
    const { lib, w } = toolLibrary(ctx);
    if (!args.platform) {
      if (args.topic) {
        // A topic without a platform: show which platforms cover it.
        const t = normalizeName(args.topic);
        const platforms = [...lib.device.values()].filter((d) => d.topics[t]).map((d) => d.platform);
        return compact({ status: platforms.length ? 'success' : 'error', topic: t, platforms, hint: 'pass platform as well to get the content', ...w });
      }
      return compact({
        status: 'success',
        platforms: [...lib.device.values()].map((d) => ({ platform: d.platform, name: d.name ?? d.platform, aliases: d.aliases, topics: Object.keys(d.topics) })),
        ...w,
      });
    }
    const skill = findPlatform(lib, args.platform);
    if (!skill) {
      return compact({
        status: 'error',
        error: `unknown platform "${args.platform}"`,
        did_you_mean: suggest([...lib.device.keys()], args.platform),
        available: [...lib.device.keys()],
        ...w,
      });
    }
    if (!args.topic) {
      return compact({
        status: 'success',
        platform: skill.platform,
        name: skill.name ?? skill.platform,
        description: skill.description,
        topics: Object.entries(skill.topics).map(([topic, t]) => ({ topic, summary: t.summary })),
        ...w,
      });
    }
    const key = normalizeName(args.topic);
    const topic = skill.topics[key];
    if (!topic) {
      return compact({ status: 'error', error: `platform ${skill.platform} has no topic "${args.topic}"`, available: Object.keys(skill.topics), ...w });
    }
    return compact({ status: 'success', platform: skill.platform, topic: key, ...topic, ...w });
  },
});
