/** device_skills: per-platform CLI knowledge (show commands, config snippets, pitfalls). */
import { z } from 'zod';
import { failure, type ToolOutcome } from '../types.js';
import { findPlatform, normalizeName, suggest } from '../../skills/lookup.js';
import { lookupName, skillTool } from './library.js';
import { count } from '../../core/plural.js';

const found = (data: Record<string, unknown>, display: string): ToolOutcome => ({ status: 'success', data, display });

export const deviceSkillsTool = skillTool({
  name: 'device_skills',
  description:
    'CLI knowledge per device platform (frr, cisco_ios, vpcs, huawei_vrp, juniper_junos, arista_eos, linux): ' +
    'show commands, configuration snippets (interfaces, OSPF, BGP, static, VLAN, ACL), verification and pitfalls. ' +
    'No arguments: list platforms and topics. platform only: list its topics. platform + topic: the content.',
  brief: 'Platform CLI notes; no args: platforms; platform: topics.',
  schema: z.object({
    platform: lookupName(60, 'platform or alias, e.g. frr, cisco_ios, cisco_ios_telnet, vpcs'),
    topic: lookupName(60, 'e.g. show_commands, interfaces, ospf, bgp, static_routing, vlan, acl, verification, pitfalls'),
  }),
  lookup(args, lib) {
    if (!args.platform) {
      if (args.topic) {
        // A topic without a platform: show which platforms cover it.
        const t = normalizeName(args.topic);
        const platforms = [...lib.device.values()].filter((d) => d.topics[t]).map((d) => d.platform);
        const data = { topic: t, platforms, hint: 'pass platform as well to get the content' };
        return platforms.length ? found(data, `${t}: ${platforms.join(', ')}`) : failure(`no platform has the topic "${t}"`, data);
      }
      const platforms = [...lib.device.values()].map((d) => ({ platform: d.platform, name: d.name ?? d.platform, aliases: d.aliases, topics: Object.keys(d.topics) }));
      return found({ platforms }, count(platforms.length, 'platform'));
    }
    const skill = findPlatform(lib, args.platform);
    if (!skill) {
      return failure(`unknown platform "${args.platform}"`, { did_you_mean: suggest([...lib.device.keys()], args.platform), available: [...lib.device.keys()] });
    }
    if (!args.topic) {
      const topics = Object.entries(skill.topics).map(([topic, t]) => ({ topic, summary: t.summary }));
      return found({ platform: skill.platform, name: skill.name ?? skill.platform, description: skill.description, topics }, `${skill.platform}: ${count(topics.length, 'topic')}`);
    }
    const key = normalizeName(args.topic);
    const topic = skill.topics[key];
    if (!topic) {
      return failure(`platform ${skill.platform} has no topic "${args.topic}"`, { available: Object.keys(skill.topics) });
    }
    return found({ platform: skill.platform, topic: key, ...topic }, `${skill.platform} ${key}`);
  },
});
