/**
 * The status bar: server + project, copilot mode, model, context use
 * (`34% of 128K`), tokens and cost this session (and the per-request cost limit), limits (`iter 3/20 · tools 5/∞`) and
 * agent mode. Segments move to a second line when the terminal is narrow. A passing hint
 * (`Aborted.`, `Press Ctrl-C again to exit.`) sits on its own line above the bar.
 */
import React from 'react';
import { Box, Text } from 'ink';
import { MODE_SHORT_NAME } from '../../core/modes.js';
import { formatUsd } from '../../core/usd.js';
import type { UiState } from '../state.js';
import { compactNumber, limitsText } from '../format.js';
import { displayWidth } from '../style.js';
import { Tone, type ToneName } from './theme.js';

interface Segment {
  text: string;
  tone?: ToneName;
}

function hostOf(server: string): string {
  try {
    return new URL(server).host;
  } catch {
    return server;
  }
}

/** What the session spent, and the per-request cost limit (--max-cost, /limits cost=) when one is set. */
function costSegment(s: UiState): Segment[] {
  const parts = [
    ...(s.costUsd !== null ? [formatUsd(s.costUsd)] : []),
    ...(s.limits.max_cost !== undefined ? [`max ${formatUsd(s.limits.max_cost)}/request`] : []),
  ];
  return parts.length ? [{ text: parts.join(' · '), tone: 'muted' }] : [];
}

export function statusSegments(s: UiState): Segment[] {
  const ctx = s.context;
  const ctxTone: ToneName = !ctx ? 'muted' : ctx.percent >= 85 ? 'bad' : ctx.percent >= 60 ? 'warn' : 'ok';
  return [
    { text: `${hostOf(s.server)} · ${s.projectName ?? s.projectId ?? 'no project'}`, tone: 'accent' },
    { text: MODE_SHORT_NAME[s.mode], tone: s.mode === 'troubleshooting_injection' ? 'warn' : 'prompt' },
    { text: s.model },
    { text: ctx ? `${Math.round(ctx.percent)}% of ${compactNumber(ctx.limit)}` : 'ctx –', tone: ctxTone },
    { text: `${compactNumber(s.tokens.input + s.tokens.output)} tok`, tone: 'muted' },
    ...costSegment(s),
    { text: limitsText(s.iterations, s.limits.max_iterations, s.toolCalls, s.limits.max_tool_calls), tone: 'muted' },
    { text: s.treeBudget ? `${s.agentMode} · ${s.treeBudget}` : s.agentMode, tone: 'muted' },
  ];
}

const SEP = ' │ ';

/** Greedy split of segments into lines that fit `width`. */
export function statusLines(segments: Segment[], width: number): Segment[][] {
  const lines: Segment[][] = [[]];
  let used = 0;
  for (const seg of segments) {
    const w = displayWidth(seg.text) + (used > 0 ? SEP.length : 0);
    if (used > 0 && used + w > width) {
      lines.push([]);
      used = 0;
    }
    lines[lines.length - 1]!.push(seg);
    used += displayWidth(seg.text) + (used > 0 ? SEP.length : 0);
  }
  return lines;
}

export function StatusBar({ state, width, hint }: { state: UiState; width: number; hint?: string | undefined }) {
  const lines = statusLines(statusSegments(state), width - 1);
  return (
    <Box flexDirection="column">
      {hint ? (
        <Tone tone="muted" wrap="truncate-end">
          {hint}
        </Tone>
      ) : null}
      {lines.map((segs, i) => (
        <Text key={i} wrap="truncate-end">
          {segs.map((seg, j) => (
            <React.Fragment key={j}>
              {j > 0 ? <Tone tone="muted">{SEP}</Tone> : null}
              <Tone tone={seg.tone}>{seg.text}</Tone>
            </React.Fragment>
          ))}
        </Text>
      ))}
    </Box>
  );
}
