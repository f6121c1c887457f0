/** Whole-screen states before a session exists: connecting, controller down, fatal. */
import { Box, Text } from 'ink';
import { Tone } from './theme.js';

export function ConnectingScreen({ server }: { server: string }) {
  return (
    <Box flexDirection="column">
      <Text>
        <Tone tone="accent" bold>
          gns3-copilot
        </Tone>
        <Tone tone="muted"> connecting to {server}…</Tone>
      </Text>
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
