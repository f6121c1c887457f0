/**
 * Resources: the project topology as the agent sees it (gns3://project/{id}/topology)
 * and the skills library (skill://device/frr, skill://packet/ospf, skill://injection/<id>).
 */
import type { Resource, ResourceTemplate, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { stringify } from 'yaml';
import { loadSkills } from '../../skills/loader.js';
import { SKILL_KINDS, type SkillKind } from '../../skills/schema.js';
import { errorMessage } from '../../errors.js';
import type { McpRuntime } from './runtime.js';

export const TOPOLOGY_URI = /^gns3:\/\/project\/([^/]+)\/topology$/;
export const SKILL_URI = /^skill:\/\/(device|packet|injection)\/(.+)$/;

export const topologyUri = (projectId: string) => `gns3://project/${projectId}/topology`;

export const RESOURCE_TEMPLATES: ResourceTemplate[] = [
  {
    uriTemplate: 'gns3://project/{project_id}/topology',
    name: 'topology',
    description:
      'Compact text of the GNS3 project topology (nodes, status, consoles, links, free ports), as the copilot agent sees it; above topology_inline_max nodes a summary (read parts with gns3_topology_reader nodes)',
    mimeType: 'text/plain',
  },
  {
    uriTemplate: 'skill://{kind}/{name}',
    name: 'skill',
    description: 'One skill of the library: kind device (platform commands), packet (protocol analysis) or injection (fault scenario)',
    mimeType: 'application/yaml',
  },
];

export async function listResources(rt: McpRuntime): Promise<Resource[]> {
  const out: Resource[] = [];
  if (rt.hasProject) {
    try {
      const p = await rt.openProject();
      out.push({
        uri: topologyUri(p.projectId),
        name: `${p.projectName} topology`,
        description: `Topology of GNS3 project ${p.projectName}`,
        mimeType: 'text/plain',
      });
    } catch (err) {
      rt.log.warn('mcp: project not available for resources', { error: errorMessage(err) });
    }
  }
  const lib = loadSkills(rt.settings);
  for (const kind of SKILL_KINDS)
    for (const name of lib[kind].keys())
      out.push({ uri: `skill://${kind}/${name}`, name: `${kind} skill ${name}`, mimeType: 'application/yaml' });
  return out;
}

export class ResourceNotFound extends Error {}

export async function readResource(rt: McpRuntime, uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
  const topo = TOPOLOGY_URI.exec(uri);
  if (topo) {
    const p = await rt.openProject();
    if (decodeURIComponent(topo[1]!) !== p.projectId && decodeURIComponent(topo[1]!) !== p.projectName)
      throw new ResourceNotFound(
        `this server serves project ${p.projectName} (${p.projectId}) only; start another with --project to read ${topo[1]}`,
      );
    return { contents: [{ uri, mimeType: 'text/plain', text: await rt.topologyText(signal, { resource: true }) }] };
  }
  const skill = SKILL_URI.exec(uri);
  if (skill) {
    const kind = skill[1] as SkillKind;
    const entry = loadSkills(rt.settings)[kind].get(decodeURIComponent(skill[2]!));
    if (!entry) throw new ResourceNotFound(`no ${kind} skill "${skill[2]}" (list resources to see them)`);
    return { contents: [{ uri, mimeType: 'application/yaml', text: stringify(entry) }] };
  }
  throw new ResourceNotFound(`unknown resource ${uri}`);
}
