import { readFileSync } from 'node:fs';
import { TokenCounter } from './src/agent/tokens.js';
const c = await TokenCounter.create('o200k_base');
const all = readFileSync('/tmp/tokens/now.jsonl','utf8').trim().split('\n').map((l)=>JSON.parse(l));
const groups = [13,17,8]; let i=0;
function f(n: any): any { if (Array.isArray(n)) return n.map(f); if (!n||typeof n!=='object') return n;
  const o: any = {}; for (const [k,v] of Object.entries(n)) { o[k] = k==='properties' ? Object.fromEntries(Object.entries(v as any).map(([a,b])=>[a,f(b)])) : f(v); }
  if (Array.isArray(o.required) && o.properties && o.required.length === Object.keys(o.properties).length) delete o.required;
  return o; }
for (const g of groups) { const s = all.slice(i, i+g); i+=g; const t = s.map((x)=>({...x, function:{...x.function, parameters: f(x.function.parameters)}})); console.log(g, c.text(JSON.stringify(s)), c.text(JSON.stringify(t))); }
