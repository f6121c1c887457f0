/** One line per tool call: state glyph, tool, argument summary, elapsed/duration. */
import { Box, Text } from 'ink';
import type { ToolCallState, ToolCallView } from '../state.js';
import { deviceRows, resultNote } from '../call-text.js';
import { formatDuration, truncate } from '../format.js';
import { Tone, type ToneName } from './theme.js';
import { verificationLine, type Verification } from '../../core/verification.js';

export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

const GLYPH: Record<Exclude<ToolCallState, 'running'>, { glyph: string; tone: ToneName; label?: string }> = {
  pending: { glyph: '○', tone: 'muted' },
  awaiting_approval: { glyph: '?', tone: 'warn', label: 'awaiting approval' },
  success: { glyph: '✓', tone: 'ok' },
  partial: { glyph: '◐', tone: 'warn', label: 'partial' },
  error: { glyph: '✗', tone: 'bad', label: 'error' },
  blocked: { glyph: '⊘', tone: 'bad', label: 'blocked' },
  limit: { glyph: '⊘', tone: 'warn', label: 'limit reached' },
  aborted: { glyph: '■', tone: 'warn', label: 'aborted' },
};

export function stateGlyph(call: ToolCallView, now: number): { glyph: string; tone: ToneName; label?: string } {
  if (call.state === 'running') {
    const elapsed = now - (call.startedAt ?? now);
    return { glyph: SPINNER[Math.floor(now / 100) % SPINNER.length]!, tone: 'accent', label: formatDuration(Math.max(0, elapsed)) };
  }
  return GLYPH[call.state];
}

/** The note of a call that did not fully succeed, for the line itself (errors must be visible without expanding). */
function failureNote(call: ToolCallView): string | undefined {
  if (!call.output || call.state === 'success') return undefined;
  return resultNote(call.output, call.display);
}

export function ToolCallLine({
  call,
  now,
  width,
  showTable = false,
}: {
  call: ToolCallView;
  now: number;
  width: number;
  showTable?: boolean;
}) {
  const st = stateGlyph(call, now);
  const right = [
    st.label,
    call.retry ? `retry ${call.retry.attempt}/${call.retry.max}` : undefined,
    call.durationMs !== undefined && call.state !== 'running' ? formatDuration(call.durationMs) : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
  const budget = Math.max(10, width - call.name.length - right.length - 8);
  const rows = showTable && call.output ? deviceRows(call.output) : undefined;
  const note = failureNote(call);
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Tone tone={st.tone}>{st.glyph}</Tone> <Tone bold>{call.name}</Tone>
        {call.summary ? <Text> {truncate(call.summary, budget)}</Text> : null}
        {right ? <Tone tone="muted"> {right}</Tone> : null}
      </Text>
      {note && !rows ? (
        <Text wrap="truncate-end">
          {'  '}
          <Tone tone={st.tone}>└ {truncate(note, Math.max(10, width - 4))}</Tone>
        </Text>
      ) : null}
      {rows ? <DeviceTable rows={rows} width={width} /> : null}
      {call.verification ? <VerificationLine v={call.verification} width={width} /> : null}
      {call.children?.map((c) => (
        <Box key={c.id} marginLeft={2 * c.depth}>
          <ToolCallLine call={c} now={now} width={Math.max(20, width - 2 * c.depth)} />
        </Box>
      ))}
    </Box>
  );
}

/** ✓/✗ under a configuration change: what its automatic verification found (inject mode: reported only). */
function VerificationLine({ v, width }: { v: Verification; width: number }) {
  const tone: ToneName = v.status === 'pass' ? 'ok' : v.report_only ? 'warn' : 'bad';
  return (
    <Text wrap="truncate-end">
      {'  '}
      <Tone tone={tone}>└ {truncate(verificationLine(v) + (v.report_only ? ' (reported only)' : ''), Math.max(10, width - 4))}</Tone>
    </Text>
  );
}

/** Per-device results: device │ status │ commands │ time │ note. */
export function DeviceTable({ rows, width }: { rows: NonNullable<ReturnType<typeof deviceRows>>; width: number }) {
  const dev = Math.max(6, ...rows.map((r) => r.device.length));
  const stat = Math.max(6, ...rows.map((r) => r.status.length));
  const noteW = Math.max(8, width - dev - stat - 22);
  const tone = (s: string): ToneName => (s === 'success' ? 'ok' : s === 'partial' ? 'warn' : 'bad');
  return (
    <Box flexDirection="column" marginLeft={2}>
      {rows.map((r) => (
        <Text key={r.device} wrap="truncate-end">
          <Tone tone="muted">│ </Tone>
          {r.device.padEnd(dev)} <Tone tone={tone(r.status)}>{r.status.padEnd(stat)}</Tone>{' '}
          <Tone tone="muted">
            {String(r.commands).padStart(2)} cmd {r.duration_ms !== undefined ? formatDuration(r.duration_ms).padStart(6) : '      '}
          </Tone>
          {r.note ? <Tone tone="bad"> {truncate(r.note, noteW)}</Tone> : null}
        </Text>
      ))}
    </Box>
  );
}
