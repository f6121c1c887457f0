/**
 * `gns3-copilot map [--project P] [--width N]`: the lab drawn once as text (the TUI's /map,
 * printed whole) for a shell, a pipe or a lab handout. It reads the topology over REST and
 * changes nothing: a closed project is not opened, and no notification stream is listened
 * to (the controller's auto_close rule never fires because of it). Colour only on a
 * terminal, never with NO_COLOR / --no-color.
 */
import type { Settings } from '../config/schema.js';
import { UsageError } from '../errors.js';
import { createLogger } from '../log.js';
import { colorEnabled } from '../ui/style.js';
import { sanitizeDeep } from '../security/sanitize.js';

export const MAP_WIDTH = { min: 20, max: 1000, fallback: 120 };

export function parseMapWidth(raw: string | number | undefined, columns: number | undefined): number {
  if (raw === undefined) return columns && columns >= MAP_WIDTH.min ? columns : MAP_WIDTH.fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < MAP_WIDTH.min || n > MAP_WIDTH.max)
    throw new UsageError(`--width: columns, an integer ${MAP_WIDTH.min}..${MAP_WIDTH.max} (got ${String(raw)})`);
  return n;
}

export async function mapCommand(settings: Settings, opts: { width?: unknown }, out: NodeJS.WriteStream = process.stdout): Promise<number> {
  const width = parseMapWidth(typeof opts.width === 'string' ? opts.width : undefined, out.isTTY ? out.columns : undefined);
  if (!settings.project) throw new UsageError('no GNS3 project selected: pass --project <name|id> (or set GNS3_PROJECT)');
  const log = createLogger(settings.log_level);
  const [{ createKeychainGns3Client }, { Gns3Project }, { renderMap }] = await Promise.all([
    import('../gns3/keychain-client.js'),
    import('../gns3/project.js'),
    import('../ui/map/render.js'),
  ]);
  const client = createKeychainGns3Client(settings, log);
  try {
    const raw = await client.findProject(settings.project);
    const topology = sanitizeDeep(await new Gns3Project(client, raw).getTopology());
    const pic = renderMap(topology, { color: colorEnabled(settings.color) && out.isTTY === true, fit: { width, height: Infinity } });
    const drawing = pic.view(0, 0, pic.width, pic.height);
    // the layout's margin rows carry nothing on paper
    while (drawing[0] === '') drawing.shift();
    while (drawing[drawing.length - 1] === '') drawing.pop();
    const lines = [pic.title, '', ...drawing, ...(pic.legend.length ? ['', ...pic.legend] : [])];
    if (pic.width > width) lines.push('', `(the map is ${pic.width} columns wide, more than --width ${width})`);
    out.write(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    await client.close();
  }
}
