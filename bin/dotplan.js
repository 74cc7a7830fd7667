#!/usr/bin/env node
// The dotplan command: runs the CLI's bundle (dist/bundle, built by `npm ci` / `npm run build`).
import { main } from '../dist/bundle/main.js';

process.exitCode = await main(process.argv.slice(2));
