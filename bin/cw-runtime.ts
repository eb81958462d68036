#!/usr/bin/env node
import { runtimeServerConfig } from '../runtime-server/config.ts';
import { main } from '../runtime-server/main.ts';
import { runBinary } from '../src/config/run-binary.ts';

runBinary('cw-runtime', () => main(runtimeServerConfig(process.env)));
