/** A searchable list (projects, sessions): type to filter, ↑/↓ to move, Enter to choose, Esc to cancel. */
import { Box, Text } from 'ink';
import { truncate } from '../format.js';
import { Tone } from './theme.js';

export interface PickerItem {
  id: string;
  label: string;
  detail?: string;
}

export function filterItems(items: PickerItem[], query: string): PickerItem[] {
  const q = query.trim().toLowerCase();
  if (!q) return items;
  const words = q.split(/\s+/);
  return items.filter((it) => {
    const hay = `${it.label} ${it.detail ?? ''} ${it.id}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

export function Picker({
  title,
  items,
  query,
  selected,
  maxRows,
  width,
  empty = 'nothing to show',
  loading = false,
}: {
  title: string;
  items: PickerItem[];
  query: string;
  selected: number;
  maxRows: number;
  width: number;
  empty?: string;
  loading?: boolean;
}) {
  const visible = Math.max(1, maxRows - 3);
  const start = Math.min(Math.max(0, selected - visible + 1), Math.max(0, items.length - visible));
  const page = items.slice(start, start + visible);
  return (
    <Box flexDirection="column">
      <Text>
        <Tone tone="accent" bold>
          {title}
        </Tone>
        <Tone tone="muted"> — type to search, ↑/↓ move, Enter choose, Esc cancel</Tone>
      </Text>
      <Text>
        <Tone tone="prompt">search: </Tone>
        {query}
        <Text inverse> </Text>
      </Text>
      {loading ? <Tone tone="muted">loading…</Tone> : items.length === 0 ? <Tone tone="muted">{empty}</Tone> : null}
      {page.map((it, i) => {
        const active = start + i === selected;
        return (
          <Text key={it.id} wrap="truncate-end">
            <Tone tone={active ? 'prompt' : undefined} bold={active}>
              {active ? '❯ ' : '  '}
              {truncate(it.label, Math.max(10, Math.floor(width * 0.5)))}
            </Tone>
            {it.detail ? <Tone tone="muted"> {it.detail}</Tone> : null}
          </Text>
        );
      })}
      {items.length > visible ? (
        <Tone tone="muted">
          {start + 1}–{start + page.length} of {items.length}
        </Tone>
      ) : null}
    </Box>
  );
}
