import { useCallback } from 'react';
import type { Key } from 'ink';
import type { Settings } from '../../config/schema.js';
import { errorMessage } from '../../errors.js';
import type { PickerItem } from '../components/Picker.js';
import { checkpointItem, openingPicker, pickerKey, requestItem, sessionItem, type PickerPurpose, type PickerState } from '../picker.js';
import type { UiServices } from '../services.js';
import type { NoticeTone } from '../state.js';
import { useRefState } from './useRefState.js';

export interface PickerOptions {
  services: UiServices;
  settings: () => Settings;
  notice: (text: string, tone?: NoticeTone) => void;
  /** the current session's id (/rewind lists its requests) */
  sessionId: () => string | undefined;
  /** what choosing does (item undefined: Esc); the picker is closed by then */
  onChoose: (purpose: PickerPurpose, item: PickerItem | undefined) => Promise<unknown>;
}

/** The project / session picker: loads its items, moves and filters with keys, hands the choice on. */
export function usePicker({ services, settings, sessionId, notice, onChoose }: PickerOptions) {
  const [picker, setPicker, pickerRef] = useRefState<PickerState | null>(null);

  /** Opens the picker; resolves to its items, or null when they could not be listed (reported). */
  const openPicker = useCallback(
    async (purpose: PickerPurpose, query = ''): Promise<PickerItem[] | null> => {
      setPicker(openingPicker(purpose, query));
      try {
        const items = await loadItems(purpose, services, settings(), sessionId());
        setPicker((p) => (p && p.purpose === purpose ? { ...p, items, loading: false } : p));
        return items;
      } catch (err) {
        setPicker(null);
        notice(`✗ ${errorMessage(err)}`, 'error');
        return null;
      }
    },
    [services, settings, sessionId, notice, setPicker],
  );

  const closePicker = useCallback(() => setPicker(null), [setPicker]);
  const pickerOpen = useCallback(() => pickerRef.current !== null, [pickerRef]);

  const onPickerKey = useCallback(
    (input: string, key: Key) => {
      const p = pickerRef.current;
      if (!p) return;
      const r = pickerKey(p, input, key);
      if (r.kind === 'update') setPicker(r.picker);
      else if (r.kind === 'choose') {
        setPicker(null);
        void onChoose(p.purpose, r.item);
      }
    },
    [pickerRef, setPicker, onChoose],
  );

  return { picker, openPicker, closePicker, pickerOpen, onPickerKey };
}

async function loadItems(
  purpose: PickerPurpose,
  services: UiServices,
  settings: Settings,
  sessionId: string | undefined,
): Promise<PickerItem[]> {
  if (purpose === 'sessions') return (await services.listSessions(settings)).map(sessionItem);
  if (purpose === 'checkpoint') return (await services.labCheckpoints(settings)).reverse().map(checkpointItem);
  if (purpose === 'rewind') return sessionId ? (await services.sessionRequests(settings, sessionId)).reverse().map(requestItem) : [];
  return (await services.listProjects(settings)).map((p) => ({ id: p.id, label: p.name, detail: p.status ?? '' }));
}
