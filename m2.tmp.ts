import { ToolRegistry } from './src/tools/registry.js';
import { allTools } from './src/tools/index.js';
import { agentTool } from './src/agent/tree/agent-tool.js';
import { readContextRefTool } from './src/agent/tree/protocol-tools.js';
import { TokenCounter } from './src/agent/tokens.js';
import { COPILOT_MODES } from './src/core/modes.js';
const c = await TokenCounter.create('o200k_base');
const seen = new Map<string, number>();
for (const am of ['flat', 'recursive']) {
  const r = new ToolRegistry(allTools());
  const eng = { policy: { mode: am } } as any;
  r.add([agentTool(eng), ...(am === 'recursive' ? [readContextRefTool(eng)] : [])]);
  for (const m of COPILOT_MODES) {
    const s = r.schemas(m, { kind: 'agent', depth: 0 } as any);
    for (const x of s) seen.set(`${x.function.name}${m==='troubleshooting_injection'?'@inj':''}${am==='recursive'&&x.function.name==='agent'?'@rec':''}`, c.text(JSON.stringify(x)));
    if (process.argv[2]) for (const x of s) console.log(JSON.stringify(x));
    console.log(am, m, s.length, c.text(JSON.stringify(s)));
  }
}
console.log([...seen].map(([k, v]) => `${k}=${v}`).join(' '));
