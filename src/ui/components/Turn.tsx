/**
 * A turn (prompt, streamed text, tool calls, outcome). Finished turns are
 * printed once via <Static>; the live turn uses LiveTurn, whose height is
 * capped to what the terminal can show so the screen never scrolls mid-frame.
 */
import { Box, Text } from 'ink';
import type { RunStats } from '../../core/events.js';
import type { StaticEntry, ToolCallView, TurnView } from '../state.js';
import { renderMarkdown } from '../markdown.js';
import { formatDuration } from '../format.js';
import { ToolCallLine } from './ToolCallLine.js';
import { Tone, useColor } from './theme.js';
import { count } from '../../core/plural.js';

const STOP_NOTE: Record<string, string> = {
  max_iterations: 'stopped: iteration limit reached (/limits iterations=N)',
  max_tool_calls: 'stopped: tool call limit reached (/limits tools=N)',
  max_time: 'stopped: time limit reached',
  max_cost: 'stopped: cost limit reached (--max-cost)',
  tool_limit: 'stopped: a per-tool limit was reached',
};

function PromptLine({ prompt }: { prompt: string }) {
  if (!prompt) return null;
  return (
    <Text>
      <Tone tone="prompt" bold>
        ›{' '}
      </Tone>
      <Tone bold>{prompt}</Tone>
    </Text>
  );
}

const statsText = (s: RunStats) =>
  `${s.iterations} iter · ${count(s.tool_calls, 'tool')} · ${count(s.input_tokens + s.output_tokens, 'token')} · ${formatDuration(s.duration_ms)}`;

function Outcome({ turn }: { turn: TurnView }) {
  const s = turn.stats;
  // An abort is one line: the user asked for it, the core's "aborted by the user" error adds nothing.
  if (turn.stoppedReason === 'aborted' || turn.error?.type === 'aborted') {
    return <Tone tone="warn">{s ? `aborted · ${statsText(s)}` : 'aborted'}</Tone>;
  }
  const note = turn.stoppedReason ? STOP_NOTE[turn.stoppedReason] : undefined;
  return (
    <>
      {turn.error ? <Tone tone="bad">✗ {turn.error.message}</Tone> : null}
      {note && !(turn.error && turn.stoppedReason === 'error') ? <Tone tone="warn">{note}</Tone> : null}
      {s ? <Tone tone="muted">{statsText(s)}</Tone> : null}
    </>
  );
}

export function FinishedTurn({ turn, width }: { turn: TurnView; width: number }) {
  const color = useColor();
  return (
    <Box flexDirection="column" marginBottom={1}>
      <PromptLine prompt={turn.prompt} />
      {turn.items.map((it, i) =>
        it.kind === 'text' ? (
          <Text key={i}>{renderMarkdown(it.text, { width, color }).join('\n')}</Text>
        ) : (
          <ToolCallLine key={it.call.id} call={it.call} now={0} width={width} showTable />
        ),
      )}
      <Outcome turn={turn} />
    </Box>
  );
}

export function EntryView({ entry, width }: { entry: StaticEntry; width: number }) {
  const color = useColor();
  if (entry.kind === 'turn') return <FinishedTurn turn={entry.turn} width={width} />;
  if (entry.kind === 'notice') {
    const tone = entry.tone === 'error' ? 'bad' : entry.tone === 'warn' ? 'warn' : 'muted';
    return (
      <Box marginBottom={1}>
        <Tone tone={tone}>{entry.text}</Tone>
      </Box>
    );
  }
  return (
    <Box flexDirection="column" marginBottom={1}>
      <Tone tone="accent" bold>
        {entry.title}
      </Tone>
      <Text>{renderMarkdown(entry.body, { width, color }).join('\n')}</Text>
    </Box>
  );
}

export type LiveRow = { kind: 'text'; line: string } | { kind: 'tool'; call: ToolCallView };

/** The live turn as display rows, each exactly one terminal line. */
export function liveRows(turn: TurnView, width: number, color: boolean): LiveRow[] {
  const rows: LiveRow[] = [];
  for (const it of turn.items) {
    if (it.kind === 'text') for (const line of renderMarkdown(it.text, { width, color })) rows.push({ kind: 'text', line });
    else rows.push({ kind: 'tool', call: it.call });
  }
  return rows;
}

export function LiveTurn({ turn, width, maxRows, now }: { turn: TurnView; width: number; maxRows: number; now: number }) {
  const color = useColor();
  const rows = liveRows(turn, width, color);
  const working = turn.items.length === 0 || turn.items[turn.items.length - 1]!.kind === 'tool';
  // prompt + "thinking" line take two rows; the rest is the tail of the answer.
  const budget = Math.max(1, maxRows - 1 - (working ? 1 : 0));
  const hidden = Math.max(0, rows.length - budget);
  const shown = hidden > 0 ? rows.slice(hidden) : rows;
  const runningTool = turn.items.some(
    (i) => i.kind === 'tool' && (i.call.state === 'running' || i.call.state === 'pending' || i.call.state === 'awaiting_approval'),
  );
  return (
    <Box flexDirection="column">
      {hidden > 0 ? (
        <Tone tone="muted">… {hidden} more lines above (printed in full when the turn ends)</Tone>
      ) : (
        <PromptLine prompt={turn.prompt} />
      )}
      {shown.map((r, i) =>
        r.kind === 'text' ? (
          <Text key={i} wrap="truncate-end">
            {r.line}
          </Text>
        ) : (
          <ToolCallLine key={r.call.id} call={r.call} now={now} width={width} />
        ),
      )}
      {working && !runningTool ? <Tone tone="muted">{'⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏'[Math.floor(now / 100) % 10]} thinking…</Tone> : null}
    </Box>
  );
}
