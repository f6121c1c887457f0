/**
 * A small strict XML reader for asserting report shapes: elements, attributes,
 * text; entities decoded; any mismatched or unclosed tag throws. Enough for JUnit.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const decode = (s: string) =>
  s.replace(/&(lt|gt|quot|apos|amp|#\d+);/g, (_, e: string) =>
    e === 'lt'
      ? '<'
      : e === 'gt'
        ? '>'
        : e === 'quot'
          ? '"'
          : e === 'apos'
            ? "'"
            : e === 'amp'
              ? '&'
              : String.fromCharCode(Number(e.slice(1))),
  );

export function parseXml(text: string): XmlElement {
  let i = 0;
  const src = text.replace(/^<\?xml[^?]*\?>\s*/, '');
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (i < src.length) {
    const lt = src.indexOf('<', i);
    if (lt < 0) {
      if (src.slice(i).trim() !== '') throw new Error(`text after the root element at ${i}`);
      break;
    }
    if (stack.length > 0) stack[stack.length - 1]!.text += decode(src.slice(i, lt));
    else if (src.slice(i, lt).trim() !== '') throw new Error(`text outside the root element at ${i}`);
    const gt = src.indexOf('>', lt);
    if (gt < 0) throw new Error(`unterminated tag at ${lt}`);
    const tag = src.slice(lt + 1, gt);
    i = gt + 1;
    if (tag.startsWith('/')) {
      const open = stack.pop();
      if (!open || open.name !== tag.slice(1).trim()) throw new Error(`</${tag.slice(1)}> does not close <${open?.name ?? 'nothing'}>`);
      continue;
    }
    const m = /^([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)$/.exec(tag);
    if (!m) throw new Error(`malformed tag <${tag}>`);
    const attrs: Record<string, string> = {};
    for (const a of m[2]!.matchAll(/([A-Za-z_][\w.-]*)="([^"]*)"/g)) attrs[a[1]!] = decode(a[2]!);
    const el: XmlElement = { name: m[1]!, attrs, children: [], text: '' };
    if (stack.length > 0) stack[stack.length - 1]!.children.push(el);
    else if (root) throw new Error('two root elements');
    else root = el;
    if (m[3] !== '/') stack.push(el);
  }
  if (stack.length > 0) throw new Error(`<${stack[stack.length - 1]!.name}> is not closed`);
  if (!root) throw new Error('no root element');
  return root;
}
