import type { PickerPurpose } from '../picker.js';
import type { PickerItem } from '../components/Picker.js';
import type { UiServices } from '../services.js';
import type { NoticeTone, UiAction } from '../state.js';
import type { AgentParts } from './useAgentParts.js';
import { useEvent } from './useEvent.js';
import { useLabCheckpoint } from './useLabCheckpoint.js';
import { usePicker } from './usePicker.js';
import { useRewind } from './useRewind.js';

export interface LabPartsOptions {
  services: UiServices;
  agent: Pick<AgentParts, 'sessions' | 'approvals'>;
  notice: (text: string, tone?: NoticeTone) => void;
  dispatch: (a: UiAction) => void;
}

/**
 * What the TUI does to the lab and the sessions besides a turn: /rewind, restoring a named
 * checkpoint, and the picker whose choice opens a session, rewinds, restores or switches project.
 */
export function useLabParts({ services, agent, notice, dispatch }: LabPartsOptions) {
  const { sessions, approvals } = agent;
  const rewind = useRewind({
    services,
    settings: sessions.settings,
    session: sessions.session,
    approver: approvals.approver,
    notice,
    dispatch,
  });
  const labCheckpoint = useLabCheckpoint({ services, settings: sessions.settings, approver: approvals.approver, notice, dispatch });
  const choose = useEvent(async (purpose: PickerPurpose, item: PickerItem | undefined) => {
    if (purpose === 'checkpoint') return item ? labCheckpoint.restoreCheckpoint(item.id) : undefined;
    if (purpose === 'sessions') return item ? sessions.openSession({ sessionId: item.id, announce: 'resumed' }) : undefined;
    if (purpose === 'rewind') return item ? rewind.rewindTo(Number(item.id)) : undefined;
    if (purpose === 'project_start') return sessions.startIn(item && { id: item.id, name: item.label });
    if (item) await sessions.switchProject(item.label);
  });
  const pickers = usePicker({
    services,
    settings: sessions.settings,
    sessionId: () => sessions.session()?.id,
    notice,
    onChoose: choose,
  });
  return { rewind, labCheckpoint, pickers };
}

export type LabParts = ReturnType<typeof useLabParts>;
