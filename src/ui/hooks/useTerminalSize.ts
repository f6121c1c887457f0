import { useEffect, useState } from 'react';
import { useStdout } from 'ink';

const sizeOf = (stdout: NodeJS.WriteStream) => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });

/** The terminal's columns and rows, following resizes. */
export function useTerminalSize(): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => sizeOf(stdout));
  useEffect(() => {
    const onResize = () => setSize(sizeOf(stdout));
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return size;
}
