#!/usr/bin/env node
// V8's default heap sizing favours throughput: the young generation grows to 3 × 16 MB
// and old space keeps a large growth margin, so a long-lived TUI sits on committed but
// unused heap (after 200 turns: ~150 MB heap for ~55 MB live). --optimize-for-size
// keeps the young generation at ~1 MB and the heap close to its live size; measured on
// this binary (bench/ui.bench.ts) it takes the settled RSS after 200 turns from ~275 MB
// to ~150 MB for a few % more CPU while streaming. It must be set before the app loads;
// Node refuses it in NODE_OPTIONS and a shebang cannot carry it on every platform, but
// the flag is read by the heap as it runs, so setting it here, first, takes effect.
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--optimize-for-size');
await import('../dist/cli.js');
