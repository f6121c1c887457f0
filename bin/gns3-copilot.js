#!/usr/bin/env node
// CommonJS (bin/package.json): a warm one-shot (GNS3_COPILOT_WARM) runs from here without
// Node's ES module loader (src/boot/warm/client-entry.ts); every other command line goes on to
// the ES module entry, without loading that file (the TUI's first frame and `--version` are
// timed against bare node). V8 heap tuning for long sessions is applied after the first request
// (src/agent/idle-gc.ts), not here: at launch it costs start-up time.
'use strict';

const warm = () => require('../dist/warm.cjs').warmOneShot(require('node:path').join(__dirname, '..', 'dist'));
if (!(process.env.GNS3_COPILOT_WARM && warm())) import('../dist/cli.js');
