#!/usr/bin/env node
// CommonJS (bin/package.json): a warm one-shot (GNS3_COPILOT_WARM) runs from here without
// Node's ES module loader (src/boot/warm/client-entry.ts); every other command line goes on to
// the ES module entry. V8 heap tuning for long sessions is applied after the first request
// (src/agent/idle-gc.ts), not here: at launch it costs start-up time.
'use strict';
const { join } = require('node:path');

if (!require('../dist/warm.cjs').warmOneShot(join(__dirname, '..', 'dist'))) import('../dist/cli.js');
