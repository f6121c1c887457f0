/**
 * One line saying what a manage_gns3_packet_filter call does, for a person deciding whether to
 * allow it: `PC1:e0 ↔ SW1:e1: drop icmp`, `R1:e0 ↔ R2:e0: lose 30% of packets, delay 100 ms ± 10 ms`.
 * The approval box and the MCP server's approval message put it above the call's arguments.
 * Pure and free of zod (the UI imports it): the arguments are the model's, not yet validated,
 * so anything malformed is shown as it came.
 */
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const values = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);
const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** `PC1:e0 ↔ SW1:e1` from the link as the model named it (`PC1:e0 SW1:e1`, `R1 R2`, a label `A <-> B`); an id stays as it is. */
export function linkEnds(link: string): string {
  const ends = link.trim().split(/\s*<->\s*|\s+/);
  return ends.length === 2 ? ends.join(' ↔ ') : link.trim();
}

/** One filter in words; GNS3's filter types, anything else as `type v1/v2`. */
function filterWords(type: string, value: unknown): string {
  const v = values(value);
  if (v.length > 0 && Number(v[0]) === 0 && type !== 'bpf') return `${type} off`;
  switch (type) {
    case 'bpf':
      return `drop ${v
        .flatMap((e) => text(e).split('\n'))
        .map((e) => e.trim())
        .filter(Boolean)
        .join(' or ')}`;
    case 'packet_loss':
      return `lose ${text(v[0])}% of packets`;
    case 'corrupt':
      return `corrupt ${text(v[0])}% of packets`;
    case 'delay':
      return `delay ${text(v[0])} ms${v[1] !== undefined && Number(v[1]) !== 0 ? ` ± ${text(v[1])} ms` : ''}`;
    case 'frequency_drop':
      return Number(v[0]) === -1 ? 'drop every packet' : `drop 1 packet in ${text(v[0])}`;
    default:
      return `${type} ${v.map(text).join('/')}`;
  }
}

/** What the call does to the link, or undefined when the arguments name no link. */
export function packetFilterSummary(args: Obj): string | undefined {
  if (typeof args.link !== 'string' || args.link.trim() === '') return undefined;
  const filters = isObj(args.filters) ? args.filters : {};
  const types = Object.keys(filters);
  let what: string;
  switch (args.action) {
    case 'set':
      what = types.length ? types.map((t) => filterWords(t, filters[t])).join(', ') : 'set no filter';
      break;
    case 'clear':
      what = types.length ? `clear ${types.join(', ')}` : 'clear every filter';
      break;
    case 'get':
      what = 'read its filters';
      break;
    case 'get_available':
      what = 'list the filters it takes';
      break;
    default:
      what = text(args.action);
  }
  const scenario = isObj(args.fault) && typeof args.fault.scenario === 'string' ? ` (fault ${args.fault.scenario})` : '';
  return `${linkEnds(args.link)}: ${what}${scenario}`;
}
