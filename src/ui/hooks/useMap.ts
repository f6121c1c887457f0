/**
 * /map: the session's lab drawn in the terminal (src/ui/map/render.ts), kept current from
 * the notification stream where the session listens (LabView.onChange), panned with the
 * arrow keys when it is larger than the screen. Esc or q closes it, r reads the lab again.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { Key } from 'ink';
import type { AgentSession, LabView } from '../../core/api.js';
import type { Topology } from '../../gns3/types.js';
import { errorMessage } from '../../errors.js';
import { sanitizeDeep } from '../../security/sanitize.js';
import type { MapPicture } from '../map/render.js';
import { markedLinks } from '../map/marks.js';
import { mapLegendRows } from '../components/MapPanel.js';
import type { NoticeTone } from '../state.js';
import { useRefState } from './useRefState.js';
import { useEvent } from './useEvent.js';

export interface MapState {
  topology: Topology;
  live: boolean;
  reason: string;
  x: number;
  y: number;
}

export interface MapOptions {
  session: () => AgentSession | null;
  notice: (text: string, tone?: NoticeTone) => void;
}

/** The drawing for the screen (null while the map is closed); the App lays out the rows first. */
/** The map as drawn now: its state, the drawing, and the cells the drawing has on screen. */
export interface MapView {
  map: MapState | null;
  picture: MapPicture | null;
  room: { width: number; rows: number };
}

/** The map's drawing fitted to the frame: the map's rows less its header and legend, one column spare (a full line would wrap). */
export function useMapView(
  map: MapState | null,
  render: Render | undefined,
  color: boolean,
  frame: { width: number; mapRows: number },
): MapView {
  const room = { width: frame.width - 1, rows: Math.max(2, frame.mapRows - 1 - mapLegendRows(map ? markedLinks(map.topology) : 0)) };
  return { map, room, picture: useMapPicture(map?.topology, render, color, room) };
}

function useMapPicture(
  topology: Topology | undefined,
  render: Render | undefined,
  color: boolean,
  viewport: { width: number; rows: number },
) {
  const { width, rows } = viewport;
  return useMemo<MapPicture | null>(
    () => (topology && render ? render(topology, { color, fit: { width, height: rows } }) : null),
    [topology, render, color, width, rows],
  );
}

const PAN = { x: 8, y: 3 };
/** how often an open map looks at whether the stream is up (a local read, no request) */
const STATUS_POLL_MS = 500;
type Render = typeof import('../map/render.js').renderMap;

export function useMap(o: MapOptions) {
  const [map, setMap, mapRef] = useRefState<MapState | null>(null);
  // held in an object: React would call a function given to a state setter as an updater
  const [renderer, setRenderer] = useState<{ render: Render } | undefined>(undefined);
  const view = useRef<LabView<Topology> | undefined>(undefined);
  const unsubscribe = useRef<(() => void) | undefined>(undefined);

  const show = useCallback(
    (t: Topology) => {
      const s = view.current?.status() ?? { live: false, reason: '' };
      setMap((m) => (m ? { ...m, topology: sanitizeDeep(t), live: s.live, reason: s.reason } : m));
    },
    [setMap],
  );

  const closeMap = useCallback(() => {
    unsubscribe.current?.();
    unsubscribe.current = undefined;
    view.current = undefined;
    setMap(null);
  }, [setMap]);

  const openMap = useEvent(async () => {
    const session = o.session();
    if (!session?.lab) return o.notice('No session to draw yet', 'warn');
    try {
      const [{ renderMap }, lab] = await Promise.all([import('../map/render.js'), session.lab()]);
      if (!lab) return o.notice('No project selected (/project)', 'warn');
      setRenderer({ render: renderMap });
      // the core's LabView names no topology type; the session's is src/gns3's Topology
      const typed = lab as LabView<Topology>;
      const t = sanitizeDeep(await typed.topology());
      unsubscribe.current?.();
      view.current = typed;
      const s = typed.status();
      setMap({ topology: t, live: s.live, reason: s.reason, x: 0, y: 0 });
      unsubscribe.current = typed.onChange(show);
    } catch (err) {
      o.notice(`✗ ${errorMessage(err)}`, 'error');
    }
  });

  const reread = useEvent(async () => {
    try {
      if (view.current) show(await view.current.topology());
    } catch (err) {
      o.notice(`✗ ${errorMessage(err)}`, 'error');
    }
  });

  /** a key while the map is shown; `p` is the drawing on screen and `room` the cells it has */
  const onMapKey = useCallback(
    (input: string, key: Key, p: { width: number; height: number } | null, room: { width: number; rows: number }) => {
      const m = mapRef.current;
      if (!m) return;
      if (key.escape || input === 'q') return closeMap();
      if (input === 'r') return void reread();
      const dx = key.leftArrow ? -PAN.x : key.rightArrow ? PAN.x : 0;
      const dy = key.upArrow ? -PAN.y : key.downArrow ? PAN.y : 0;
      if ((!dx && !dy) || !p) return;
      const clamp = (v: number, size: number, room: number) => Math.max(0, Math.min(v, Math.max(0, size - room)));
      setMap({ ...m, x: clamp(m.x + dx, p.width, room.width), y: clamp(m.y + dy, p.height, room.rows) });
    },
    [mapRef, closeMap, reread, setMap],
  );

  // The stream may come up (or drop) after the map opened and a resync brings no change
  // event: while the map is shown, its header follows the view's status, and a view that
  // became live is drawn again from the cache (no round trip while the stream is healthy).
  const isOpen = map !== null;
  useEffect(() => {
    if (!isOpen) return;
    const timer = setInterval(() => {
      const m = mapRef.current;
      const s = view.current?.status();
      if (!m || !s || (s.live === m.live && s.reason === m.reason)) return;
      if (s.live) void reread();
      else setMap({ ...m, live: s.live, reason: s.reason });
    }, STATUS_POLL_MS);
    return () => clearInterval(timer);
  }, [isOpen, mapRef, reread, setMap]);

  // the stream's listener goes with the App
  useEffect(() => () => unsubscribe.current?.(), []);
  const mapOpen = useCallback(() => mapRef.current !== null, [mapRef]);
  return { map, render: renderer?.render, openMap, closeMap, mapOpen, onMapKey };
}
