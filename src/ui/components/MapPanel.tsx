/** The /map panel: a header (live or why not, the keys), a window of the drawing, the legend of marked links. */
import { Box, Text } from 'ink';
import type { MapPicture } from '../map/render.js';
import { truncate } from '../format.js';
import { Tone } from './theme.js';

/** At most this many legend lines; the rest are counted. */
export const MAP_LEGEND_MAX = 3;

/** The rows the legend of `marked` links takes under the drawing. */
export function mapLegendRows(marked: number): number {
  return Math.min(marked, MAP_LEGEND_MAX) + (marked > MAP_LEGEND_MAX ? 1 : 0);
}

export function MapPanel(props: { picture: MapPicture; x: number; y: number; width: number; rows: number; live: boolean; reason: string }) {
  const { picture: p, x, y, width, rows } = props;
  const pans = p.width > width || p.height > rows;
  // the position comes before the reason: on a narrow screen the end of the line is cut
  const where = pans ? ` · ${x},${y} of ${p.width}×${p.height} · ←↑↓→ pan` : '';
  const legend = p.legend.slice(0, MAP_LEGEND_MAX);
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Tone tone="accent" bold>
          {p.title}
        </Tone>
        <Tone tone="muted">
          {where}
          {' · '}
          {props.live ? 'live' : truncate(`not live: ${props.reason}`, 80)} · r re-reads · Esc closes
        </Tone>
      </Text>
      {p.view(x, y, width, rows).map((line, i) => (
        <Text key={i}>{line || ' '}</Text>
      ))}
      {legend.map((l, i) => (
        <Text key={`l${i}`} wrap="truncate-end">
          {l}
        </Text>
      ))}
      {p.legend.length > MAP_LEGEND_MAX ? <Tone tone="muted">… {p.legend.length - MAP_LEGEND_MAX} more marked links</Tone> : null}
    </Box>
  );
}
