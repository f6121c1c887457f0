/**
 * The TUI's list picker (projects at start-up, /project, /sessions): its state, what each
 * purpose shows, and how keys move it. Pure; usePicker (hooks/usePicker.ts) holds the state.
 */
import type { Key } from 'ink';
import { MODE_SHORT_NAME } from '../core/modes.js';
import type { SessionInfo } from './services.js';
import type { SessionRequest } from '../checkpoints/types.js';
import { filterItems, type PickerItem } from './components/Picker.js';

export type PickerPurpose = 'project_start' | 'project_switch' | 'sessions' | 'rewind';

export interface PickerState {
  purpose: PickerPurpose;
  title: string;
  items: PickerItem[];
  query: string;
  selected: number;
  loading: boolean;
  empty: string;
}

/** A picker for `purpose`, loading its items. */
const PICKER_TEXT: Record<PickerPurpose, { title: string; empty: string }> = {
  project_start: { title: 'GNS3 projects', empty: 'no projects on this controller' },
  project_switch: { title: 'GNS3 projects', empty: 'no projects on this controller' },
  sessions: { title: 'Sessions', empty: 'no sessions yet' },
  rewind: { title: 'Rewind the lab to just before request…', empty: 'this session has no requests yet' },
};

export function openingPicker(purpose: PickerPurpose, query: string): PickerState {
  return { purpose, ...PICKER_TEXT[purpose], items: [], query, selected: 0, loading: true };
}

/** What a key does in the picker: move or filter it, or choose an item (none: Esc). */
export type PickerKeyResult = { kind: 'update'; picker: PickerState } | { kind: 'choose'; item: PickerItem | undefined } | { kind: 'none' };

export function pickerKey(p: PickerState, input: string, key: Key): PickerKeyResult {
  const visible = filterItems(p.items, p.query);
  const update = (next: Partial<PickerState>): PickerKeyResult => ({ kind: 'update', picker: { ...p, ...next } });
  if (key.escape) return { kind: 'choose', item: undefined };
  if (key.return) return { kind: 'choose', item: visible[p.selected] };
  if (key.upArrow) return update({ selected: Math.max(0, p.selected - 1) });
  if (key.downArrow) return update({ selected: Math.min(Math.max(0, visible.length - 1), p.selected + 1) });
  if (key.backspace || key.delete) return update({ query: [...p.query].slice(0, -1).join(''), selected: 0 });
  if (input && !key.ctrl && !key.meta && !key.tab) return update({ query: p.query + input.replace(/[\r\n]/g, ''), selected: 0 });
  return { kind: 'none' };
}

function relativeTime(iso: string): string {
  const ms = Date.now() - Date.parse(iso);
  if (!Number.isFinite(ms)) return '';
  if (ms < 60_000) return 'just now';
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)}m ago`;
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)}h ago`;
  return `${Math.floor(ms / 86_400_000)}d ago`;
}

export function sessionItem(s: SessionInfo): PickerItem {
  return {
    id: s.id,
    label: `${s.pinned ? '★ ' : ''}${s.failed ? '[failed: no answer] ' : ''}${s.title ?? '(untitled)'}`,
    detail: [s.projectName ?? 'no project', MODE_SHORT_NAME[s.mode], relativeTime(s.updatedAt), s.id.slice(0, 8)]
      .filter(Boolean)
      .join(' · '),
  };
}

/** A request of the session, for /rewind's picker (newest first): choosing it rewinds to just before it. */
export function requestItem(r: SessionRequest): PickerItem {
  return {
    id: String(r.no),
    label: `${r.no}. ${r.text}`,
    detail: [r.kind === 'rewind' ? 'rewind' : '', relativeTime(r.created_at)].filter(Boolean).join(' · '),
  };
}
