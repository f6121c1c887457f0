#!/usr/bin/env node
// V8 heap tuning for long sessions is applied after the first request (src/agent/idle-gc.ts),
// not here: at launch it costs start-up time.
await import('../dist/cli.js');
