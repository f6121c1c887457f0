/**
 * The warm socket's framing: one byte of kind, four of length (big-endian), the payload.
 * Client to process: the request (`R`, JSON) and the signals the client receives (`S`, the
 * name). Process to client: `A` when the run starts (a client whose socket closes before it may
 * run the one-shot itself: nothing of it ran), stdout (`O`) and stderr (`E`) bytes as the one-shot writes them,
 * then its exit code (`X`, JSON), the last frame — or, instead, `L`: the run needs what only the
 * client's own process has (its stdin, its terminal for the TUI), so the client runs it itself.
 */
export type FrameKind = 'R' | 'S' | 'A' | 'O' | 'E' | 'X' | 'L';

/** What a client sends first: the command line and everything of its process a one-shot reads. */
export interface WarmRequest {
  argv: string[];
  env: Record<string, string>;
  tty: { stdin: boolean; stdout: boolean; stderr: boolean };
  /** the terminal's width and colours, when stdout or stderr is one */
  columns?: number;
  colorDepth?: number;
}

const HEADER = 5;

export function frame(kind: FrameKind, payload: string | Buffer): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const head = Buffer.alloc(HEADER);
  head.write(kind, 0, 'latin1');
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

/** Cuts a byte stream into frames, whatever the chunks it arrives in (a frame's bytes are joined once, when all are there). */
export class FrameReader {
  private chunks: Buffer[] = [];
  private length = 0;

  constructor(private readonly onFrame: (kind: FrameKind, payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
    while (this.length >= HEADER) {
      if (this.chunks[0]!.length < HEADER) this.chunks = [Buffer.concat(this.chunks)];
      const size = HEADER + this.chunks[0]!.readUInt32BE(1);
      if (this.length < size) return;
      const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
      this.chunks = all.length > size ? [all.subarray(size)] : [];
      this.length -= size;
      this.onFrame(all.toString('latin1', 0, 1) as FrameKind, all.subarray(HEADER, size));
    }
  }
}
