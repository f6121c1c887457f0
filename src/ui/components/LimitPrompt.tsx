/** A limit the running request reached: raise it and go on, or answer with what the run has. */
import { Box, Text } from 'ink';
import { limitRaiseQuestion, type LimitRaiseRequest } from '../../core/api.js';
import { Tone } from './theme.js';

export function LimitPrompt({ request }: { request: LimitRaiseRequest }) {
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text>
        <Tone tone="warn" bold>
          {limitRaiseQuestion(request)}
        </Tone>
      </Text>
      {request.agent_id ? <Tone tone="muted">reached by sub-agent {request.agent_id.slice(0, 8)}</Tone> : null}
    </Box>
  );
}
