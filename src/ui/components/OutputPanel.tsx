/**
 * The full output of the last tool call (toggled with Ctrl-O). Per-device
 * command outputs are shown as code blocks so device alignment survives;
 * anything else is pretty JSON or the raw text. Scrolls with PgUp/PgDn.
 */
import { Box, Text } from 'ink';
import type { ToolCallView } from '../state.js';
import { deviceOutputs } from '../call-text.js';
import { renderMarkdown } from '../markdown.js';
import { Tone, useColor } from './theme.js';
import { sanitizeDeep } from '../../security/sanitize.js';

export function outputMarkdown(call: ToolCallView): string {
  const out = call.output ?? '';
  const devices = deviceOutputs(out);
  if (devices && devices.length > 0) {
    return devices
      .map((d) => {
        const head = `**${d.device}**${d.command ? ` \`${d.command}\`` : ''}${d.status && d.status !== 'success' ? ` — ${d.status}` : ''}`;
        const body = d.output.replace(/```/g, "'''");
        return `${head}\n\`\`\`\n${body}${d.error ? `\n${d.error}` : ''}\n\`\`\``;
      })
      .join('\n');
  }
  try {
    return '```\n' + JSON.stringify(sanitizeDeep(JSON.parse(out)), null, 2) + '\n```';
  } catch {
    return '```\n' + out + '\n```';
  }
}

export function OutputPanel({ call, width, maxRows, offset }: { call: ToolCallView; width: number; maxRows: number; offset: number }) {
  const color = useColor();
  const lines = call.output === undefined ? ['(no output yet)'] : renderMarkdown(outputMarkdown(call), { width: width - 2, color });
  const visible = Math.max(1, maxRows - 2);
  const start = Math.min(Math.max(0, offset), Math.max(0, lines.length - visible));
  const page = lines.slice(start, start + visible);
  return (
    <Box flexDirection="column">
      <Text>
        <Tone tone="accent" bold>
          {call.name}
        </Tone>
        <Tone tone="muted">
          {' '}
          output · lines {lines.length === 0 ? 0 : start + 1}–{start + page.length} of {lines.length} · PgUp/PgDn scroll · Ctrl-O hide
        </Tone>
      </Text>
      {page.map((l, i) => (
        <Text key={i} wrap="truncate-end">
          {l}
        </Text>
      ))}
    </Box>
  );
}
