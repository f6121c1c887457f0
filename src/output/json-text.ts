/**
 * The one serializer of every JSON document printed on stdout (`--json`,
 * `--stream-json`, `sessions list|show|export --json`, `config list --json`,
 * `doctor --json`, `skills --json`, usage errors under --json). JSON.stringify
 * escapes C0 itself but leaves DEL, the C1 controls (U+0080–U+009F: the 8-bit
 * CSI U+009B, NEL U+0085) and the bidi controls raw; a terminal showing the
 * output (`… --json | less`) would obey them. They are written as \uXXXX, which
 * every JSON reader turns back into the same character.
 */
const RAW_CONTROLS = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const escape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** JSON text of `value` with no raw control or bidi character (any such character can only be inside a string). */
export function jsonText(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? 'null').replace(RAW_CONTROLS, escape);
}
