/**
 * Colour on/off for every view (NO_COLOR / --no-color). Views use <Tone> instead
 * of Ink's colour props so "off" means no escape codes at all.
 */
import { createContext, useContext, type ReactNode } from 'react';
import { Text } from 'ink';

const ColorContext = createContext(true);

export function ColorProvider({ color, children }: { color: boolean; children: ReactNode }) {
  return <ColorContext.Provider value={color}>{children}</ColorContext.Provider>;
}

export const useColor = (): boolean => useContext(ColorContext);

export type ToneName = 'accent' | 'ok' | 'warn' | 'bad' | 'muted' | 'info' | 'prompt';
const TONE_COLOR: Record<ToneName, string> = {
  accent: 'cyan',
  ok: 'green',
  warn: 'yellow',
  bad: 'red',
  muted: 'gray',
  info: 'blue',
  prompt: 'magenta',
};

export function Tone({
  tone,
  bold,
  wrap,
  children,
}: {
  tone?: ToneName;
  bold?: boolean;
  wrap?: 'wrap' | 'truncate-end' | 'truncate';
  children: ReactNode;
}) {
  const color = useColor();
  const props: Record<string, unknown> = {};
  if (color && tone) {
    if (tone === 'muted') props.dimColor = true;
    else props.color = TONE_COLOR[tone];
  }
  if (color && bold) props.bold = true;
  if (wrap) props.wrap = wrap;
  return <Text {...props}>{children}</Text>;
}
