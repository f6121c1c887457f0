/**
 * A stored tool result as a transcript shows it: device output as the device printed it
 * (a fenced block per command, not one JSON line with escaped \n), other results as
 * indented JSON whose multi-line strings come out as fenced blocks of their own.
 */

/** A fence longer than any backtick run in the text, so output cannot close it early. */
export function fenced(text: string, lang = ''): string[] {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${lang}`, text.replace(/\n+$/, ''), fence];
}

interface DeviceShape {
  device_name: string;
  status?: string;
  error?: string;
  results?: { command?: string; status?: string; output?: string; error?: string }[];
}

const isDevices = (v: unknown): v is DeviceShape[] =>
  Array.isArray(v) &&
  v.length > 0 &&
  v.every((d) => typeof d === 'object' && d !== null && typeof (d as DeviceShape).device_name === 'string');

function deviceLines(devices: DeviceShape[], clip: (s: string) => string): string[] {
  const out: string[] = [];
  for (const d of devices) {
    out.push(`**${d.device_name}** (${d.status ?? '?'})${d.error ? `: ${d.error}` : ''}`, '');
    for (const r of d.results ?? []) {
      out.push(
        `\`${d.device_name}# ${r.command ?? ''}\`${r.status && r.status !== 'success' ? ` (${r.status}${r.error ? `: ${r.error}` : ''})` : ''}`,
      );
      if (r.output) out.push(...fenced(clip(r.output)));
      out.push('');
    }
  }
  return out;
}

/** Multi-line strings leave the JSON for fenced blocks, named by their path. */
function jsonLines(data: unknown, clip: (s: string) => string): string[] {
  const blocks: string[] = [];
  const lifted = JSON.stringify(
    data,
    function (this: unknown, key, value: unknown) {
      if (typeof value === 'string' && value.includes('\n')) {
        blocks.push('', `\`${key}\`:`, ...fenced(clip(value)));
        return `(below: ${key})`;
      }
      return value;
    },
    2,
  );
  return [...fenced(lifted, 'json'), ...blocks];
}

export function toolResultMarkdown(content: string, clip: (s: string) => string = (s) => s): string[] {
  let data: unknown;
  try {
    data = JSON.parse(content);
  } catch {
    return fenced(clip(content));
  }
  if (typeof data !== 'object' || data === null) return fenced(clip(content));
  const { devices, ...rest } = data as { devices?: unknown };
  if (!isDevices(devices)) return jsonLines(data, clip);
  const others = Object.keys(rest).filter((k) => k !== 'status');
  return [...deviceLines(devices, clip), ...(others.length ? jsonLines(rest, clip) : [])];
}
