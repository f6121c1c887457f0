/**
 * Live capture on a link: start (v2 `start_capture`, v3 `capture/start` with a
 * required `{}` body), read the pcap stream (it never ends by itself) for N
 * seconds or until N packets, and always stop the capture we started.
 */
import { Gns3ApiError, errorBodyMessage } from './errors.js';
import { DLT_NUMBERS, emptyPcap, PcapCounter } from './pcap.js';
import type { ApiVersion, CallOptions, ControllerApi } from './controller.js';
import type { RawLink } from './raw.js';
import type { CaptureOptions } from './types.js';

/** What a capture needs of its project (Gns3Project is one). */
export interface CaptureProject {
  readonly projectId: string;
  readonly client: Pick<ControllerApi, 'log' | 'openStream'>;
  api(signal?: AbortSignal): Promise<ApiVersion>;
  call(method: string, path: string, opts?: CallOptions): Promise<unknown>;
  rawLink(linkId: string, signal?: AbortSignal): Promise<RawLink>;
}

const MAX_SECONDS = 300;
const MAX_BYTES = 64 * 1024 * 1024;

export async function captureLink(project: CaptureProject, link: RawLink, opts: CaptureOptions): Promise<Uint8Array> {
  const api = await project.api(opts.signal);
  const seconds = Math.min(MAX_SECONDS, Math.max(0.1, opts.seconds ?? 10));
  const routes =
    api === 'v3'
      ? { start: 'capture/start', stop: 'capture/stop', stream: 'capture/stream' }
      : { start: 'start_capture', stop: 'stop_capture', stream: 'pcap' };
  const base = `/links/${link.link_id}`;
  const dlt = opts.data_link_type ?? 'DLT_EN10MB';

  // A capture someone else started (the GUI) is read but left running.
  let ownCapture = !link.capturing;
  if (ownCapture) {
    const body: Record<string, unknown> = opts.data_link_type ? { data_link_type: opts.data_link_type } : {};
    try {
      await project.call('POST', `${base}/${routes.start}`, { body, signal: opts.signal });
    } catch (err) {
      // 409 "Port 0 has already a filter applied": a capture began since our last read.
      const fresh =
        err instanceof Gns3ApiError && err.status === 409
          ? await project.rawLink(link.link_id, opts.signal).catch(() => undefined)
          : undefined;
      if (!fresh?.capturing) throw err;
      ownCapture = false;
    }
  }
  try {
    return await readStream(project, `/projects/${project.projectId}${base}/${routes.stream}`, seconds, opts, DLT_NUMBERS[dlt] ?? 1);
  } finally {
    if (ownCapture) {
      // Stop even when the caller aborted: a forgotten capture keeps writing to disk.
      await project.call('POST', `${base}/${routes.stop}`, { body: {} }).catch((err: unknown) => {
        project.client.log.warn('could not stop capture', { link: link.link_id, error: String(err) });
      });
    }
  }
}

async function readStream(
  project: CaptureProject,
  path: string,
  seconds: number,
  opts: CaptureOptions,
  linkType: number,
): Promise<Uint8Array> {
  const ac = new AbortController();
  const onAbort = () => ac.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => ac.abort(new Error('capture window over')), seconds * 1000);
  const counter = new PcapCounter();
  try {
    // No traffic means no bytes at all for a while: the body timeout must outlast the window.
    const res = await project.client.openStream(path, { signal: ac.signal, timeoutMs: seconds * 1000 + 10_000 });
    if (res.status !== 200) {
      const text = await res.body.text().catch(() => '');
      throw new Gns3ApiError(res.status, errorBodyMessage(res.status, text, res.headers['content-type'] ?? ''), 'GET', res.path);
    }
    try {
      for await (const chunk of res.body) {
        counter.push(chunk as Buffer);
        if (counter.invalid) break;
        if (opts.packets !== undefined && counter.packets >= opts.packets) break;
        if (counter.bytes.length > MAX_BYTES) break;
      }
    } catch (err) {
      // The window closing (our abort) and the server dropping the stream on stop both end reading.
      if (!ac.signal.aborted && !isStreamEnd(err)) throw err;
      if (opts.signal?.aborted) throw opts.signal.reason ?? err;
    } finally {
      res.body.destroy();
    }
  } catch (err) {
    if (ac.signal.aborted && !opts.signal?.aborted) {
      // window over before headers arrived: a capture with no traffic yet
    } else {
      throw err;
    }
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
  if (counter.invalid) return new Uint8Array(counter.bytes);
  if (counter.packets === 0 && counter.bytes.length < 24) return emptyPcap(linkType);
  return new Uint8Array(counter.slice(opts.packets ?? counter.packets));
}

function isStreamEnd(err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'UND_ERR_ABORTED' || (err as Error)?.name === 'AbortError';
}
