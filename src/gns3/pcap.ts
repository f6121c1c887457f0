/**
 * Just enough of the classic pcap format to count packets in a live capture
 * stream and cut it at a record boundary. GNS3 streams the capture file from
 * byte 0: a 24-byte global header, then 16-byte record headers + data.
 */

export const DLT_NUMBERS: Record<string, number> = {
  DLT_EN10MB: 1,
  DLT_PPP_SERIAL: 50,
  DLT_FRELAY: 107,
  DLT_C_HDLC: 104,
  DLT_ATM_RFC1483: 11,
};

/** An empty capture file (header only) so "no packets" is still a valid pcap. */
export function emptyPcap(linkType = 1): Uint8Array {
  const b = Buffer.alloc(24);
  b.writeUInt32LE(0xa1b2c3d4, 0);
  b.writeUInt16LE(2, 4);
  b.writeUInt16LE(4, 6);
  b.writeInt32LE(0, 8);
  b.writeUInt32LE(0, 12);
  b.writeUInt32LE(65535, 16);
  b.writeUInt32LE(linkType, 20);
  return new Uint8Array(b);
}

/** Incremental counter over a growing pcap byte stream. */
export class PcapCounter {
  private buf: Buffer = Buffer.alloc(0);
  private littleEndian: boolean | undefined;
  /** bytes up to the end of the last complete record */
  completeBytes = 0;
  packets = 0;
  /** the stream did not start with a pcap magic number */
  invalid = false;

  push(chunk: Uint8Array): void {
    this.buf = this.buf.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.buf, chunk]);
    this.scan();
  }

  get bytes(): Buffer {
    return this.buf;
  }

  /** The data cut after `n` complete packets (or all complete packets). */
  slice(n = this.packets): Buffer {
    if (this.littleEndian === undefined) return Buffer.alloc(0);
    let off = 24;
    for (let i = 0; i < n && off + 16 <= this.buf.length; i++) {
      const len = this.littleEndian ? this.buf.readUInt32LE(off + 8) : this.buf.readUInt32BE(off + 8);
      if (off + 16 + len > this.buf.length) break;
      off += 16 + len;
    }
    return this.buf.subarray(0, off);
  }

  private scan(): void {
    if (this.invalid) return;
    if (this.littleEndian === undefined) {
      if (this.buf.length < 24) return;
      const le = this.buf.readUInt32LE(0);
      if (le === 0xa1b2c3d4 || le === 0xa1b23c4d) this.littleEndian = true;
      else if (le === 0xd4c3b2a1 || le === 0x4d3cb2a1) this.littleEndian = false;
      else {
        this.invalid = true;
        return;
      }
      this.completeBytes = 24;
    }
    let off = this.completeBytes;
    while (off + 16 <= this.buf.length) {
      const len = this.littleEndian ? this.buf.readUInt32LE(off + 8) : this.buf.readUInt32BE(off + 8);
      if (len > 262_144) {
        this.invalid = true;
        return;
      }
      if (off + 16 + len > this.buf.length) break;
      off += 16 + len;
      this.packets++;
    }
    this.completeBytes = off;
  }
}
