import { useEffect, useState } from 'react';

/** The time, ticking every 100 ms while `active` (spinner, elapsed time, retry countdown). */
export function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(t);
  }, [active]);
  return now;
}
