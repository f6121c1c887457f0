/** States before a session exists: starting (above the input line), controller down, fatal. */
import { Box, Text } from 'ink';
import type { StartStep } from '../hooks/usePhase.js';
import { Tone } from './theme.js';

/**
 * The line above the input while start-up runs in the background: what it waits for, and that a
 * prompt already entered is sent once the session is open.
 */
export function ConnectingScreen({ server, step, queued }: { server: string; step: StartStep; queued?: string | undefined }) {
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Tone tone="accent" bold>
          gns3-copilot
        </Tone>
        <Tone tone="muted">
          {step === 'controller' ? ` connecting to ${server}…` : ' opening the session…'}
          {queued !== undefined ? ' · your prompt is sent once the session is open' : ''}
        </Tone>
      </Text>
      {queued !== undefined ? (
        <Text wrap="truncate-end">
          <Tone tone="muted">⧗ </Tone>
          {queued}
        </Text>
      ) : null}
    </Box>
  );
}

export function ControllerDownScreen({
  server,
  message,
  retryInSec,
  attempts,
}: {
  server: string;
  message: string;
  retryInSec: number | null;
  attempts: number;
}) {
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Tone tone="bad" bold>
        GNS3 controller not reachable
      </Tone>
      <Text>{server}</Text>
      <Tone tone="muted">{message}</Tone>
      <Text> </Text>
      <Text>Start the GNS3 server (or pass --server URL), then press r to retry. q quits.</Text>
      <Tone tone="muted">
        {retryInSec === null ? 'retrying…' : `retrying automatically in ${retryInSec}s`} · attempt {attempts}
      </Tone>
    </Box>
  );
}

export function FatalScreen({ message }: { message: string }) {
  return (
    <Box flexDirection="column">
      <Tone tone="bad">✗ {message}</Tone>
      <Tone tone="muted">Press any key to exit.</Tone>
    </Box>
  );
}
