/** The prompt line: text with a visible cursor; completions and hints underneath. */
import { Box, Text } from 'ink';
import { Tone, useColor } from './theme.js';

export function InputLine({
  value,
  cursor,
  placeholder,
  busy,
  label = '›',
  candidates,
}: {
  value: string;
  cursor: number;
  placeholder?: string;
  busy?: boolean;
  label?: string;
  candidates?: string[];
}) {
  const color = useColor();
  const chars = [...value];
  const at = Math.min(Math.max(0, cursor), chars.length);
  const before = chars.slice(0, at).join('');
  const under = chars[at] ?? ' ';
  const after = chars.slice(at + 1).join('');
  // Without colour, inverse video is still an SGR code; use a block so the cursor stays visible.
  const cursorEl = color ? <Text inverse>{under}</Text> : <Text>{at < chars.length ? under : '█'}</Text>;
  return (
    <Box flexDirection="column">
      <Text wrap="wrap">
        <Tone tone={busy ? 'muted' : 'prompt'} bold>
          {label}{' '}
        </Tone>
        {value === '' && placeholder ? (
          <>
            {cursorEl}
            <Tone tone="muted">{placeholder}</Tone>
          </>
        ) : (
          <>
            {before}
            {cursorEl}
            {after}
          </>
        )}
      </Text>
      {candidates && candidates.length > 1 ? <Tone tone="muted"> {candidates.map((c) => '/' + c).join('  ')}</Tone> : null}
    </Box>
  );
}
