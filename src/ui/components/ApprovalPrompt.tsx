/**
 * Human in the loop: a config-changing tool asks before it runs. Shows each
 * device, its command lines and the preview of the diff they would make to its
 * configuration, then the four choices.
 */
import { Box, Text } from 'ink';
import type { ApprovalRequest } from '../../core/api.js';
import { approvalRows, type ApprovalRow } from '../call-text.js';
import { APPROVAL_WHAT } from '../../tools/gate.js';
import { allowanceLabel } from '../../tools/allowances.js';
import { targetsOf } from '../../tools/targets.js';
import type { EditorState } from '../editor.js';
import { Tone } from './theme.js';
import { InputLine } from './InputLine.js';

export const APPROVAL_CHOICES = [
  { key: 'y', kind: 'allow_once', label: 'Yes, run it once' },
  { key: 'a', kind: 'allow_session', label: 'Yes, and allow it for this session' },
  { key: 'n', kind: 'deny', label: 'No' },
  { key: 'f', kind: 'deny_with_feedback', label: 'No, and tell the model what to do instead' },
] as const;

/** A choice's words for this call: "for this session" names the tool and the targets it will cover. */
function choiceLabel(c: (typeof APPROVAL_CHOICES)[number], request: ApprovalRequest): string {
  return c.kind === 'allow_session' ? `Yes, and ${allowanceLabel(request.name, targetsOf(request.name, request.args))}` : c.label;
}

export function ApprovalPrompt({
  request,
  selected,
  feedback,
  maxLines,
}: {
  request: ApprovalRequest;
  selected: number;
  /** non-null while typing feedback for "no with feedback" */
  feedback: EditorState | null;
  maxLines: number;
}) {
  const groups = approvalRows(request);
  // Keep the choices visible on small terminals: cut the command list, never the choices.
  let budget = Math.max(2, maxLines - 3 - APPROVAL_CHOICES.length);
  const shown: { target: string; rows: ApprovalRow[]; more: number }[] = [];
  for (const g of groups) {
    if (budget <= 1) break;
    const take = Math.min(g.rows.length, budget - 1);
    shown.push({ target: g.target, rows: g.rows.slice(0, take), more: g.rows.length - take });
    budget -= take + 1;
  }
  const hiddenGroups = groups.length - shown.length;
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text wrap="truncate-end">
        <Tone tone="warn" bold>
          Approve {request.name}?
        </Tone>
        {request.why ? <Tone tone="muted"> It {APPROVAL_WHAT[request.why]}.</Tone> : null}
      </Text>
      {shown.map((g) => (
        <Box key={g.target} flexDirection="column">
          <Tone tone="accent" bold>
            {g.target}
          </Tone>
          {g.rows.map((r, i) => (
            <Text key={i} wrap="truncate-end">
              {'  '}
              {r.tone ? <Tone tone={r.tone}>{r.text}</Tone> : r.text}
            </Text>
          ))}
          {g.more > 0 ? <Tone tone="muted"> … {g.more} more lines</Tone> : null}
        </Box>
      ))}
      {hiddenGroups > 0 ? <Tone tone="muted">… {hiddenGroups} more devices</Tone> : null}
      {feedback === null ? (
        APPROVAL_CHOICES.map((c, i) => (
          <Text key={c.key} wrap="truncate-end">
            <Tone tone={i === selected ? 'prompt' : undefined} bold={i === selected}>
              {i === selected ? '❯' : ' '} {i + 1}. {choiceLabel(c, request)}
            </Tone>
            <Tone tone="muted"> ({c.key})</Tone>
          </Text>
        ))
      ) : (
        <Box flexDirection="column">
          <Tone tone="muted">Tell the model what to do instead (Enter sends, Esc goes back):</Tone>
          <InputLine value={feedback.value} cursor={feedback.cursor} />
        </Box>
      )}
    </Box>
  );
}
